#pragma once
/// \file backend_options.h
/// What app/ may know of the backends besides the Simulation interface (simulation.h), in plain
/// C++ for every build: which backend runs and with which settings, the memory each will need
/// (for the pre-flight check), the neighbour grid over a case's domain, and the CUDA device
/// queries. Implemented in backends/ (step_plan.cpp, cpu/, cuda/); in a build without CUDA the
/// device queries answer "none" (cuda/cuda_backend_unavailable.cpp).

#include "case/case_model.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice {

enum class Backend { cpu, cuda };

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
/// Simulation::counters().device_bytes after the first snapshot (H100: −0.3 % counting sort, +3.7 %
/// radix sort; tests/solver/backends/cuda/test_cuda_backend.cpp).
struct CudaMemoryEstimate {
    double bytes_per_particle = 0.0;
    /// Host bytes per particle the CUDA backend holds beside the device's: upload staging
    /// (position, motion, velocity, id) and two pinned snapshot slots (position, motion, id).
    double host_bytes_per_particle = 0.0;
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
    /// against 1.638 ms per interaction, t = 0 1.244 against 1.082 (git show
    /// 54605da:solver/BENCHMARK.md, "The developed flow's idle lanes").
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

/// CudaOptions::list_skin and list_max_age's defaults (solver/BENCHMARK.md: "The step as it runs
/// now", and "Tried and not kept" for other skins).
constexpr float default_list_skin = 0.1f;
constexpr std::uint32_t default_list_max_age = 10;

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
    /// Kept lists (with `lists`; one GPU or several, whose halo is then the skin wider): the
    /// build pass lists every candidate within R + list_skin · R, and the lists (with the structure
    /// and the particles' order) serve the following steps' passes too, both predictor and
    /// corrector, while no two particles can have closed that skin: the host builds again when the
    /// next step could use it up (twice the largest move in space since the build plus the next
    /// step's dt_max · (largest speed + largest acceleration · dt_max), with a margin), and a pass
    /// that finds it used up all the same walks the structure (exact either way). 0: the lists
    /// serve the corrector of their own step only, with the reach of `lists`, and every step
    /// builds.
    float list_skin = default_list_skin;
    /// Kept lists: a build serves at most this many steps (the order of the arrays ages too).
    std::uint32_t list_max_age = default_list_max_age;
    /// Tests, one process: keep the lists for list_max_age steps whatever the moves and walks,
    /// so that the passes find the skin used up and walk (over several GPUs the halo holds
    /// the skin only while it lasts, so the host's test always runs there).
    bool keep_lists_unchecked = false;
};

/// Entries per particle of the neighbour lists (CorrectorNeighbours::lists) for case c and
/// kept lists of skin `list_skin` (CudaOptions::list_skin, 0: none): a quarter more than a ball
/// of radius R + max(R/32, list_skin · R) holds at the particle spacing dp, rounded up to a
/// multiple of 8 (3D, h = 1.3 dp: 104 entries without kept lists, 128 with the default skin;
/// 4 bytes each).
std::uint32_t corrector_list_capacity(const Case& c, float list_skin = 0.0f);

/// Memory the CPU backend needs for a case (what `sluice check` prints).
struct MemoryEstimate {
    std::uint64_t bytes_per_particle = 0; ///< state, integrator copies, derivatives, gather
                                          ///< scratch and neighbour-builder buffers
    std::uint64_t particle_bytes = 0;     ///< bytes_per_particle × particles
    std::uint64_t bins = 0;               ///< bins of the grid over the domain
    std::uint64_t grid_bytes = 0;         ///< the PBM and the builder's bin counters
    std::uint64_t total() const { return particle_bytes + grid_bytes; }
};

/// Estimates the CPU backend's memory for `particles` particles of case c (the count comes from
/// generate_particles). Excludes the one-off generation buffers (about 30 bytes per particle).
/// \throws std::invalid_argument when the grid is invalid, as make_grid.
MemoryEstimate estimate_cpu_memory(const Case& c, std::uint64_t particles);

/// Which backend runs a simulation, and its settings. Implicit from a Backend (the defaults).
struct BackendOptions {
    BackendOptions() = default;
    BackendOptions(Backend b) : backend(b) {} // NOLINT(google-explicit-constructor): a default
    Backend backend = Backend::cpu;
    CudaOptions cuda; ///< read by the CUDA backend only
};

/// The neighbour grid over a case's domain (the step plan's; what `sluice check` prints).
struct GridSummary {
    int dimension = 3;
    std::array<std::uint32_t, 3> dims{}; ///< bins per axis (2D: x, z; the third is 1)
    std::uint64_t bins = 0;
    double bin_size = 0.0; ///< m: binWidth × the search radius 2h
};
GridSummary neighbour_grid(const Case& c);

/// Counters of a running simulation for benchmarks and tests (Simulation::counters); the CPU
/// backend has none of these and reports zeros.
struct BackendCounters {
    /// Device memory the simulation holds (its arrays, its neighbour builder's, snapshot
    /// staging), bytes.
    std::size_t device_bytes = 0;
    /// Device allocations so far: constant once set up (a step never allocates).
    std::uint64_t device_allocations = 0;
    /// Wall particles the last build pass found dry and still certified so
    /// (CudaOptions::skip_dry_walls).
    std::uint32_t dry_walls = 0;
    /// Steps whose interaction passes ran in step (CudaInteraction::in_step or adaptive's).
    std::uint64_t in_step_steps = 0;
    /// Steps whose passes read the neighbour lists (none of them walked instead).
    std::uint64_t corrector_list_steps = 0;
    /// Steps that ran on the lists and structure of an earlier step's build (kept lists).
    std::uint64_t kept_list_steps = 0;
    /// Steps in which a pass (one or both) found the kept lists' skin used up and walked the
    /// structure instead (StepScalars::lists_walked is one flag per step).
    std::uint64_t list_walks = 0;
    /// mDBC ghost nodes summed over their kept lists instead of a walk, over every step (one
    /// process's; GhostNodeLists, CUDA backend).
    std::uint64_t ghost_node_list_reads = 0;
};

} // namespace sluice
