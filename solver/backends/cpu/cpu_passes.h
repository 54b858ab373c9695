#pragma once
/// \file cpu_passes.h
/// The CPU backend's pass functions: what CpuSimulation::step runs for each pass of the plan
/// (step_plan.h's table names their files), and the queries of the state between steps. Each
/// takes the plan and the state (cpu_state.h); all are templates on D, instantiated for 2 and 3
/// in their files. With several processes (state.comm set) the ones marked collective must be
/// called on every rank at once.

#include "backends/cpu/cpu_state.h"
#include "backends/simulation.h"
#include "backends/step_plan.h"
#include "neighbours/query.h"

#include <cstdint>
#include <vector>

namespace sluice::cpu {

// construction.cpp: pass::Construction, pass::ReuseStructure

/// pass::Construction: builds the neighbour structure on the current positions and, in the
/// reorder layout, gathers the particle arrays into its order (index layout: moves the particles
/// that left the domain last); `with_previous` also gathers the integrator's previous_* arrays.
/// Sets state.active; clears state.reused.
template <int D>
void construct(const StepPlan<D>& plan, CpuState<D>& s, bool with_previous);

/// pass::ReuseStructure: the last build's structure over the state's positions, skin = the
/// largest move since the build (reorder layout only).
template <int D>
void reuse_structure(CpuState<D>& s);

/// The view queries take: the last build's, or that build over the state's positions with its
/// skin (state.reused).
template <int D>
AnyNeighbourView<D> current_view(const StepPlan<D>& plan, const CpuState<D>& s);

/// The largest move along any axis of the active particles since the last build (m; reorder).
template <int D>
float largest_move_since_build(const CpuState<D>& s);

/// Every particle array but the positions: a[k] ← a[order[k]]; with_previous: also the
/// integrator's previous_* arrays (those the scheme uses; the others are empty).
template <int D>
void gather_state(CpuState<D>& s, const std::vector<std::uint32_t>& order, bool with_previous);

// boundary_condition.cpp: pass::BoundaryCondition

/// pass::BoundaryCondition (mDBC, physics/mdbc.h): every owned active wall particle with a
/// ghost offset (state.ghost_offset, by id) takes the density and velocity mdbc_particle gives
/// through the current structure.
template <int D>
void apply_boundary_condition(const StepPlan<D>& plan, CpuState<D>& s);

// interaction.cpp: pass::Interaction

/// One interaction pass over the active particles: pressure, acceleration, density_rate,
/// acceleration_max, mu_max, and with shifting (not in the predictor's pass,
/// StepPlan::interaction_constants) shift_velocity. With mDBC (plan.modified_walls()) wall
/// particles take no sums: their density is the BoundaryCondition pass's.
template <int D>
void interact(const StepPlan<D>& plan, CpuState<D>& s, InteractionRole role);

// bodies.cpp: pass::BodyLoads

/// pass::BodyLoads: each floating body's fluid and contact loads at the state the last
/// interaction pass saw, this rank's owned particles' shares summed in particle order, then over
/// every rank (collective); the springs' from the bodies' states.
template <int D>
void sum_body_loads(const StepPlan<D>& plan, CpuState<D>& s);

/// The bodies' states into their objects' motion states (object_state, object_motion) and the
/// walls' speed: after the bodies move, and at set-up.
template <int D>
void publish_bodies(CpuState<D>& s);

// integration.cpp: pass::TimeStep, pass::Integration

/// pass::TimeStep: dt from the last pass's maxima (over every rank; collective).
template <int D>
void set_time_step(const StepPlan<D>& plan, CpuState<D>& s);

/// pass::Integration: the active particles advance by dt. After the corrector over a reused
/// structure the skin is brought up to date (gauges after the step query through it).
template <int D>
void integrate(const StepPlan<D>& plan, CpuState<D>& s, IntegrationStage stage);

// motion.cpp: pass::Motion; damping.cpp: pass::Damping

/// Every object's state at time t (s): state.object_state, object_motion, wall_speed.
template <int D>
void evaluate_motion(CpuState<D>& s, double t);

/// The walls of moving objects at their objects' current states (evaluate_motion): positions,
/// and velocities where `velocity` (DBC; mDBC's is the BoundaryCondition pass's). Every
/// particle, halo copies too (each rank computes the same from the id).
template <int D>
void place_walls(CpuState<D>& s, bool velocity);

/// pass::Motion: the states at t + dt/2 (predict) or t + dt — prescribed ones from their
/// motion, floating bodies integrated over the stage with their last loads — and place_walls.
template <int D>
void move_walls(const StepPlan<D>& plan, CpuState<D>& s, IntegrationStage stage);

/// pass::Damping: each owned active fluid particle's velocity times damping_factor
/// (physics/damping.h) over dt.
template <int D>
void damp(const StepPlan<D>& plan, CpuState<D>& s);

// checks.cpp: pass::Checks

/// pass::Checks: time += dt, ++steps, the failure check (throws SimulationFailure, on every rank
/// at once; collective), the exclusions recorded.
template <int D>
void finish_step(const StepPlan<D>& plan, CpuState<D>& s);

// exchange.cpp: pass::Exchange, pass::HaloRefresh, pass::Balance (all collective)

/// pass::Exchange: drops the halo, migrates the particles outside this slab to its neighbours,
/// takes in theirs, and receives a new halo.
template <int D>
void distribute(const StepPlan<D>& plan, CpuState<D>& s);

/// pass::HaloRefresh: copies the halo's position, velocity and density from their owners.
template <int D>
void refresh_halo(CpuState<D>& s);

/// pass::Balance: every plan.balance_interval steps, moves the slab faces towards equal step
/// times (rebalanced_slabs) from each process's time in the step's own stages since the last
/// balance; the next distribute() migrates the particles.
template <int D>
void balance(const StepPlan<D>& plan, CpuState<D>& s);

/// send_index and halo_index from the per-particle slots (after any reorder).
template <int D>
void index_slots(CpuState<D>& s);

// gauges.cpp, outputs.cpp: the state between steps

/// Simulation::sample_gauges (collective: the halo is refreshed first).
template <int D>
GaugeResponse sample_gauges(const StepPlan<D>& plan, CpuState<D>& s, const GaugeRequest& request);

/// Simulation::sample_fraction_grid. \throws std::logic_error over several processes.
template <int D>
std::vector<float> sample_fraction_grid(const StepPlan<D>& plan, CpuState<D>& s,
                                        const FractionGrid& grid);

template <int D>
Snapshot snapshot(const StepPlan<D>& plan, const CpuState<D>& s);

template <int D>
SimulationState save_state(const StepPlan<D>& plan, const CpuState<D>& s);

template <int D>
ParticleCounts counts(const CpuState<D>& s);

} // namespace sluice::cpu
