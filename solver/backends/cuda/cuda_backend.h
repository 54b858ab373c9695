#pragma once
/// \file cuda_backend.h
/// The CUDA backend: the whole WCSPH time step on the GPU. Plain C++ (no CUDA types), so the CLI,
/// the benchmark and the tests include it in every build; in a build without CUDA
/// (SLUICE_CUDA=OFF) cuda_device_available() is false and make_cuda_simulation throws
/// BackendUnavailable.
///
/// Step (symplectic; Verlet has one pass): the case's neighbour module builds the bin order and
/// PBM on the device (CudaNeighbourBuilder, OutsidePolicy::exclude, grid over Case::domain) before
/// the predictor's pass (a reorder layout's corrector reuses it with a skin, or reads the
/// neighbour lists the predictor's pass wrote: CudaOptions); the particle arrays are gathered into
/// that order; one thread per particle
/// runs the physics.h functions over its neighbours (for_each_neighbour, templated on query and
/// kernel, chosen once per launch); the integration kernels run integrators.h. dt comes from a
/// block-wide CUB reduction of max |a| and max μ fused into the interaction kernel; the failure
/// check is fused into the last integration kernel. Per step, only a small block of scalars
/// (dt, binned particle count, failure count) crosses to the host, and nothing is allocated.
/// The particle layout is packed_particles.h's. Files: cuda_simulation.cu (the step's
/// orchestration), step_kernels.cuh (its kernels), snapshot_pool.cuh (asynchronous snapshots),
/// device_memory.cuh (arrays), cuda_device.cu (device queries).
///
/// Debugging aid: with the environment variable SLUICE_CUDA_TRACE set, every stage of a step is
/// waited for and reported on stderr, so a stage that hangs or fails is named.

#include "backends/simulation.h"
#include "case/case_model.h"
#include "case/particles.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice {

/// True when this build has CUDA and a CUDA device is present (the CLI's default backend then
/// is cuda). Never throws.
bool cuda_device_available();

/// The CUDA devices this process sees (0 without CUDA or a driver).
int cuda_device_count();

/// The GPU of a process of a run over several (Communicator::local_rank: its rank among its
/// host's processes): the device of that index, or −1 where the host has fewer GPUs. With the
/// environment variable SLUICE_SHARE_GPUS=1, processes share the host's GPUs (local rank modulo
/// their count): for testing the decomposition's GPU code on a host with fewer GPUs than
/// processes (tests/mpi/share_gpus), never for speed. Never throws.
int cuda_device_of_process(int local_rank);

/// Returns when a CUDA device is present.
/// \throws BackendUnavailable saying why not (no CUDA in this build, no device, no driver) and
///         what to use instead.
void require_cuda_device();

/// Name of CUDA device 0 (e.g. "NVIDIA H100 80GB HBM3"), or "" without one.
std::string cuda_device_name();

/// Free and total memory of the current CUDA device (bytes); zeros without one.
struct CudaMemoryInfo {
    std::size_t free = 0;
    std::size_t total = 0;
};
CudaMemoryInfo cuda_memory_info();

/// Device memory a CUDA simulation of a case will hold (arrays, neighbour builder, snapshot
/// staging), estimated before it exists for the pre-flight check. Within a few per cent of
/// GpuSimulation::device_bytes() after the first snapshot (H100: −0.3 % counting sort, +3.7 %
/// radix sort; tests/solver/backends/test_cuda_backend.cpp).
struct CudaMemoryEstimate {
    double bytes_per_particle = 0.0;
    double grid_bytes = 0.0;   ///< PBM and bin counters
    double device_bytes = 0.0; ///< bytes_per_particle × particles + grid_bytes
};
CudaMemoryEstimate estimate_cuda_memory(const Case& c, double particles, double bins);

/// How the interaction kernel visits neighbours (all run the same per-pair physics, so results
/// agree to rounding; only speed differs). H100, dambreak3d_1m.xml (10^6 particles, h = 1.3 dp),
/// counting-sort/strips/0.5: direct 1.79 ms per step, queued 2.70 (solver/BENCHMARK.md).
enum class CudaInteraction {
    /// The pair terms run inside the query, per candidate that passes the distance test (a warp
    /// runs them whenever any of its lanes has a neighbour there). The fastest from a lattice
    /// (t = 0), and the only one over several GPUs for now.
    direct,
    /// The query only collects neighbour indices into a per-thread queue in shared memory; the
    /// pair terms then run over the queues with the warp's lanes in step. Fewer idle lanes in
    /// the pair terms, but the queue's shared memory limits occupancy to 16 warps per SM.
    queued,
    /// Direct, but where the traversal takes each row of bins as one range (strips, chords,
    /// hybrid) over a reorder layout, a warp holding fluid queues its lanes' accepted candidates
    /// in shared memory and runs the pair terms once every lane has one
    /// (neighbours/warp_query.cuh): the same terms in the same order as direct, without lanes
    /// idling while another runs a pair term alone. Pays where the particles are disordered (a
    /// developed flow), loses on a lattice: H100, 10^6 particles, strips/1/3: t = 1 s 1.546
    /// against 1.638 ms per interaction, t = 0 1.244 against 1.082 (solver/BENCHMARK.md).
    /// Other traversals and layouts run direct. Over several GPUs halo copies walk with their
    /// warps and query nothing.
    in_step,
    /// Direct or in-step, whichever the run measures faster (the default): where in-step
    /// applies (each GPU for itself), a step after the first 64 and then every 500th runs the
    /// other one, and the run keeps it when its interaction passes took 2 % less than the current
    /// one's recent average (stage timing; without it, direct). A lattice stays direct, a
    /// developed flow turns in-step. Both sum the same terms in the same order, so the choice
    /// changes the state only by rounding.
    adaptive,
};

