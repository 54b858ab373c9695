// The OpenMP CPU backend (cpu_backend.h): CpuSimulation, its step, its saved state and its gauges.
// A little over 500 lines: one class whose members share its private state; split along them it
// would need a header exposing that state to no other user.

#include "backends/cpu/cpu_backend.h"

#include "backends/backend_common.h"
#include "case/constants.h"
#include "case/particles.h"
#include "neighbours/cpu_builder.h"
#include "physics/gauges.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <variant>
#include <vector>

namespace sluice {

namespace {

/// Loops that do a few memory operations per particle (gather, integration, checks) run on
/// one thread below this size: an OpenMP fork/join costs more than they do, and far more when
/// the cores are shared with other processes. The interaction pass is always parallel.
constexpr std::int64_t parallel_threshold = 50000;

template <int D>
bool finite(const Vec<D>& v) {
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(v[k]))
            return false;
    return true;
}

/// Wall-clock stage accounting.
class StageClock {
public:
    using Clock = std::chrono::steady_clock;
    explicit StageClock(double& total) : total_(total), start_(Clock::now()) {}
    ~StageClock() { total_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
    StageClock(const StageClock&) = delete;
    StageClock& operator=(const StageClock&) = delete;

private:
    double& total_;
    Clock::time_point start_;
};

/// Gathers a particle array into the new bin order: a[k] ← a[permutation[k]]. The scratch
/// buffer takes the old array, so no allocation happens once sizes are reached. Empty arrays
/// (those the integrator does not use) are left alone.
template <class T>
void gather(std::vector<T>& a, std::vector<T>& scratch,
            const std::vector<std::uint32_t>& permutation) {
    if (a.empty())
        return;
    scratch.resize(a.size());
    const std::int64_t n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t k = 0; k < n; ++k)
        scratch[k] = a[permutation[k]];
    a.swap(scratch);
}

/// WCSPH on the CPU: OpenMP over particles, deterministic for any thread count (every particle's
/// sums run in its neighbour order; the only reductions are max).
///
/// Layout::reorder: state arrays are kept in bin order; after each neighbour-structure build every
/// array the rest of the step reads is gathered into the new order (DESIGN.md), and `id_` keeps
/// the original index. Layout::index (and a linked list): the arrays keep their order and the
/// query reads them through the view; the build reads a copy of the positions, so that the view
/// stays consistent while the integration moves them. Either way particles [0, active_) are
/// binned, interact and move; [active_, n) have left the domain and are frozen
/// (OutsidePolicy::exclude sorts them last; the index layout moves them there when they leave).
template <int D>
class CpuSimulation final : public Simulation {
public:
    /// From a state: the initial one (restored = false: every particle must lie in the domain)
    /// or a checkpoint's (its excluded particles stay excluded and unreported).
    CpuSimulation(const Case& c, const DerivedConstants& derived, const SimulationState& state,
                  bool restored);

    void step() override;
    double time() const override { return time_; }
    std::uint64_t steps() const override { return steps_; }
    double last_dt() const override { return dt_; }
    ParticleCounts counts() const override;
    Snapshot snapshot() const override;
    StageTimes stage_times() const override;
    const DerivedConstants& constants() const override { return derived_; }
    std::string backend_name() const override { return "cpu"; }
    std::vector<Exclusion> take_exclusions() override;
    SimulationState save_state() const override;
    GaugeResponse sample_gauges(const GaugeRequest& request) override;

private:
    using Stage = StepStage;

    std::uint32_t size() const { return static_cast<std::uint32_t>(id_.size()); }
    /// Builds the neighbour structure on the current positions and gathers the particle arrays
    /// into its order; `with_previous` also gathers the integrator's previous_* arrays (those
    /// the scheme uses; the others are empty).
    void rebuild(bool with_previous);
    /// One interaction pass over the active particles: acceleration_, density_rate_,
    /// acceleration_max_, mu_max_.
    void interact();
    template <class QueryT, class ViewT, class KernelT>
    void interact_with(const ViewT& view, const KernelT& kernel);
    /// Index layout: moves the particles the last build excluded to the end of every array
    /// (stable), as the reorder layout's sort does.
    void move_excluded_last(bool with_previous);
    /// Every particle array but the positions: a[k] ← a[order[k]]; with_previous: also the
    /// integrator's previous_* arrays (those the scheme uses; the others are empty).
    void gather_state(const std::vector<std::uint32_t>& order, bool with_previous);
    IntegratorArrays<D> integrator_arrays();
    void check(); ///< throws SimulationFailure
    void record_exclusions();

