#pragma once
/// \file nccl_comm.cuh
/// NCCL between the processes of a run over several GPUs (DESIGN.md, Scale-out): particle data
/// device to device between neighbouring slabs, and the step's reductions, on a CUDA stream.
/// MPI (parallel/communicator.h) bootstraps it. NCCL is loaded when first needed (dlopen of
/// libnccl.so.2), so that a single-GPU run needs no NCCL installed.

#include "parallel/communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace sluice::gpu {

class NcclComm {
public:
    /// Collective over `comm`'s ranks; each has chosen its device (cudaSetDevice) before.
    /// \throws BackendUnavailable when libnccl.so.2 cannot be loaded, std::runtime_error when
    ///         NCCL fails (its message).
    explicit NcclComm(const Communicator& comm);
    ~NcclComm();
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;

    /// In place over every rank, on `stream`.
    void max(std::uint32_t* d_values, int count, cudaStream_t stream);
    void sum(std::uint32_t* d_values, int count, cudaStream_t stream);
    void sum(double* d_values, int count, cudaStream_t stream);

    /// Sends `to_lower_bytes` at to_lower to rank − 1 and to_upper's to rank + 1, receives theirs
    /// into from_lower / from_upper (sizes agreed beforehand; zero past the ends), on `stream`.
    void exchange(const void* to_lower, std::size_t to_lower_bytes, const void* to_upper,
                  std::size_t to_upper_bytes, void* from_lower, std::size_t from_lower_bytes,
                  void* from_upper, std::size_t from_upper_bytes, cudaStream_t stream);

private:
    int rank_, size_;
    ncclComm_t comm_ = nullptr;
};

} // namespace sluice::gpu
