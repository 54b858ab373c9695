// cuda_backend.h in a build without CUDA (SLUICE_CUDA=OFF): no device, and a clear error.
// With CUDA, cuda_simulation.cu and cuda_device.cu define these.
#include "backends/cuda/cuda_backend.h"

#if !defined(SLUICE_HAVE_CUDA)

namespace sluice {

namespace {
[[noreturn]] void unavailable() {
    throw BackendUnavailable("the CUDA backend is not available: this build of sluice has no CUDA "
                             "support (configured without nvcc); use --backend cpu");
}
} // namespace

bool cuda_device_available() {
    return false;
}

int cuda_device_count() {
    return 0;
}

int cuda_device_of_process(int) {
    return -1;
}

void require_cuda_device() {
    unavailable();
}

std::string cuda_device_name() {
    return "";
}

CudaMemoryInfo cuda_memory_info() {
    return {};
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case&, const ParticleSet&,
                                                    const CudaOptions&) {
    unavailable();
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case&, const SimulationState&,
                                                    const CudaOptions&) {
    unavailable();
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case&, const CudaOptions&) {
    unavailable();
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case&, const Communicator&,
                                                    const CudaOptions&) {
    unavailable();
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case&, const Communicator&,
                                                    const SimulationState&,
                                                    const SlabDecomposition&, std::uint64_t,
                                                    const CudaOptions&) {
    unavailable();
}

} // namespace sluice

#endif
