// Device queries of cuda_backend.h: is there a GPU, which, how much memory. Never throw except
// require_cuda_device, whose message says what to do instead.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

namespace sluice {

bool cuda_device_available() {
    return cuda_device_count() > 0;
}

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device/driver" error
        return 0;
    }
    return count;
}

int cuda_device_of_process(int local_rank) {
    const int devices = cuda_device_count();
    if (local_rank < devices)
        return local_rank;
    const char* share = std::getenv("SLUICE_SHARE_GPUS");
    if (devices > 0 && share != nullptr && std::string(share) == "1")
        return local_rank % devices;
    return -1;
}

void require_cuda_device() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device/driver" error
        throw BackendUnavailable(std::string("the CUDA backend is not available: no usable CUDA "
                                             "device (") +
                                 cudaGetErrorString(status) + "); use --backend cpu");
    }
    if (count == 0)
        throw BackendUnavailable(
            "the CUDA backend is not available: no CUDA device found; use --backend cpu");
}

std::string cuda_device_name() {
    if (!cuda_device_available())
        return "";
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return properties.name;
}

CudaMemoryInfo cuda_memory_info() {
    CudaMemoryInfo info;
    if (!cuda_device_available())
        return info;
    if (cudaMemGetInfo(&info.free, &info.total) != cudaSuccess) {
        cudaGetLastError();
        return {};
    }
    return info;
}

} // namespace sluice
