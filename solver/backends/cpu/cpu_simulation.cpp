// The OpenMP CPU backend (cpu_backend.h): CpuSimulation, which holds the step plan
// (step_plan.h) and the state (cpu_state.h) and runs the plan's passes in order, one pass
// function each (cpu_passes.h); and the factories make_cpu_simulation.

#include "backends/cpu/cpu_backend.h"

#include "backends/cpu/cpu_passes.h"
#include "case/constants.h"
#include "case/ghost_offsets.h"
#include "case/particles.h"
#include "case/state_conversion.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <variant>

namespace sluice {

namespace {

using namespace cpu;

/// Runs one step's passes on the state, one overload per pass type (a pass the plan gains and
/// this backend lacks does not compile).
///
/// The integrator's previous_* arrays are gathered by every Construction but the symplectic
/// predictor's: before the predictor they hold nothing the step reads (symplectic_predict writes
/// them), so the first Construction of a symplectic step leaves them in the old order; the
/// corrector's Construction (after Integration{predict}, index layouts) and Verlet's must carry
/// them along.
template <int D>
struct StepExecutor {
    const StepPlan<D>& plan;
    CpuState<D>& s;
    bool predicted = false; ///< Integration{predict} has run this step

    void operator()(pass::Exchange) { distribute(plan, s); }
    void operator()(pass::Construction) { construct(plan, s, !plan.symplectic() || predicted); }
    void operator()(pass::BoundaryCondition) { apply_boundary_condition(plan, s); }
    void operator()(pass::ReuseStructure) { reuse_structure(s); }
    void operator()(pass::Interaction p) { interact(plan, s, p.role); }
    void operator()(pass::BodyLoads) { sum_body_loads(plan, s); }
    void operator()(pass::TimeStep) { set_time_step(plan, s); }
    void operator()(pass::Integration p) {
        integrate(plan, s, p.stage);
        predicted = predicted || p.stage == IntegrationStage::predict;
    }
    void operator()(pass::Motion p) { move_walls(plan, s, p.stage); }
    void operator()(pass::Damping) { damp(plan, s); }
    void operator()(pass::HaloRefresh) { refresh_halo(s); } // on_build: the same arrays
    void operator()(pass::Checks) { finish_step(plan, s); }
    void operator()(pass::Balance) { balance(plan, s); }
};

/// WCSPH on the CPU: OpenMP over particles, deterministic for any thread count. The state and
/// its layouts are CpuState's (cpu_state.h). Several processes (DESIGN.md, Scale-out; a
/// communicator given): each step begins with an exchange (halo dropped, particles that crossed
/// a face migrate, a new halo is received); the halo is refreshed from its owners before every
/// later interaction pass.
template <int D>
class CpuSimulation final : public Simulation {
public:
    /// From a state: the initial one (restored = false: every particle must lie in the domain)
    /// or a checkpoint's (its excluded particles stay excluded and unreported). With `comm`,
    /// `state` holds this rank's slab of a run of `total_particles` particles (ids global).
    CpuSimulation(const Case& c, const DerivedConstants& derived, const SimulationState& state,
                  bool restored, const Communicator* comm = nullptr, SlabDecomposition slabs = {},
                  std::uint64_t total_particles = 0);

    void step() override {
        StepExecutor<D> run{plan_, s_};
        for (const StepPass& p : plan_.passes)
            std::visit(run, p);
    }
    double time() const override { return s_.time; }
    std::uint64_t steps() const override { return s_.steps; }
    double last_dt() const override { return s_.dt; }
    ParticleCounts counts() const override { return cpu::counts(s_); }
    Snapshot snapshot() const override { return cpu::snapshot(plan_, s_); }
    StageTimes stage_times() const override {
        return named_stage_times(s_.stage_seconds, s_.gauge_seconds);
    }
    const DerivedConstants& constants() const override { return derived_; }
    std::optional<SlabDecomposition> decomposition() const override {
        if (!s_.comm)
            return std::nullopt;
        return s_.slabs;
    }
    std::string backend_name() const override { return "cpu"; }
    std::vector<Exclusion> take_exclusions() override { return s_.exclusions.take(); }
    SimulationState save_state() const override { return cpu::save_state(plan_, s_); }
    /// With several processes: collective (the halo is refreshed first).
    GaugeResponse sample_gauges(const GaugeRequest& request) override {
        return cpu::sample_gauges(plan_, s_, request);
    }
    std::vector<float> sample_fraction_grid(const FractionGrid& grid) override {
        return cpu::sample_fraction_grid(plan_, s_, grid);
    }

private:
    /// The particle arrays from `state`, the integrator's previous_* where it uses them.
    void load(const SimulationState& state);

