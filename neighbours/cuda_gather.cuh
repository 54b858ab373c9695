#pragma once
/// \file cuda_gather.cuh
/// Reorder particle arrays into bin order: out[k] = in[permutation[k]] for several arrays in one
/// kernel, so the permutation is read once per particle however many arrays a solver carries.
/// CUDA only (include from .cu files).

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace sluice {

/// One array to reorder: out[k] = in[permutation[k]]. in and out are device pointers to distinct,
/// non-overlapping arrays (a gather cannot run in place). A pair whose `in` is null is skipped:
/// an array a solver carries only in some runs (`out` is then not touched and may be null too).
template <class T>
struct GatherPair {
    const T* in;
    T* out;
};

namespace detail {

template <class... T>
__global__ void __launch_bounds__(256) gather_kernel(const std::uint32_t* __restrict__ permutation,
                                                     std::uint32_t n, GatherPair<T>... pairs) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const std::uint32_t from = permutation[k];
    ((pairs.in != nullptr ? void(pairs.out[k] = pairs.in[from]) : void()), ...);
}

} // namespace detail

/// Enqueues out[k] = in[d_permutation[k]], k < n, for every pair whose `in` is not null, on
/// stream (one launch).
/// d_permutation comes from CudaNeighbourBuilder::d_permutation().
/// \throws CudaError if the launch fails.
template <class... T>
void gather(cudaStream_t stream, const std::uint32_t* d_permutation, std::uint32_t n,
            GatherPair<T>... pairs) {
    static_assert(sizeof...(T) > 0, "gather needs at least one array");
    if (n == 0)
        return;
    const unsigned blocks = (n + 255u) / 256u;
    detail::gather_kernel<T...><<<blocks, 256, 0, stream>>>(d_permutation, n, pairs...);
    SLUICE_CUDA_CHECK_LAUNCH();
}

} // namespace sluice
