// The OpenMP CPU backend (cpu_backend.h): CpuSimulation, its step, its saved state and its gauges.
// A little over 500 lines: one class whose members share its private state; split along them it
// would need a header exposing that state to no other user.

#include "backends/cpu/cpu_backend.h"

#include "backends/exclusion_log.h"
#include "backends/failure.h"
#include "backends/stage_times.h"
#include "backends/step_plan.h"
#include "case/constants.h"
#include "case/particles.h"
#include "case/state_conversion.h"
#include "neighbours/cpu_builder.h"
#include "parallel/communicator.h"
#include "parallel/slab_start.h"
#include "parallel/slabs.h"
#include "physics/gauges.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
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

/// Gathers a particle array into the new bin order: a[k] ← a[permutation[k]] (a takes the
/// permutation's length: a shorter one drops particles). The scratch buffer takes the old array,
/// so no allocation happens once sizes are reached. Empty arrays (those the integrator does not
/// use) are left alone.
template <class T>
void gather(std::vector<T>& a, std::vector<T>& scratch,
            const std::vector<std::uint32_t>& permutation) {
    if (a.empty())
        return;
    scratch.resize(permutation.size());
    const std::int64_t n = static_cast<std::int64_t>(permutation.size());
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
///
/// Several processes (DESIGN.md, Scale-out; `comm_` set): this rank owns the particles of its
/// slab and holds halo copies of its neighbours' particles within slabs_.halo_width of its faces,
/// mixed into the same arrays (halo_slot_ tells them apart). Each step begins with distribute()
/// (halo dropped, particles that crossed a face migrate, a new halo is received); the halo is
/// refreshed from its owners before every later interaction pass (refresh_halo()). Halo
/// particles are binned and visited like any other, get no derivatives of their own, and are
/// left out of the maxima, the checks, the exclusions, snapshots and saved states.
template <int D>
class CpuSimulation final : public Simulation {
public:
    /// From a state: the initial one (restored = false: every particle must lie in the domain)
    /// or a checkpoint's (its excluded particles stay excluded and unreported). With `comm`,
    /// `state` holds this rank's slab of a run of `total_particles` particles (ids global).
    CpuSimulation(const Case& c, const DerivedConstants& derived, const SimulationState& state,
                  bool restored, const Communicator* comm = nullptr, SlabDecomposition slabs = {},
                  std::uint64_t total_particles = 0);

    void step() override;
    double time() const override { return time_; }
    std::uint64_t steps() const override { return steps_; }
    double last_dt() const override { return dt_; }
    ParticleCounts counts() const override;
    Snapshot snapshot() const override;
    StageTimes stage_times() const override;
    const DerivedConstants& constants() const override { return derived_; }
    std::optional<SlabDecomposition> decomposition() const override {
        if (!comm_)
            return std::nullopt;
        return slabs_;
    }
    std::string backend_name() const override { return "cpu"; }
    std::vector<Exclusion> take_exclusions() override;
    SimulationState save_state() const override;
    /// With several processes: collective (the halo is refreshed first).
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
    /// Sets dt_ from this pass's maxima (over every rank).
    void set_time_step();
    void check(); ///< throws SimulationFailure (on every rank at once)
    void record_exclusions();

    // Several processes (class comment); all collective.
    static constexpr std::uint32_t no_slot = ~0u;
    bool is_halo(std::uint32_t i) const { return !halo_slot_.empty() && halo_slot_[i] != no_slot; }
    /// Drops the halo, migrates the particles outside this slab to its neighbours, takes in
    /// theirs, and receives a new halo.
    void distribute();
    /// Copies the halo's position, velocity and density from their owners.
    void refresh_halo();
    /// Load balancing: moves the slab faces towards equal step times (rebalanced_slabs) from
    /// each process's time in the step's own stages since the last balance; the next
    /// distribute() migrates the particles.
    void balance();
    /// send_index_ and halo_index_ from the per-particle slots (after any reorder).
    void index_slots();
    /// Appends the particles of a migration or halo message (pack()'s order); halo copies get
    /// the slots first_slot, first_slot + 1, …
    void append_particles(const std::vector<std::byte>& message, bool halo,
                          std::uint32_t first_slot);
    void pack(std::uint32_t i, ByteWriter& out) const;
    /// Moves the particles [from, size()) to just after the active ones, before the excluded.
    void insert_before_excluded(std::uint32_t from);
    /// Applies f to every per-particle array (positions included).
    template <class F>
    void for_each_array(F&& f);

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

    // several processes (class comment); comm_ null with one
    const Communicator* comm_ = nullptr;
    SlabDecomposition slabs_;
    std::uint64_t total_particles_ = 0; ///< every rank's, excluded ones included
    /// Per particle, empty with one process: a halo copy's place in the halo received (from
    /// below, then from above), no_slot for an owned particle; an owned particle's place in the
    /// halo sent (to below, then above), no_slot when not sent.
    std::vector<std::uint32_t> halo_slot_, send_slot_;
    std::vector<std::uint32_t> scratch_slot_;
    std::uint32_t received_below_ = 0, received_above_ = 0, sent_below_ = 0, sent_above_ = 0;
    std::vector<std::uint32_t> halo_index_, send_index_; ///< slot → particle index
    float largest_speed_ = 0.0f;    ///< m/s, owned fluid, every rank, at the end of the last step
    int balance_interval_ = 0;      ///< steps; 0 = off
    GridSpec<D> work_grid_;         ///< bins of edge R over the domain, for interaction_weights
    double balanced_seconds_ = 0.0; ///< the stages' total at the last balance
};

template <int D>
CpuSimulation<D>::CpuSimulation(const Case& c, const DerivedConstants& derived,
                                const SimulationState& state, bool restored,
                                const Communicator* comm, SlabDecomposition slabs,
                                std::uint64_t total_particles)
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
      fluid_height_(state.fluid_height), time_(state.time), dt_(state.last_dt), steps_(state.steps),
      comm_(comm), slabs_(std::move(slabs)),
      total_particles_(comm ? total_particles : state.size()),
      balance_interval_(c.run.balance_interval) {
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
    exclusions_ = ExclusionLog(total_particles_);
    exclusions_.mark_reported(state.excluded);
    if (comm_) {
        halo_slot_.assign(n, no_slot);
        send_slot_.assign(n, no_slot);
        work_grid_ = work_grid<D>(c, derived_.support);
    }

    // The state's order is kept by a rebuild of unchanged positions (the CPU constructions are
    // stable), so a restored state continues in exactly the order it was saved in.
    rebuild(true);
    const std::uint64_t outside =
        comm_ ? comm_->sum(std::uint64_t{size() - active_}) : std::uint64_t{size() - active_};
    if (!restored && outside > 0) {
        std::ostringstream msg;
        msg << outside << " particle(s) lie outside the domain at t = 0";
        if (active_ != size())
            msg << ", e.g. id " << id_[active_] << " at " << describe(position_[active_]) << " m";
        msg << "; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }
    if (comm_) { // a halo from the start: gauges sampled before the first step need it
        distribute();
        rebuild(true);
    }
}

template <int D>
GaugeResponse CpuSimulation<D>::sample_gauges(const GaugeRequest& request) {
    // The view of the last build and the arrays in its order (see simulation.h).
    if (comm_) { // the halo at the current state, and the skin that covers it
        refresh_halo();
        if (reused_)
            skin_ = largest_move_since_build();
    }
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
                        if (type_[i] == ParticleType::fluid && !is_halo(i))
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
    if (comm_)
        combine_gauges(*comm_, slabs_, D, request, out);
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
    const bool verlet = integrator_ == IntegratorKind::verlet;
    for (std::uint32_t k = 0; k < size(); ++k) {
        if (is_halo(k)) // with several processes: its owner saves it
            continue;
        s.id.push_back(id_[k]);
        s.type.push_back(type_[k]);
        s.density.push_back(density_[k]);
        s.position.push_back(to_array3(position_[k]));
        s.velocity.push_back(to_array3(velocity_[k]));
        if (verlet) {
            s.previous_velocity.push_back(to_array3(previous_velocity_[k]));
            s.previous_density.push_back(previous_density_[k]);
        }
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
        if (comm_)
            index_slots();
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
    if (comm_)
        index_slots();
}

template <int D>
void CpuSimulation<D>::gather_state(const std::vector<std::uint32_t>& order, bool with_previous) {
    gather(velocity_, scratch_vec_, order);
    gather(density_, scratch_float_, order);
    gather(type_, scratch_type_, order);
    gather(id_, scratch_id_, order);
    gather(halo_slot_, scratch_slot_, order);
    gather(send_slot_, scratch_slot_, order);
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
    const std::uint32_t* halo = halo_slot_.empty() ? nullptr : halo_slot_.data();
    float acceleration_max2 = 0.0f, mu_max = 0.0f;
#pragma omp parallel for schedule(static, 64) reduction(max : acceleration_max2, mu_max)
    for (std::int64_t i = 0; i < n; ++i) {
        if (halo && halo[i] != no_slot) { // its owner computes them
            acceleration_[i] = Vec<D>{};
            density_rate_[i] = 0.0f;
            continue;
        }
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
        if (comm_)
            distribute();
        rebuild(false);
        interact();
        set_time_step();
        {
            StageClock clock(stage_seconds_[integration]);
            const float dt = static_cast<float>(dt_);
            const IntegratorArrays<D> a = integrator_arrays();
            const std::int64_t n = active_;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
            for (std::int64_t i = 0; i < n; ++i)
                symplectic_predict(a, static_cast<std::uint32_t>(i), dt, rho0);
        }
        if (comm_)
            refresh_halo();
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
        if (comm_)
            distribute();
        rebuild(true);
        interact();
        set_time_step();
        StageClock clock(stage_seconds_[integration]);
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
    if (comm_ && balance_interval_ > 0 &&
        steps_ % static_cast<std::uint64_t>(balance_interval_) == 0)
        balance();
}

template <int D>
void CpuSimulation<D>::balance() {
    StageClock clock(stage_seconds_[waiting]);
    const std::vector<double> seconds =
        work_since_balance(*comm_, step_work_seconds(stage_seconds_), balanced_seconds_);
    // The estimated work per bin column along the axis (interaction_weights of the particles
    // each process owns; its halo completes their neighbourhoods), over every process.
    std::vector<double> work_per_bin(static_cast<std::size_t>(bin_columns(slabs_)), 0.0);
    const std::vector<Vec<D>> active(position_.begin(), position_.begin() + active_);
    const std::vector<float> weight = interaction_weights<D>(active, work_grid_);
    for (std::uint32_t i = 0; i < active_; ++i) {
        if (is_halo(i))
            continue;
        const double c =
            std::floor((position_[i][slabs_.axis] - slabs_.faces.front()) / slabs_.bin);
        work_per_bin[static_cast<std::size_t>(
            std::clamp(c, 0.0, double(work_per_bin.size() - 1)))] += weight[i];
    }
    comm_->sum(work_per_bin.data(), static_cast<int>(work_per_bin.size()));
    SlabDecomposition moved = rebalanced_slabs(slabs_, seconds, work_per_bin, balance_tolerance);
    if (moved.faces == slabs_.faces)
        return;
    moved.history.emplace_back(steps_, moved.faces);
    slabs_ = std::move(moved);
}

template <int D>
template <class F>
void CpuSimulation<D>::for_each_array(F&& f) {
    f(position_);
    f(velocity_);
    f(previous_position_);
    f(previous_velocity_);
    f(density_);
    f(previous_density_);
    f(type_);
    f(id_);
    f(halo_slot_);
    f(send_slot_);
    f(pressure_);
    f(density_rate_);
    f(acceleration_);
}

template <int D>
void CpuSimulation<D>::pack(std::uint32_t i, ByteWriter& out) const {
    out.put(position_[i]);
    out.put(velocity_[i]);
    out.put(density_[i]);
    out.put(type_[i]);
    out.put(id_[i]);
    out.put(previous_velocity_[i]);
    out.put(previous_density_[i]);
}

template <int D>
void CpuSimulation<D>::append_particles(const std::vector<std::byte>& message, bool halo,
                                        std::uint32_t first_slot) {
    ByteReader in(message);
    std::uint32_t slot = first_slot;
    while (!in.done()) {
        const Vec<D> x = in.get<Vec<D>>();
        position_.push_back(x);
        velocity_.push_back(in.get<Vec<D>>());
        density_.push_back(in.get<float>());
        type_.push_back(in.get<ParticleType>());
        id_.push_back(in.get<std::uint32_t>());
        previous_velocity_.push_back(in.get<Vec<D>>());
        previous_density_.push_back(in.get<float>());
        if (!previous_position_.empty())
            previous_position_.push_back(x); // the predictor sets it before it is read
        halo_slot_.push_back(halo ? slot++ : no_slot);
        send_slot_.push_back(no_slot);
    }
    pressure_.resize(size());
    density_rate_.resize(size());
    acceleration_.resize(size());
}

template <int D>
void CpuSimulation<D>::insert_before_excluded(std::uint32_t from) {
    const std::uint32_t added = size() - from;
    for_each_array([&](auto& a) {
        if (!a.empty())
            std::rotate(a.begin() + active_, a.begin() + from, a.end());
    });
    active_ += added;
}

template <int D>
void CpuSimulation<D>::distribute() {
    std::optional<StageClock> clock(std::in_place, stage_seconds_[migration]);
    const int rank = comm_->rank();
    const double lower = slabs_.lower(rank), upper = slabs_.upper(rank);
    const int axis = slabs_.axis;
    // 1. The halo goes; the owned particles that left the slab (and not the domain) go to the
    // neighbour whose slab they entered (a move per step is far below a slab's width).
    std::vector<std::byte> to_below, to_above, from_below, from_above;
    ByteWriter below(to_below), above(to_above);
    std::vector<std::uint32_t> kept;
    kept.reserve(size());
    std::uint32_t kept_active = 0;
    for (std::uint32_t i = 0; i < size(); ++i) {
        if (is_halo(i))
            continue;
        if (i < active_ && grid_.contains(position_[i])) {
            const double x = position_[i][axis];
            if (x < lower) {
                pack(i, below);
                continue;
            }
            if (x >= upper) {
                pack(i, above);
                continue;
            }
        }
        kept.push_back(i);
        kept_active += i < active_ ? 1 : 0;
    }
    gather(position_, scratch_vec_, kept);
    gather_state(kept, true);
    pressure_.resize(size());
    density_rate_.resize(size());
    acceleration_.resize(size());
    active_ = kept_active;
    comm_->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    std::uint32_t first = size();
    append_particles(from_below, false, 0);
    append_particles(from_above, false, 0);
    insert_before_excluded(first);

    clock.emplace(stage_seconds_[halo]);
    // 2. The halo: owned particles within halo_width of a face, to the neighbour beyond it
    // (slabs are at least two halo widths wide, so none goes both ways).
    to_below.clear();
    to_above.clear();
    std::fill(send_slot_.begin(), send_slot_.end(), no_slot);
    const double width = slabs_.halo_width;
    sent_below_ = sent_above_ = 0;
    for (std::uint32_t i = 0; i < active_; ++i)
        if (rank > 0 && grid_.contains(position_[i]) && position_[i][axis] < lower + width) {
            send_slot_[i] = sent_below_++;
            pack(i, below);
        }
    for (std::uint32_t i = 0; i < active_; ++i)
        if (rank + 1 < comm_->size() && send_slot_[i] == no_slot && grid_.contains(position_[i]) &&
            position_[i][axis] >= upper - width) {
            send_slot_[i] = sent_below_ + sent_above_++;
            pack(i, above);
        }
    comm_->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    first = size();
    append_particles(from_below, true, 0);
    received_below_ = size() - first;
    append_particles(from_above, true, received_below_);
    received_above_ = size() - first - received_below_;
    insert_before_excluded(first);
}

template <int D>
void CpuSimulation<D>::index_slots() {
    halo_index_.assign(received_below_ + received_above_, no_slot);
    send_index_.assign(sent_below_ + sent_above_, no_slot);
    for (std::uint32_t i = 0; i < size(); ++i) {
        if (halo_slot_[i] != no_slot)
            halo_index_[halo_slot_[i]] = i;
        if (send_slot_[i] != no_slot)
            send_index_[send_slot_[i]] = i;
    }
}

template <int D>
void CpuSimulation<D>::refresh_halo() {
    StageClock clock(stage_seconds_[halo]);
    std::vector<std::byte> to_below, to_above, from_below, from_above;
    ByteWriter below(to_below), above(to_above);
    for (std::uint32_t slot = 0; slot < send_index_.size(); ++slot) {
        const std::uint32_t i = send_index_[slot];
        ByteWriter& out = slot < sent_below_ ? below : above;
        out.put(position_[i]);
        out.put(velocity_[i]);
        out.put(density_[i]);
    }
    comm_->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    ByteReader from[2] = {ByteReader(from_below), ByteReader(from_above)};
    for (std::uint32_t slot = 0; slot < halo_index_.size(); ++slot) {
        const std::uint32_t i = halo_index_[slot];
        ByteReader& in = from[slot < received_below_ ? 0 : 1];
        position_[i] = in.get<Vec<D>>();
        velocity_[i] = in.get<Vec<D>>();
        density_[i] = in.get<float>();
    }
    if (!from[0].done() || !from[1].done())
        throw std::logic_error("halo refresh: a neighbour sent more particles than its halo");
}

template <int D>
void CpuSimulation<D>::set_time_step() {
    double maxima[2] = {acceleration_max_, mu_max_};
    if (comm_) {
        StageClock clock(stage_seconds_[waiting]);
        comm_->max(maxima, 2);
    }
    acceleration_max_ = static_cast<float>(maxima[0]);
    mu_max_ = static_cast<float>(maxima[1]);
    dt_ = time_step(fluid_, cfl_, maxima[0], maxima[1]);
}

template <int D>
void CpuSimulation<D>::check() {
    std::optional<StageClock> clock(std::in_place, stage_seconds_[checks]);
    const std::int64_t n = size();
    auto bad = [&](std::int64_t k) {
        return !is_halo(static_cast<std::uint32_t>(k)) &&
               (!finite(position_[k]) || !finite(velocity_[k]) || !std::isfinite(density_[k]) ||
                density_[k] < density_min_ || density_[k] > density_max_);
    };
    std::int64_t bad_count = 0;
    float speed2 = 0.0f;
#pragma omp parallel for schedule(static) reduction(+ : bad_count) reduction(max : speed2) if (n >= parallel_threshold)
    for (std::int64_t k = 0; k < n; ++k) {
        bad_count += bad(k) ? 1 : 0;
        if (comm_ && k < active_ && type_[k] == ParticleType::fluid)
            speed2 = std::max(speed2, norm2(velocity_[k]));
    }
    std::string message;
    if (bad_count > 0) {
        std::vector<Offender<D>> offenders;
        for (std::int64_t k = 0; k < n; ++k)
            if (bad(k))
                offenders.push_back({id_[k], type_[k], density_[k], position_[k], velocity_[k]});
        message = failure_message(steps_, time_, static_cast<std::size_t>(bad_count), density_min_,
                                  density_max_, offenders);
    }
    if (!comm_) {
        if (bad_count > 0)
            throw SimulationFailure(message);
        return;
    }
    clock.emplace(stage_seconds_[waiting]); // the rest waits for the other processes
    // Every rank learns of a failure on any, and the step's largest move must stay within what
    // the halo allows (slabs.h): |Δx| ≤ dt·max(|v_n|, |v_n+1|) + dt²·|a|max.
    double totals[2] = {static_cast<double>(bad_count), 0.0};
    double speeds[1] = {std::sqrt(static_cast<double>(speed2))};
    comm_->sum(totals, 1);
    comm_->max(speeds, 1);
    if (totals[0] > 0) {
        std::string all;
        const std::vector<std::vector<std::byte>> each = comm_->all_gather(std::vector<std::byte>(
            reinterpret_cast<const std::byte*>(message.data()),
            reinterpret_cast<const std::byte*>(message.data()) + message.size()));
        for (std::size_t r = 0; r < each.size(); ++r)
            if (!each[r].empty())
                all += (all.empty() ? "" : "\n") + std::string("[process ") + std::to_string(r) +
                       "] " +
                       std::string(reinterpret_cast<const char*>(each[r].data()), each[r].size());
        throw SimulationFailure(all);
    }
    if (const std::string why = move_beyond_halo(slabs_, steps_, time_, dt_, speeds[0],
                                                 largest_speed_, acceleration_max_);
        !why.empty())
        throw SimulationFailure(why);
}

template <int D>
void CpuSimulation<D>::record_exclusions() {
    if (!comm_) {
        exclusions_.record(
            size() - active_, id_.data() + active_,
            [&](std::uint32_t k) { return to_array3(position_[active_ + k]); }, steps_, time_);
        return;
    }
    std::vector<std::uint32_t> ids, index; // owned ones only: a halo copy's owner records it
    for (std::uint32_t k = active_; k < size(); ++k)
        if (!is_halo(k)) {
            ids.push_back(id_[k]);
            index.push_back(k);
        }
    exclusions_.record(
        static_cast<std::uint32_t>(ids.size()), ids.data(),
        [&](std::uint32_t k) { return to_array3(position_[index[k]]); }, steps_, time_);
}

template <int D>
std::vector<Exclusion> CpuSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CpuSimulation<D>::counts() const {
    ParticleCounts counts;
    if (comm_) { // this rank's own particles
        for (std::uint32_t k = 0; k < size(); ++k) {
            if (is_halo(k))
                continue;
            if (k >= active_)
                ++counts.excluded;
            else if (type_[k] == ParticleType::fluid)
                ++counts.fluid;
            else
                ++counts.boundary;
        }
        return counts;
    }
    counts.boundary = boundary_count_;
    counts.fluid = active_ - boundary_count_; // boundary particles never leave the domain
    counts.excluded = size() - active_;
    return counts;
}

template <int D>
Snapshot CpuSimulation<D>::snapshot() const {
    // Bin-order index of each id among the active particles (excluded ones left out).
    constexpr std::uint32_t none = ~0u;
    std::vector<std::uint32_t> slot(total_particles_, none);
    for (std::uint32_t k = 0; k < active_; ++k)
        if (!is_halo(k))
            slot[id_[k]] = k;
    Snapshot s;
    s.dimension = D;
    s.time = time_;
    s.step = steps_;
    s.dt = dt_;
    s.id.reserve(active_);
    for (std::uint32_t id = 0; id < total_particles_; ++id) {
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
    return make_cpu_simulation(c, generate_particles(c));
}

std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const ParticleSet& particles) {
    const SimulationState state = initial_state(particles);
    if (c.dimension == 2)
        return std::make_unique<CpuSimulation<2>>(c, particles.constants, state, false);
    return std::make_unique<CpuSimulation<3>>(c, particles.constants, state, false);
}

std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const Communicator& comm) {
    const ParticleSet particles = generate_particles(c);
    SlabStart start = initial_slab(c, particles, comm);
    if (c.dimension == 2)
        return std::make_unique<CpuSimulation<2>>(c, particles.constants, start.state, false, &comm,
                                                  std::move(start.slabs), start.total_particles);
    return std::make_unique<CpuSimulation<3>>(c, particles.constants, start.state, false, &comm,
                                              std::move(start.slabs), start.total_particles);
}

std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const Communicator& comm,
                                                const SimulationState& piece,
                                                const SlabDecomposition& slabs,
                                                std::uint64_t total_particles) {
    SlabResume resume = resume_slab(c, piece, slabs);
    if (c.dimension == 2)
        return std::make_unique<CpuSimulation<2>>(c, resume.derived, piece, true, &comm,
                                                  std::move(resume.slabs), total_particles);
    return std::make_unique<CpuSimulation<3>>(c, resume.derived, piece, true, &comm,
                                              std::move(resume.slabs), total_particles);
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
