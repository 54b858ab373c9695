#pragma once
/// \file gauge_results.cuh
/// The result slots behind CudaSimulation::begin_gauges(): per slot pinned host memory for a
/// sample's sums and wall sums (mapped: the gauge kernel writes them there itself, no copy to
/// queue), front keys, body forces and floating bodies' states and loads (copied), and the events
/// that bound its device work. A slot is held from begin_gauges() until the future's get() has read
/// it, so the stepping thread only queues work and the thread that calls get() (gauges.csv's
/// writer) waits for the copy and converts it. Shared between the simulation and the pending
/// futures, so either may go first.

#include "backends/cuda/slot_lease.cuh"
#include "backends/simulation.h"
#include "case/body_table.h"
#include "case/state_conversion.h"
#include "neighbours/cuda_check.h"
#include "neighbours/device_memory.cuh"
#include "physics/gauges.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sluice::gpu {

/// A body of a force sample (GaugeRequest::Body) on the device.
template <int D>
struct DeviceBody {
    std::uint32_t first_id, id_count, object;
    Vec<D> moment_point; ///< m, at t = 0
};

template <int D>
class GaugeResultPool {
public:
    /// Samples that can be pending at once: the stepping thread waits for a free slot beyond.
    static constexpr int slot_count = 4;
    static constexpr int front_keys = 4; ///< per front: farthest, then three passes' results

    struct Slot {
        PinnedArray<GaugeSums<D>> sums;
        PinnedArray<WallSensorSums<D>> wall; ///< mapped, as sums
        PinnedArray<std::uint32_t> keys;
        PinnedArray<double> forces;             ///< per body 6 (copied)
        PinnedArray<BodyState> floating_states; ///< per floating body (copied)
        PinnedArray<BodyLoads> floating_loads;
        std::size_t sums_capacity = 0, wall_capacity = 0, keys_capacity = 0, forces_capacity = 0,
                    floating_capacity = 0;
        std::uint32_t bodies = 0, floating = 0;
        cudaEvent_t begun = nullptr, done = nullptr;
        std::uint32_t points = 0, wall_points = 0;
        std::vector<GaugeRequest::Front> fronts;
        bool busy = false;
        bool ready = false;         ///< its device work is known to be complete
        std::uint64_t sequence = 0; ///< the how-manieth sample it holds (begun())
        float ms = 0.0f;            ///< its device time, once ready
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

    /// Waits for a free slot, marks it busy and makes it hold `points` sums, `wall_points` wall
    /// sums and `fronts` fronts (growing its pinned arrays: the slot is free, nothing copies
    /// into it).
    Slot& acquire(std::uint32_t points, std::uint32_t wall_points, std::size_t fronts,
                  std::uint32_t bodies = 0, std::uint32_t floating = 0) {
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
        free->ready = false;
        free->sequence = ++begun_;
        lock.unlock();
        if (points > free->sums_capacity) {
            free->sums.allocate(points, /*mapped=*/true);
            free->sums_capacity = points;
        }
        if (wall_points > free->wall_capacity) {
            free->wall.allocate(wall_points, /*mapped=*/true);
            free->wall_capacity = wall_points;
        }
        if (6u * bodies > free->forces_capacity) {
            free->forces.allocate(6u * bodies);
            free->forces_capacity = 6u * bodies;
        }
        free->bodies = bodies;
        if (floating > free->floating_capacity) {
            free->floating_states.allocate(floating);
            free->floating_loads.allocate(floating);
            free->floating_capacity = floating;
        }
        free->floating = floating;
        if (front_keys * fronts > free->keys_capacity) {
            free->keys.allocate(front_keys * fronts);
            free->keys_capacity = front_keys * fronts;
        }
        return *free;
    }

    /// Samples acquired so far (a slot's sequence is its sample's number among them).
    std::uint64_t begun() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return begun_;
    }
    /// Called by the stepping thread right after it waited for the simulation's stream: the
    /// samples up to number `up_to` (begun()) are complete, so the threads waiting in take()
    /// need no CUDA call of their own (one that waits on the device from a second thread slows
    /// the stepping thread's launches). A sample on a stream of its own that the simulation's
    /// has not waited for yet is past `up_to`.
    void complete_pending(std::uint64_t up_to) {
        bool any = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (Slot& s : slots_)
                if (s.busy && !s.ready && s.sequence <= up_to) {
                    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&s.ms, s.begun, s.done));
                    s.ready = true;
                    any = true;
                }
        }
        if (any)
            completed_.notify_all();
    }

    /// The sample of a slot, once its device work is complete; frees the slot and adds the
    /// sample's device time to device_seconds(). Waits for complete_pending(); when no step
    /// comes for a while (the end of a run), asks the device itself.
    GaugeResponse take(Slot& s) {
        GaugeResponse out;
        try {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                while (!completed_.wait_for(lock, std::chrono::milliseconds(20),
                                            [&] { return s.ready; })) {
                    lock.unlock();
                    const cudaError_t state = cudaEventQuery(s.done);
                    lock.lock();
                    if (state == cudaErrorNotReady || s.ready)
                        continue;
                    SLUICE_CUDA_CHECK(state);
                    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&s.ms, s.begun, s.done));
                    s.ready = true;
                }
            }
            out.sums.resize(s.points);
            for (std::uint32_t k = 0; k < s.points; ++k) {
                const GaugeSums<D>& g = s.sums.get()[k];
                const std::array<float, 3> v = to_array3(g.w_velocity);
                out.sums[k] = {g.w, g.w_density, g.w_pressure, v[0], v[1], v[2]};
            }
            out.wall.resize(s.wall_points);
            for (std::uint32_t k = 0; k < s.wall_points; ++k)
                flatten(s.wall.get()[k], out.wall[k]);
            for (std::size_t f = 0; f < s.fronts.size(); ++f) {
                const std::uint32_t* keys = s.keys.get() + front_keys * f;
                const std::uint32_t key = keys[1] != 0 ? keys[1] : keys[2] != 0 ? keys[2] : keys[3];
                out.fronts.push_back(key != 0 ? static_cast<float>(s.fronts[f].sign) *
                                                    from_ordered_key(key)
                                              : std::numeric_limits<float>::quiet_NaN());
            }
            for (std::uint32_t b = 0; b < s.bodies; ++b) {
                std::array<double, 6> f;
                std::copy(s.forces.get() + 6 * b, s.forces.get() + 6 * b + 6, f.begin());
                out.forces.push_back(f);
            }
            if (s.floating > 0)
                out.floating = floating_samples(
                    {s.floating_states.get(), s.floating_states.get() + s.floating},
                    {s.floating_loads.get(), s.floating_loads.get() + s.floating});
            std::lock_guard<std::mutex> lock(mutex_);
            device_seconds_ += 1e-3 * s.ms;
        } catch (...) {
            release(s);
            throw;
        }
        release(s);
        return out;
    }

    /// Frees a slot whose sample is not wanted (its future was dropped), after its copy.
    void release(Slot& s) noexcept {
        bool ready;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ready = s.ready;
        }
        if (!ready) // a dropped sample: no copy may still be landing in the slot
            cudaEventSynchronize(s.done);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            s.busy = false;
            s.ready = false;
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
    std::condition_variable freed_, completed_;
    double device_seconds_ = 0.0;
    std::uint64_t begun_ = 0;
};

} // namespace sluice::gpu