    // configuration
    DerivedConstants derived_;
    FluidConstants fluid_;
    KernelVariant<D> kernel_;
    QueryTag query_;
    Layout layout_;
    IntegratorKind integrator_;
    int verlet_reset_;
    double cfl_;
    float density_min_, density_max_; ///< kg/m³
    GridSpec<D> grid_;
    CpuNeighbourBuilder<D> builder_;
    std::vector<Vec<D>> build_positions_; ///< index layout: what the last build (and view) read
    /// Symplectic, reorder: the corrector (and gauges after the step) query the predictor's
    /// structure over the state's positions, skin_ (m) being the largest move along any axis
    /// since that build (query.h), as the CUDA backend does.
    bool reused_ = false;
    float skin_ = 0.0f;
    /// The view queries take: the last build's, or that build over the state's positions with
    /// its skin (reused_).
    AnyNeighbourView<D> current_view() const;
    /// The largest move along any axis of the active particles since the last build (m).
    float largest_move_since_build() const;
    std::uint32_t boundary_count_;

    // particle state, bin order
    std::vector<Vec<D>> position_, velocity_, previous_position_, previous_velocity_;
    std::vector<float> density_, previous_density_;
    std::vector<ParticleType> type_;
    std::vector<std::uint32_t> id_;
    std::uint32_t active_ = 0;
    // derived per pass
    std::vector<float> pressure_, density_rate_;
    std::vector<Vec<D>> acceleration_;
    float acceleration_max_ = 0.0f, mu_max_ = 0.0f;
    // gather scratch, one per element type
    std::vector<Vec<D>> scratch_vec_;
    std::vector<float> scratch_float_;
    std::vector<ParticleType> scratch_type_;
    std::vector<std::uint32_t> scratch_id_;

    double fluid_height_; ///< H_max at t = 0 (m), kept for save_state
    double time_ = 0.0, dt_ = 0.0;
    std::uint64_t steps_ = 0;
    ExclusionLog exclusions_;
    double stage_seconds_[step_stage_count] = {};
    double gauge_seconds_ = 0.0; ///< sample_gauges, wall time
};

template <int D>
CpuSimulation<D>::CpuSimulation(const Case& c, const DerivedConstants& derived,
                                const SimulationState& state, bool restored)
    : derived_(derived), fluid_(make_fluid_constants(c, derived_)),
      kernel_(make_kernel<D>(c.physics.kernel, derived_.h)), query_(c.neighbours.query),
      layout_(c.neighbours.construction == Construction::linked_list ? Layout::index
                                                                     : c.neighbours.layout),
      integrator_(c.physics.integrator), verlet_reset_(c.physics.verlet_reset_steps),
      cfl_(c.constants.cfl),
      density_min_(static_cast<float>(c.physics.density_min_ratio * c.constants.rho0)),
      density_max_(static_cast<float>(c.physics.density_max_ratio * c.constants.rho0)),
      grid_(make_grid<D>(to_vec<D>(c.domain.min), to_vec<D>(c.domain.max),
                         static_cast<float>(derived_.support), c.neighbours.bin_width)),
      builder_(c.neighbours.construction),
      boundary_count_(static_cast<std::uint32_t>(
          std::count(state.type.begin(), state.type.end(), ParticleType::boundary))),
      fluid_height_(state.fluid_height), time_(state.time), dt_(state.last_dt),
      steps_(state.steps) {
    const std::size_t n = state.size();
    position_.resize(n);
    velocity_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        position_[i] = from_array3<D>(state.position[i]);
        velocity_[i] = from_array3<D>(state.velocity[i]);
    }
    density_ = state.density;
    type_ = state.type;
    id_ = state.id;
    if (integrator_ == IntegratorKind::symplectic) // Verlet needs no previous position
        previous_position_ = position_;
    // Verlet's step n−1: saved, or at t = 0 the initial state itself.
    if (integrator_ == IntegratorKind::verlet && !state.previous_velocity.empty()) {
        previous_velocity_.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            previous_velocity_[i] = from_array3<D>(state.previous_velocity[i]);
        previous_density_ = state.previous_density;
    } else {
        previous_velocity_ = velocity_;
        previous_density_ = density_;
    }
    pressure_.resize(n);
    density_rate_.resize(n);
    acceleration_.resize(n);
    exclusions_ = ExclusionLog(n);
    exclusions_.mark_reported(state.excluded);

