#pragma once
/// \file gauge_results.cuh
/// The result slots behind CudaSimulation::begin_gauges(): per slot pinned host copies of a
/// sample's sums and front keys, and the events that bound its device work. A slot is held from
/// begin_gauges() until the future's get() has read it, so the stepping thread only queues work
/// and the thread that calls get() (gauges.csv's writer) waits for the copy and converts it.
/// Shared between the simulation and the pending futures, so either may go first.

#include "backends/backend_common.h"
#include "backends/cuda/device_memory.cuh"
#include "backends/simulation.h"
#include "neighbours/cuda_check.h"
#include "physics/gauges.h"

#include <array>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sluice::gpu {

template <int D>
class GaugeResultPool {
public:
    /// Samples that can be pending at once: the stepping thread waits for a free slot beyond.
    static constexpr int slot_count = 4;
    static constexpr int front_keys = 4; ///< per front: farthest, then three passes' results

    struct Slot {
        PinnedArray<GaugeSums<D>> sums;
        PinnedArray<std::uint32_t> keys;
        std::size_t sums_capacity = 0, keys_capacity = 0;
        cudaEvent_t begun = nullptr, done = nullptr;
        std::uint32_t points = 0;
        std::vector<GaugeRequest::Front> fronts;
        bool busy = false;
    };

    GaugeResultPool() {
        for (Slot& s : slots_) {
            SLUICE_CUDA_CHECK(cudaEventCreate(&s.begun));
            SLUICE_CUDA_CHECK(cudaEventCreate(&s.done));
        }
    }
    ~GaugeResultPool() {
        for (Slot& s : slots_) {
            cudaEventSynchronize(s.done);
            cudaEventDestroy(s.begun);
            cudaEventDestroy(s.done);
        }
    }
    GaugeResultPool(const GaugeResultPool&) = delete;
    GaugeResultPool& operator=(const GaugeResultPool&) = delete;

    /// Waits for a free slot, marks it busy and makes it hold `points` sums and `fronts` fronts
    /// (growing its pinned arrays: the slot is free, nothing copies into it).
    Slot& acquire(std::uint32_t points, std::size_t fronts) {
        std::unique_lock<std::mutex> lock(mutex_);
        Slot* free = nullptr;
        freed_.wait(lock, [&] {
            for (Slot& s : slots_)
                if (!s.busy) {
                    free = &s;
                    return true;
                }
            return false;
        });
        free->busy = true;
        lock.unlock();
        if (points > free->sums_capacity) {
            free->sums.allocate(points);
            free->sums_capacity = points;
        }
        if (front_keys * fronts > free->keys_capacity) {
            free->keys.allocate(front_keys * fronts);
            free->keys_capacity = front_keys * fronts;
        }
        return *free;
    }

    /// The sample of a slot, once its copy has arrived; frees the slot and adds the sample's
    /// device time to device_seconds().
    GaugeResponse take(Slot& s) {
        GaugeResponse out;
        try {
            SLUICE_CUDA_CHECK(cudaEventSynchronize(s.done));
            float ms = 0.0f;
            SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, s.begun, s.done));
            out.sums.resize(s.points);
            for (std::uint32_t k = 0; k < s.points; ++k) {
                const GaugeSums<D>& g = s.sums.get()[k];
                const std::array<float, 3> v = to_array3(g.w_velocity);
                out.sums[k] = {g.w, g.w_density, g.w_pressure, v[0], v[1], v[2]};
            }
            for (std::size_t f = 0; f < s.fronts.size(); ++f) {
                const std::uint32_t* keys = s.keys.get() + front_keys * f;
                const std::uint32_t key = keys[1] != 0 ? keys[1] : keys[2] != 0 ? keys[2] : keys[3];
                out.fronts.push_back(key != 0 ? static_cast<float>(s.fronts[f].sign) *
                                                    from_ordered_key(key)
                                              : std::numeric_limits<float>::quiet_NaN());
            }
            std::lock_guard<std::mutex> lock(mutex_);
            device_seconds_ += 1e-3 * ms;
        } catch (...) {
            release(s);
            throw;
        }
        release(s);
        return out;
    }

    /// Frees a slot whose sample is not wanted (its future was dropped), after its copy.
    void release(Slot& s) noexcept {
        cudaEventSynchronize(s.done);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            s.busy = false;
        }
        freed_.notify_all();
    }

    /// s of device time of the samples taken so far (a stage of its own in the summary).
    double device_seconds() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return device_seconds_;
    }

private:
    std::array<Slot, slot_count> slots_;
    mutable std::mutex mutex_;
    std::condition_variable freed_;
    double device_seconds_ = 0.0;
};

/// One pending sample: holds its slot until taken or dropped.
template <int D>
class GaugeLease {
public:
    GaugeLease(std::shared_ptr<GaugeResultPool<D>> pool, typename GaugeResultPool<D>::Slot& slot)
        : pool_(std::move(pool)), slot_(&slot) {}
    ~GaugeLease() {
        if (slot_)
            pool_->release(*slot_);
    }
    GaugeLease(const GaugeLease&) = delete;
    GaugeLease& operator=(const GaugeLease&) = delete;

    GaugeResponse take() {
        typename GaugeResultPool<D>::Slot* slot = std::exchange(slot_, nullptr);
        return pool_->take(*slot);
    }

private:
    std::shared_ptr<GaugeResultPool<D>> pool_;
    typename GaugeResultPool<D>::Slot* slot_;
};

} // namespace sluice::gpu
