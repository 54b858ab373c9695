#pragma once
/// \file device_memory.cuh
/// Device and pinned host arrays that free themselves and count what they hold, and blocking
/// upload/download helpers. The CUDA backend allocates everything once, at set-up; the
/// neighbour benchmark (neighbours/bench) once per data set. In neighbours/, the lowest layer, so
/// that both can use them; the names stay in sluice::gpu, where the CUDA backend looks for them.

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::gpu {

/// Device bytes and allocations of one owner, for device_bytes() and device_allocations().
struct DeviceMemoryAccount {
    std::size_t bytes = 0;
    std::uint64_t allocations = 0;
};

/// A device array that frees itself; allocated once, never resized.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    ~DeviceArray() { release(); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    void allocate(std::size_t count, DeviceMemoryAccount& account) {
        release();
        void* p = nullptr;
        const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
        SLUICE_CUDA_CHECK(cudaMalloc(&p, bytes));
        ptr_ = static_cast<T*>(p);
        bytes_ = bytes;
        account_ = &account;
        account.bytes += bytes;
        ++account.allocations;
    }
    T* get() const { return ptr_; }
    explicit operator bool() const { return ptr_ != nullptr; }

private:
    void release() noexcept {
        if (ptr_) {
            cudaFree(ptr_); // nothing sensible to do on failure while releasing
            account_->bytes -= bytes_;
        }
        ptr_ = nullptr;
    }
    T* ptr_ = nullptr;
    std::size_t bytes_ = 0;
    DeviceMemoryAccount* account_ = nullptr;
};

/// Page-locked host memory (the target of asynchronous device → host copies).
template <class T>
class PinnedArray {
public:
    PinnedArray() = default;
    ~PinnedArray() {
        if (ptr_)
            cudaFreeHost(ptr_);
    }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    /// `mapped`: the device may also write the memory directly (zero-copy), through
    /// device_pointer(): for small results that would otherwise need a copy of their own.
    void allocate(std::size_t count, bool mapped = false) {
        if (ptr_) { // regrowth: the old contents are not kept
            cudaFreeHost(ptr_);
            ptr_ = nullptr;
            device_ptr_ = nullptr;
        }
        void* p = nullptr;
        SLUICE_CUDA_CHECK(cudaHostAlloc(&p, std::max<std::size_t>(count, 1) * sizeof(T),
                                        mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
        ptr_ = static_cast<T*>(p);
        if (mapped) {
            void* d = nullptr;
            SLUICE_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
            device_ptr_ = static_cast<T*>(d);
        }
    }
    T* get() const { return ptr_; }
    /// The device's address of mapped memory (nullptr unless allocated mapped).
    T* device_pointer() const { return device_ptr_; }

private:
    T* ptr_ = nullptr;
    T* device_ptr_ = nullptr;
};

template <class T>
void upload(T* d_dst, const std::vector<T>& src, cudaStream_t stream) {
    if (!src.empty())
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_dst, src.data(), src.size() * sizeof(T),
                                          cudaMemcpyHostToDevice, stream));
}

template <class T>
std::vector<T> download(const T* d_src, std::size_t count, cudaStream_t stream) {
    std::vector<T> out(count);
    if (count)
        SLUICE_CUDA_CHECK(
            cudaMemcpyAsync(out.data(), d_src, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

} // namespace sluice::gpu