    // The state's order is kept by a rebuild of unchanged positions (the CPU constructions are
    // stable), so a restored state continues in exactly the order it was saved in.
    rebuild(true);
    if (!restored && active_ != size()) {
        std::ostringstream msg;
        msg << size() - active_ << " particle(s) lie outside the domain at t = 0, e.g. id "
            << id_[active_] << " at " << describe(position_[active_])
            << " m; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }
}

template <int D>
GaugeResponse CpuSimulation<D>::sample_gauges(const GaugeRequest& request) {
    // The view of the last build and the arrays in its order (see simulation.h).
    const ParticlesView<D> particles{velocity_.data(), density_.data(), pressure_.data(),
                                     type_.data()};
    StageClock clock(gauge_seconds_);
    GaugeResponse out;
    out.sums.resize(request.points.size());
    dispatch_neighbour_query<D>(query_, current_view(), [&](auto query, const auto& view) {
        std::visit(
            [&](const auto& kernel) {
                using QueryT = decltype(query);
                using KernelT = std::decay_t<decltype(kernel)>;
                const std::int64_t n = static_cast<std::int64_t>(request.points.size());
#pragma omp parallel for schedule(dynamic, 16) if (n >= 256)
                for (std::int64_t k = 0; k < n; ++k) {
                    GaugeVisitor<D, KernelT, ParticlesView<D>> visitor{particles, kernel, fluid_};
                    for_each_neighbour<QueryT>(view, from_array3<D>(request.points[k]), visitor);
                    const GaugeSums<D> s = visitor.sums;
                    const std::array<float, 3> v = to_array3(s.w_velocity);
                    out.sums[k] = {s.w, s.w_density, s.w_pressure, v[0], v[1], v[2]};
                }
                // Fronts: fluid particles by decreasing coordinate (a heap: usually only the first
                // one or two are taken), the first with a fluid neighbour within the distance wins.
                for (const GaugeRequest::Front& f : request.fronts) {
                    const int k = D == 2 ? (f.axis == 2 ? 1 : 0) : f.axis;
                    std::vector<std::pair<float, std::uint32_t>> order;
                    for (std::uint32_t i = 0; i < active_; ++i)
                        if (type_[i] == ParticleType::fluid)
                            order.emplace_back(static_cast<float>(f.sign) * view.positions[i][k],
                                               i);
                    std::make_heap(order.begin(), order.end());
                    float front = std::numeric_limits<float>::quiet_NaN();
                    for (auto end = order.end(); end != order.begin(); --end) {
                        std::pop_heap(order.begin(), end);
                        const auto [key, i] = *(end - 1);
                        FluidNeighbourVisitor<D, ParticlesView<D>> test{
                            particles, i,
                            request.front_neighbour_distance * request.front_neighbour_distance};
                        for_each_neighbour<QueryT>(view, view.positions[i], test);
                        if (test.found) {
                            front = static_cast<float>(f.sign) * key;
                            break;
                        }
                    }
                    out.fronts.push_back(front);
                }
            },
            kernel_);
    });
    return out;
}

template <int D>
SimulationState CpuSimulation<D>::save_state() const {
    SimulationState s;
    s.dimension = D;
    s.time = time_;
    s.last_dt = dt_;
    s.steps = steps_;
    s.fluid_height = fluid_height_;
    s.id = id_;
    s.type = type_;
    s.density = density_;
    s.position.resize(size());
    s.velocity.resize(size());
    for (std::uint32_t k = 0; k < size(); ++k) {
        s.position[k] = to_array3(position_[k]);
        s.velocity[k] = to_array3(velocity_[k]);
    }
    if (integrator_ == IntegratorKind::verlet) {
        s.previous_velocity.resize(size());
        for (std::uint32_t k = 0; k < size(); ++k)
            s.previous_velocity[k] = to_array3(previous_velocity_[k]);
        s.previous_density = previous_density_;
    }
    s.excluded = exclusions_.reported();
    return s;
}

template <int D>
AnyNeighbourView<D> CpuSimulation<D>::current_view() const {
    AnyNeighbourView<D> view = builder_.view(layout_);
    if (reused_) {
        NeighbourView<D>& v = std::get<NeighbourView<D>>(view); // reorder layout only
        v.positions = position_.data();
        v.skin = &skin_;
    }
    return view;
}

template <int D>
float CpuSimulation<D>::largest_move_since_build() const {
    const std::vector<Vec<D>>& built = builder_.sorted_positions(); // reorder: the same order
    float moved = 0.0f;
    const std::int64_t n = active_;
#pragma omp parallel for schedule(static) reduction(max : moved) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i)
        for (int k = 0; k < D; ++k)
            moved = std::max(moved, std::fabs(position_[i][k] - built[i][k]));
    return moved;
}

template <int D>
void CpuSimulation<D>::rebuild(bool with_previous) {
    reused_ = false;
    const float radius = static_cast<float>(derived_.support);
    if (layout_ == Layout::index) {
        StageClock clock(stage_seconds_[construction]);
        build_positions_ = position_;
        builder_.build(build_positions_.data(), size(), grid_, radius, OutsidePolicy::exclude);
        if (builder_.binned_count() != active_ || active_ == 0) {
            // Someone left the domain (or the first build): excluded particles go last, the
            // structure is built again on that order.
            move_excluded_last(with_previous);
            build_positions_ = position_;
            builder_.build(build_positions_.data(), size(), grid_, radius, OutsidePolicy::exclude);
        }
        active_ = builder_.binned_count();
        return;
    }
    {
        StageClock clock(stage_seconds_[construction]);
        builder_.build(position_.data(), size(), grid_, radius, OutsidePolicy::exclude);
    }
    StageClock clock(stage_seconds_[reorder]);
    position_ = builder_.sorted_positions();
    gather_state(builder_.permutation(), with_previous);
    active_ = builder_.binned_count();
}

template <int D>
void CpuSimulation<D>::gather_state(const std::vector<std::uint32_t>& order, bool with_previous) {
    gather(velocity_, scratch_vec_, order);
    gather(density_, scratch_float_, order);
    gather(type_, scratch_type_, order);
    gather(id_, scratch_id_, order);
    if (with_previous) {
        gather(previous_position_, scratch_vec_, order);
        gather(previous_velocity_, scratch_vec_, order);
        gather(previous_density_, scratch_float_, order);
    }
}

template <int D>
void CpuSimulation<D>::move_excluded_last(bool with_previous) {
    std::vector<std::uint32_t> order;
    order.reserve(size());
    for (std::uint32_t i = 0; i < size(); ++i)
        if (grid_.contains(build_positions_[i]))
            order.push_back(i);
    for (std::uint32_t i = 0; i < size(); ++i)
        if (!grid_.contains(build_positions_[i]))
            order.push_back(i);
    gather(position_, scratch_vec_, order);
    gather_state(order, with_previous);
}

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CpuSimulation<D>::interact_with(const ViewT& view, const KernelT& kernel) {
    const ParticlesView<D> particles{velocity_.data(), density_.data(), pressure_.data(),
                                     type_.data()};
    const FluidConstants fluid = fluid_;
    const std::int64_t n = active_;
    float acceleration_max2 = 0.0f, mu_max = 0.0f;
#pragma omp parallel for schedule(static, 64) reduction(max : acceleration_max2, mu_max)
    for (std::int64_t i = 0; i < n; ++i) {
        const Derivatives<D> d = interact_particle<QueryT>(view, particles, kernel, fluid,
                                                           static_cast<std::uint32_t>(i));
        acceleration_[i] = d.acceleration;
        density_rate_[i] = d.density_rate;
        mu_max = std::max(mu_max, d.mu_max);
        if (type_[i] == ParticleType::fluid)
            acceleration_max2 = std::max(acceleration_max2, norm2(d.acceleration));
    }
    acceleration_max_ = std::sqrt(acceleration_max2);
    mu_max_ = mu_max;
}

template <int D>
void CpuSimulation<D>::interact() {
    StageClock clock(stage_seconds_[interaction]);
    const std::int64_t n = active_;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i)
        pressure_[i] = tait_pressure(fluid_, density_[i]);
    // Runtime choice → compiled instantiation, once per pass (DESIGN.md).
    dispatch_neighbour_query<D>(query_, current_view(), [this](auto query, const auto& view) {
        std::visit(
            [&](const auto& kernel) {
                this->template interact_with<decltype(query)>(view, kernel);
            },
            kernel_);
    });
}