    DerivedConstants derived_;
    StepPlan<D> plan_;
    CpuState<D> s_;
};

template <int D>
CpuSimulation<D>::CpuSimulation(const Case& c, const DerivedConstants& derived,
                                const SimulationState& state, bool restored,
                                const Communicator* comm, SlabDecomposition slabs,
                                std::uint64_t total_particles)
    : derived_(derived),
      plan_(make_step_plan<D>(c, derived_,
                              PlanRequest{CorrectorNeighbours::reuse, false, comm != nullptr})),
      s_(plan_.construction) {
    s_.boundary_count = static_cast<std::uint32_t>(
        std::count(state.type.begin(), state.type.end(), ParticleType::boundary));
    s_.fluid_height = state.fluid_height;
    s_.time = state.time;
    s_.dt = state.last_dt;
    s_.steps = state.steps;
    s_.comm = comm;
    s_.slabs = std::move(slabs);
    s_.total_particles = comm ? total_particles : state.size();
    if (plan_.modified_walls())
        s_.ghost_offset = ghost_offsets<D>(c, derived_.support);
    load(state);
    if (plan_.moving_walls) { // the walls where their motion has them now (a restart's time too)
        s_.motion = run_motion_tables(c);
        std::vector<ObjectIds> objects;
        const std::vector<Eigen::Vector3d> reference = boundary_positions(c, &objects);
        s_.walls = moving_wall_tables<D>(s_.motion, reference, objects);
        s_.object_state.resize(s_.motion.objects());
        s_.object_motion.resize(s_.motion.objects());
        if (plan_.floating) { // the bodies where their (initial or saved) states have them
            s_.bodies = make_body_tables(c, reference, objects);
            s_.body_state = starting_body_states(s_.bodies, state);
            s_.body_loads.assign(s_.bodies.bodies.size(), BodyLoads{});
            publish_bodies(s_);
        }
        evaluate_motion(s_, s_.time);
        place_walls(s_, true);
    }
    s_.exclusions = ExclusionLog(s_.total_particles);
    s_.exclusions.mark_reported(state.excluded);
    if (comm) {
        s_.halo_slot.assign(state.size(), no_slot);
        s_.send_slot.assign(state.size(), no_slot);
        s_.work_grid = work_grid<D>(c, derived_.support);
    }

    // The state's order is kept by a build on unchanged positions (the CPU constructions are
    // stable), so a restored state continues in exactly the order it was saved in.
    construct(plan_, s_, true);
    const std::uint64_t outside_here = std::uint64_t{s_.size() - s_.active};
    const std::uint64_t outside = comm ? comm->sum(outside_here) : outside_here;
    if (!restored && outside > 0) {
        std::ostringstream msg;
        msg << outside << " particle(s) lie outside the domain at t = 0";
        if (s_.active != s_.size())
            msg << ", e.g. id " << s_.id[s_.active] << " at " << describe(s_.position[s_.active])
                << " m";
        msg << "; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }
    if (comm) { // a halo from the start: gauges sampled before the first step need it
        distribute(plan_, s_);
        construct(plan_, s_, true);
    }
}

template <int D>
void CpuSimulation<D>::load(const SimulationState& state) {
    const std::size_t n = state.size();
    s_.position.resize(n);
    s_.velocity.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s_.position[i] = from_array3<D>(state.position[i]);
        s_.velocity[i] = from_array3<D>(state.velocity[i]);
    }
    s_.density = state.density;
    s_.type = state.type;
    s_.id = state.id;
    if (plan_.symplectic()) // Verlet needs no previous position
        s_.previous_position = s_.position;
    // Verlet's step n−1: saved, or at t = 0 the initial state itself.
    if (plan_.integrator == IntegratorKind::verlet && !state.previous_velocity.empty()) {
        s_.previous_velocity.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            s_.previous_velocity[i] = from_array3<D>(state.previous_velocity[i]);
        s_.previous_density = state.previous_density;
    } else {
        s_.previous_velocity = s_.velocity;
        s_.previous_density = s_.density;
    }
    s_.pressure.resize(n);
    s_.density_rate.resize(n);
    s_.acceleration.resize(n);
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