/// Symplectic scheme: where the corrector's pass finds its neighbours (all three exact).
enum class CorrectorNeighbours {
    /// Reorder layout, a traversal in bin order (strips, chords, moore): the build pass also
    /// lists, per particle, the candidates the predictor can bring within R (those within R +
    /// dt_max/2 · (|v_i| + |v_j|), dt_max = cfl · h / c0 bounding every dt, and a rounding
    /// slack), and the corrector's pass reads those lists instead of walking the structure
    /// again: no row set-ups and about one candidate per neighbour instead of three (strips at
    /// bin width 1/3). The same sums in the same order (step_kernels.cuh, NeighbourLists). Over
    /// several GPUs a halo copy keeps its index between the passes, and the bound takes every
    /// GPU's largest speed. Elsewhere as `reuse`.
    lists,
    /// Reorder layout: the predictor's structure over the predicted positions, the predictor's
    /// largest move as its skin (query.h); saves a construction and a reorder per step.
    reuse,
    /// A construction before the corrector too, as the index layouts always do.
    rebuild,
};

struct CudaOptions {
    CudaInteraction interaction = CudaInteraction::adaptive;
    /// Record CUDA events between the stages of every step for stage_times() (a few µs a step).
    bool stage_timing = true;
    CorrectorNeighbours corrector = CorrectorNeighbours::lists;
    /// Symplectic scheme, reorder layout, the default physics (Monaghan viscosity, Molteni
    /// diffusion), walls at rest, a traversal in bin order: a wall particle with no fluid
    /// particle within R has zero derivatives (walls do not move, so every other pair term
    /// vanishes), and stays so while the fluid has not moved further than its distance to the
    /// nearest fluid particle less R. In the build pass, a warp of wall particles with one whose
    /// certificate ran out looks for fluid up to R + R/3; each found dry gets zero derivatives and
    /// no query until the fluid's accumulated largest move (√3 × the largest move along an axis,
    /// per step) reaches its distance to the nearest fluid less R; a warp whose particles are all
    /// certified skips. Exact: a skipped particle's query would sum +0 (with false the state
    /// differs only by the rounding of the certifying pass's code, tested). Several GPUs: the
    /// margin is 0.9 × (halo_width − R) = 0.1125 R, so that the widened query sees every fluid
    /// particle it must (the halo's), and the moves are the maxima over the GPUs.
    bool skip_dry_walls = true;
    /// Tests: the lists assume dt ≤ this × cfl · h / c0; a step whose dt exceeds it walks the
    /// structure in its corrector's pass (below 1, some or every step does).
    float corrector_list_dt_scale = 1.0f;
    /// Entries per particle; 0: corrector_list_capacity(case). A particle with more candidates
    /// walks the structure in the corrector's pass.
    std::uint32_t corrector_list_entries = 0;
};

/// Entries per particle of the corrector's neighbour lists (CorrectorNeighbours::lists) for
/// case c: a quarter more than a ball of radius R + R/32 holds at the particle spacing dp,
/// rounded up to a multiple of 8 (3D, h = 1.3 dp: 104, 416 bytes per particle).
std::uint32_t corrector_list_capacity(const Case& c);

/// A Simulation on the GPU, with what benchmarks and tests need beyond the common interface.
class GpuSimulation : public Simulation {
public:
    /// Device memory this simulation holds (its arrays and its neighbour builder's), bytes.
    virtual std::size_t device_bytes() const = 0;
    /// Device allocations made so far: constant once the simulation is set up (a step never
    /// allocates).
    virtual std::uint64_t device_allocations() const = 0;
    /// Number of neighbours (|x_i − x_j| < 2h, i itself included) of every particle of the
    /// current state, indexed by id, found by this simulation's neighbour module inside the
    /// solver; 0 for excluded particles. Diagnostic (allocates).
    virtual std::vector<std::uint32_t> neighbour_counts() = 0;
    /// Wall particles that the last build pass found dry and that are still certified so
    /// (CudaOptions::skip_dry_walls; 0 when off). Diagnostic (copies from the device).
    virtual std::uint32_t dry_wall_count() const = 0;
    /// Steps so far whose interaction passes ran in step (CudaInteraction::in_step, or chosen
    /// by adaptive). Diagnostic.
    virtual std::uint64_t in_step_steps() const = 0;
    /// Steps so far whose corrector pass read the build pass's neighbour lists
    /// (CorrectorNeighbours::lists). Diagnostic.
    virtual std::uint64_t corrector_list_steps() const = 0;
};

/// Generates the particles of the case and returns the CUDA simulation at t = 0.
/// \throws BackendUnavailable when the build has no CUDA or no device is present.
/// \throws std::invalid_argument when a particle lies outside the domain at t = 0, or as
///         generate_particles does.
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const CudaOptions& options = {});

/// Continues a saved state of case c (Simulation::save_state, a checkpoint).
/// \throws BackendUnavailable as above; std::invalid_argument when the state does not fit.
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const SimulationState& state,
                                                    const CudaOptions& options = {});

/// As above, from particles already generated for the case (benchmarks reuse one set).
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const ParticleSet& particles,
                                                    const CudaOptions& options = {});

/// This process's part of a run over several GPUs (make_simulation with a communicator): it
/// takes the GPU of its host whose index is its rank among the host's processes, and exchanges
/// particles with its neighbours through NCCL. Collective.
/// 	hrows BackendUnavailable when a process has no GPU of its own or NCCL cannot be loaded.
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const CudaOptions& options = {});

/// The same, continued from this process's checkpoint (axis and faces of `slabs`).
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const SimulationState& piece,
                                                    const SlabDecomposition& slabs,
                                                    std::uint64_t total_particles,
                                                    const CudaOptions& options = {});

} // namespace sluice
