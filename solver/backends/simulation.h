#pragma once
/// \file simulation.h
/// The backend-independent face of a running simulation: what app/ may call (with
/// backend_options.h for the settings and device queries). The CPU backend (cpu/) and the CUDA
/// backend (cuda/) implement it, each executing the step plan (step_plan.h). Virtual calls
/// happen on the host only, once per step at most.

#include "backends/backend_options.h"
#include "case/case_model.h"
#include "case/constants.h"
#include "case/particles.h"
#include "io/checkpoint.h"
#include "io/gauge_samples.h"
#include "io/snapshot.h"
#include "parallel/slabs.h"

#include <array>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {

/// Thrown by step() when the state became non-physical (NaN, density outside the configured
/// range). The message names the step, the time and the offending particle(s) by id. The state
/// the failure was detected in stays readable through snapshot().
class SimulationFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Thrown by make_simulation when the chosen backend cannot run here: cuda in a build without
/// CUDA, or with no CUDA device present. The message says which; the CLI maps it to exit code 2.
class BackendUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A particle that left the domain. The first neighbour-structure build that finds it outside
/// excludes it: from then on it is frozen, invisible to every neighbour query, left out of
/// snapshots and counted in ParticleCounts::excluded. It is fluid but for a wall particle whose
/// object left the domain (the reader refuses a prescribed motion that leaves it; the type is
/// kept so that such a loss is reported apart from the fluid's, app/particle_losses.h).
struct Exclusion {
    std::uint32_t id = 0;
    std::uint64_t step = 0;          ///< the step (1-based) during which it was excluded
    double time = 0.0;               ///< s, the time at the end of that step
    std::array<float, 3> position{}; ///< m, where it stays frozen (2D: y = 0)
    ParticleType type = ParticleType::fluid;
};

class Simulation {
public:
    virtual ~Simulation() = default;

    /// Advances one time step (dt from the CFL, force and viscous limits).
    /// \throws SimulationFailure when the new state is non-physical.
    virtual void step() = 0;

    virtual double time() const = 0;         ///< s
    virtual std::uint64_t steps() const = 0; ///< steps taken
    virtual double last_dt() const = 0;      ///< s
    virtual ParticleCounts counts() const = 0;
    virtual Snapshot snapshot() const = 0; ///< copies the state to the host

    /// Starts copying the current state for output and returns without waiting for the copy:
    /// the future's get() (from any thread) waits for it and returns what snapshot() would have
    /// returned now. The simulation may step on meanwhile. The default (CPU backend) takes
    /// snapshot() at once; the CUDA backend copies to pinned host memory on a side stream and
    /// builds the Snapshot in the thread that calls get(). Each pending future holds a copy
    /// slot until get() returns or the future is destroyed; begin_snapshot() waits while every
    /// slot is held (CUDA backend: 2), so a writer that falls behind slows the run down rather
    /// than filling memory. A thread that itself holds two unread futures must read or drop one
    /// before it begins another (BackgroundSnapshotWriter does this for you).
    virtual std::future<Snapshot> begin_snapshot();
    virtual StageTimes stage_times() const = 0;
    /// The whole state, in the backend's internal particle order, for a checkpoint: a
    /// simulation made from it (make_simulation with a state) continues exactly as this one
    /// would on the CPU backend, and within rounding on the CUDA backend (whose atomic
    /// construction orders a bin's particles arbitrarily). Synchronous; copies from the device.
    virtual SimulationState save_state() const = 0;

    /// Gauges on the current state, through the neighbour structure of the step's last pass
    /// (its positions are up to one step older, |v|·dt ≈ 10⁻³ dp, than the fields, which are
    /// the current state's). Computed where the state lives (on the GPU: one kernel and one
    /// small copy per call); synchronous. Allocates only when a request grows.
    virtual GaugeResponse sample_gauges(const GaugeRequest& request) = 0;

    /// The fluid fraction φ (physics/gauges.h: GaugeVisitor's sum, the gauges' own) at the points
    /// [grid.first, grid.first + grid.points) of a regular grid, in its x-fastest order: the
    /// points are generated where the state lives (no upload) and only φ comes back, so a grid of
    /// 10⁷ points costs milliseconds on a GPU. On the current state, through the neighbour
    /// structure of the step's last pass (as sample_gauges). Synchronous.
    /// \throws std::logic_error over several processes (the post-processing commands run one).
    virtual std::vector<float> sample_fraction_grid(const FractionGrid& grid) = 0;

