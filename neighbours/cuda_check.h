#pragma once
/// \file cuda_check.h
/// Error checking for CUDA runtime calls: every call's return code is checked, and a failure
/// throws with the call, the file and line, and CUDA's message.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace sluice {

/// Thrown for any failed CUDA runtime call or kernel launch.
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const char* what_call, const char* file, int line)
        : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what_call +
                             " failed: " + cudaGetErrorName(code) + " (" +
                             cudaGetErrorString(code) + ")"),
          code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

namespace detail {
inline void cuda_check(cudaError_t code, const char* what_call, const char* file, int line) {
    if (code != cudaSuccess)
        throw CudaError(code, what_call, file, line);
}
} // namespace detail

} // namespace sluice

/// SLUICE_CUDA_CHECK(cudaMemsetAsync(...)): throws sluice::CudaError unless it returns success.
#define SLUICE_CUDA_CHECK(call) ::sluice::detail::cuda_check((call), #call, __FILE__, __LINE__)
/// After a kernel launch: throws if the launch failed (bad configuration, no device, ...).
/// Does not synchronise, so errors raised while the kernel runs surface at the next check.
#define SLUICE_CUDA_CHECK_LAUNCH()                                                                 \
    ::sluice::detail::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
