#pragma once
/// \file timing.cuh
/// How neighbours_bench times device work: CUDA events on the benchmark's stream, warm-up runs,
/// then the median of the timed runs, each after an L2 flush.

#include "cuda_check.h"
#include "device_memory.cuh"
#include "options.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace sluice::bench {

/// A CUDA event that destroys itself.
class Event {
public:
    Event() { SLUICE_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

/// Milliseconds from event a to event b (both recorded and complete).
inline float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/// The median; NaN for no values.
inline double median(std::vector<double> v) {
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Runs and times device work: warm-up, then reps timed runs between events, each after an L2
/// flush (a memset of twice the L2 size), so no run finds the previous run's data in cache.
class Timer {
public:
    Timer(cudaStream_t stream, const TimingOptions& o, gpu::DeviceMemoryAccount& account)
        : stream_(stream), o_(o) {
        int device = 0;
        SLUICE_CUDA_CHECK(cudaGetDevice(&device));
        int l2 = 0;
        SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        flush_bytes_ = 2 * static_cast<std::size_t>(l2);
        flush_.allocate(flush_bytes_, account);
    }
    /// Enqueues the L2 flush (unless --no-flush).
    void flush() {
        if (o_.flush_l2)
            SLUICE_CUDA_CHECK(
                cudaMemsetAsync(flush_.get(), ++flush_value_ & 0xFF, flush_bytes_, stream_));
    }
    /// Median milliseconds of `enqueue()`, which queues work on stream() and nothing else.
    template <class F>
    double median_ms(F&& enqueue) {
        for (int w = 0; w < o_.warmup; ++w)
            enqueue();
        std::vector<double> times;
        for (int r = 0; r < o_.reps; ++r) {
            flush();
            SLUICE_CUDA_CHECK(cudaEventRecord(start_.get(), stream_));
            enqueue();
            SLUICE_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_));
            SLUICE_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
            times.push_back(elapsed_ms(start_.get(), stop_.get()));
        }
        return median(times);
    }
    cudaStream_t stream() const { return stream_; }
    int reps() const { return o_.reps; }

private:
    cudaStream_t stream_;
    const TimingOptions& o_;
    gpu::DeviceArray<unsigned char> flush_;
    std::size_t flush_bytes_ = 0;
    int flush_value_ = 0;
    Event start_, stop_;
};

} // namespace sluice::bench