    /// The same, started without waiting: begin_gauges() queues the work behind the current
    /// state (the CUDA backend: kernels and a copy to pinned memory on the simulation's stream)
    /// and returns at once; the future's get() (from any thread) waits for the copy and returns
    /// what sample_gauges() would have returned now, so the stepping thread never waits for a
    /// sample. The simulation may step on meanwhile. Each pending future holds a result slot
    /// until get() returns or the future is destroyed; begin_gauges() waits while every slot is
    /// held (CUDA backend: 4). The default (CPU backend) computes at once.
    virtual std::future<GaugeResponse> begin_gauges(const GaugeRequest& request);

    /// step(), then begin_gauges(request) on the state it ends in, if it ends before `before`
    /// (s); else no sample (the future is not valid()), and the caller samples as the step's
    /// time requires. A run's sample of every step between gauge rows (the averaged wall
    /// sensors): the CUDA backend (kept lists, one GPU) queues it before it waits for the step,
    /// when the step must end before `before`, so that the sample's host work overlaps the step
    /// on the device and its kernels the next step's first passes. The default steps first.
    virtual std::future<GaugeResponse> step_and_sample(const GaugeRequest& request, double before);

    /// A run over several processes: this process's cut of the domain (its slab is
    /// lower(rank)..upper(rank)); nothing for a single process.
    virtual std::optional<SlabDecomposition> decomposition() const { return std::nullopt; }

    virtual const DerivedConstants& constants() const = 0;
    virtual std::string backend_name() const = 0;

    /// The backend's counters (device memory, dry walls, in-step and list steps); zeros where
    /// a backend has none (the CPU backend). Cheap except dry_walls (a copy from the device).
    virtual BackendCounters counters() const { return {}; }

    /// Exclusions since the last call, by ascending id; each is reported exactly once. The CLI
    /// logs them (summary.json has the count from counts()).
    virtual std::vector<Exclusion> take_exclusions() = 0;

    /// Several processes: false when the last step's own reductions showed every process that
    /// none of them has exclusions to report (take_exclusions is empty on every one), so that
    /// the run need not ask the others after each step (the same answer on every process);
    /// true where the backend does not know (the CPU backend, one process).
    virtual bool exclusions_possible_anywhere() const { return true; }
};

/// Generates the particles of the case and sets up the chosen backend.
/// \throws BackendUnavailable when the backend is unavailable (cuda without a GPU or without
///         CUDA support in this build), with a message saying so.
std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& backend);

/// The same from particles already generated for the case (a benchmark reuses one set).
std::unique_ptr<Simulation> make_simulation(const Case& c, const ParticleSet& particles,
                                            const BackendOptions& backend);

class Communicator;

/// This process's part of a run of case c spread over several processes (DESIGN.md,
/// Scale-out; parallel/communicator.h): the slab of the domain it owns, with a halo of its
/// neighbours' particles. Collective. The simulation's step() and sample_gauges() are then
/// collective too; counts(), snapshot(), save_state() and take_exclusions() cover the particles
/// this process owns (their union over the processes is the whole run).
/// The CUDA backend takes the GPU of its host whose index is the process's rank among the host's
/// processes (cuda_device_of_process) and moves particles through NCCL.
/// \throws BackendUnavailable when a process has no GPU of its own or NCCL cannot be loaded,
///         std::invalid_argument when the domain is too short for that many slabs, as
///         make_simulation otherwise.
std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& backend,
                                            const Communicator& comm);

/// Continues this process's part of a run over several processes from its checkpoint: `piece`
/// holds the particles it owned, `slabs` the faces then, `total_particles` the whole run's
/// count. Collective. \throws as make_simulation with a state.
std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& backend,
                                            const Communicator& comm, const SimulationState& piece,
                                            const SlabDecomposition& slabs,
                                            std::uint64_t total_particles);

/// Continues a saved state (a checkpoint's) of case c on the chosen backend.
/// \throws std::invalid_argument when the state does not fit the case (restored_constants),
///         BackendUnavailable as above.
std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& backend,
                                            const SimulationState& state);

} // namespace sluice