template <int D>
IntegratorArrays<D> CpuSimulation<D>::integrator_arrays() {
    return {position_.data(),          velocity_.data(),          density_.data(),
            previous_position_.data(), previous_velocity_.data(), previous_density_.data(),
            acceleration_.data(),      density_rate_.data(),      type_.data()};
}

template <int D>
void CpuSimulation<D>::step() {
    const float rho0 = fluid_.rho0;
    if (integrator_ == IntegratorKind::symplectic) {
        // Predictor with the derivatives of state n, then a corrector with those of n+½ (on the
        // predictor's neighbour structure, reorder layout, or on a new one).
        rebuild(false);
        interact();
        {
            StageClock clock(stage_seconds_[integration]);
            dt_ = time_step(fluid_, cfl_, acceleration_max_, mu_max_);
            const float dt = static_cast<float>(dt_);
            const IntegratorArrays<D> a = integrator_arrays();
            const std::int64_t n = active_;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
            for (std::int64_t i = 0; i < n; ++i)
                symplectic_predict(a, static_cast<std::uint32_t>(i), dt, rho0);
        }
        // The corrector's neighbours: the predictor's structure over the predicted positions,
        // widened by how far they moved (exact, query.h), as the CUDA backend does; the index
        // layouts build again.
        if (layout_ == Layout::reorder) {
            skin_ = largest_move_since_build();
            reused_ = true;
        } else {
            rebuild(true);
        }
        interact();
        StageClock clock(stage_seconds_[integration]);
        const float dt = static_cast<float>(dt_);
        const IntegratorArrays<D> a = integrator_arrays();
        const std::int64_t n = active_;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
        for (std::int64_t i = 0; i < n; ++i)
            symplectic_correct(a, static_cast<std::uint32_t>(i), dt, rho0);
        if (reused_) // gauges after the step query the state through it
            skin_ = largest_move_since_build();
    } else {
        rebuild(true);
        interact();
        StageClock clock(stage_seconds_[integration]);
        dt_ = time_step(fluid_, cfl_, acceleration_max_, mu_max_);
        const float dt = static_cast<float>(dt_);
        const bool euler = steps_ % static_cast<std::uint64_t>(verlet_reset_) == 0;
        const IntegratorArrays<D> a = integrator_arrays();
        const std::int64_t n = active_;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
        for (std::int64_t i = 0; i < n; ++i)
            verlet_update(a, static_cast<std::uint32_t>(i), dt, euler, rho0);
    }
    time_ += dt_;
    ++steps_;
    check();
    record_exclusions();
}

