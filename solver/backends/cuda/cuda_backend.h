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
/// The particle layout is packed_particles.h's. Files: cuda_simulation.cu (set-up and the step
/// plan's executor), a file per pass with its kernels beside it (construction, interaction,
/// integration, exchange, checks: step_plan.h's table), outputs.cu (snapshots, states, gauges),
/// snapshot_pool.cuh (asynchronous snapshots), neighbours/device_memory.cuh (arrays),
/// cuda_device.cu (device queries). For tests and benchmarks; app/ uses simulation.h.
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

/// A Simulation on the GPU, with what benchmarks and tests need beyond the common interface.
class GpuSimulation : public Simulation {
public:
    /// Number of neighbours (|x_i − x_j| < 2h, i itself included) of every particle of the
    /// current state, indexed by id, found by this simulation's neighbour module inside the
    /// solver; 0 for excluded particles. Diagnostic (allocates).
    virtual std::vector<std::uint32_t> neighbour_counts() = 0;
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

/// This process's part of a run over several GPUs (make_simulation with a communicator, which
/// says what it throws). Collective.
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const CudaOptions& options = {});

/// The same, continued from this process's checkpoint (axis and faces of `slabs`).
std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const SimulationState& piece,
                                                    const SlabDecomposition& slabs,
                                                    std::uint64_t total_particles,
                                                    const CudaOptions& options = {});

} // namespace sluice