template <int D>
void CpuSimulation<D>::check() {
    StageClock clock(stage_seconds_[checks]);
    const std::int64_t n = size();
    auto bad = [&](std::int64_t k) {
        return !finite(position_[k]) || !finite(velocity_[k]) || !std::isfinite(density_[k]) ||
               density_[k] < density_min_ || density_[k] > density_max_;
    };
    std::int64_t bad_count = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad_count) if (n >= parallel_threshold)
    for (std::int64_t k = 0; k < n; ++k)
        bad_count += bad(k) ? 1 : 0;
    if (bad_count == 0)
        return;

    std::vector<Offender<D>> offenders;
    for (std::int64_t k = 0; k < n; ++k)
        if (bad(k))
            offenders.push_back({id_[k], type_[k], density_[k], position_[k], velocity_[k]});
    throw SimulationFailure(failure_message(steps_, time_, static_cast<std::size_t>(bad_count),
                                            density_min_, density_max_, offenders));
}

template <int D>
void CpuSimulation<D>::record_exclusions() {
    exclusions_.record(
        size() - active_, id_.data() + active_,
        [&](std::uint32_t k) { return to_array3(position_[active_ + k]); }, steps_, time_);
}

template <int D>
std::vector<Exclusion> CpuSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CpuSimulation<D>::counts() const {
    ParticleCounts counts;
    counts.boundary = boundary_count_;
    counts.fluid = active_ - boundary_count_; // boundary particles never leave the domain
    counts.excluded = size() - active_;
    return counts;
}

template <int D>
Snapshot CpuSimulation<D>::snapshot() const {
    // Bin-order index of each id among the active particles (excluded ones left out).
    constexpr std::uint32_t none = ~0u;
    std::vector<std::uint32_t> slot(size(), none);
    for (std::uint32_t k = 0; k < active_; ++k)
        slot[id_[k]] = k;
    Snapshot s;
    s.dimension = D;
    s.time = time_;
    s.step = steps_;
    s.dt = dt_;
    s.id.reserve(active_);
    for (std::uint32_t id = 0; id < size(); ++id) {
        const std::uint32_t k = slot[id];
        if (k == none)
            continue;
        s.id.push_back(id);
        s.type.push_back(type_[k]);
        s.position.push_back(to_array3(position_[k]));
        s.velocity.push_back(to_array3(velocity_[k]));
        s.density.push_back(density_[k]);
        s.pressure.push_back(tait_pressure(fluid_, density_[k]));
    }
    return s;
}

template <int D>
StageTimes CpuSimulation<D>::stage_times() const {
    return named_stage_times(stage_seconds_, gauge_seconds_);
}

} // namespace

std::unique_ptr<Simulation> make_cpu_simulation(const Case& c) {
    const ParticleSet particles = generate_particles(c);
    const SimulationState state = initial_state(particles);
    if (c.dimension == 2)
        return std::make_unique<CpuSimulation<2>>(c, particles.constants, state, false);
    return std::make_unique<CpuSimulation<3>>(c, particles.constants, state, false);
}

std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const SimulationState& state) {
    const DerivedConstants derived = restored_constants(c, state);
    if (c.dimension == 2)
        return std::make_unique<CpuSimulation<2>>(c, derived, state, true);
    return std::make_unique<CpuSimulation<3>>(c, derived, state, true);
}

} // namespace sluice

namespace sluice {

MemoryEstimate estimate_cpu_memory(const Case& c, std::uint64_t particles) {
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    const float radius = static_cast<float>(2.0 * smoothing_length(c));
    auto per_particle = [&](auto dim) -> std::uint64_t {
        constexpr int D = decltype(dim)::value;
        // CpuSimulation: position, velocity, previous velocity, acceleration, gather scratch,
        // previous position (symplectic); the builder's sorted positions.
        const std::uint64_t vectors = (symplectic ? 6 : 5) + 1;
        // density, previous density, pressure, density rate, scratch.
        const std::uint64_t floats = 5;
        // id, id scratch; the builder's key, offset and permutation.
        const std::uint64_t words = 5;
        return vectors * sizeof(Vec<D>) + floats * sizeof(float) + words * sizeof(std::uint32_t) +
               2 * sizeof(ParticleType);
    };
    MemoryEstimate m;
    if (c.dimension == 2) {
        m.bytes_per_particle = per_particle(std::integral_constant<int, 2>{});
        m.bins = make_grid<2>(to_vec<2>(c.domain.min), to_vec<2>(c.domain.max), radius,
                              c.neighbours.bin_width)
                     .bin_count();
    } else {
        m.bytes_per_particle = per_particle(std::integral_constant<int, 3>{});
        m.bins = make_grid<3>(to_vec<3>(c.domain.min), to_vec<3>(c.domain.max), radius,
                              c.neighbours.bin_width)
                     .bin_count();
    }
    m.particle_bytes = m.bytes_per_particle * particles;
    m.grid_bytes = (m.bins + 2) * sizeof(std::uint32_t);
    return m;
}

} // namespace sluice
