#pragma once
/// \file snapshot_pool.cuh
/// The CUDA backend's snapshot path: the state of bin-ordered packed arrays turned into a host
/// Snapshot, and the copy slots behind begin_snapshot() (a device staging copy on the
/// simulation's stream, then a transfer to pinned memory on a side stream).

#include "backends/cuda/packed_particles.h"
#include "backends/cuda/slot_lease.cuh"
#include "backends/cuda/step_kernels.cuh"
#include "io/snapshot.h"
#include "neighbours/device_memory.cuh"

#include <array>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sluice::gpu {

// ---------------------------------------------------------------------------------------------
// Host helpers shared with the CPU backend's conventions

/// The host-side snapshot of packed arrays in bin order: particles [0, active) by ascending id,
/// as CpuSimulation::snapshot().
template <int D>
Snapshot make_snapshot(double time, std::uint64_t step, double dt, std::uint32_t n,
                       std::uint32_t active, const Vec<D>* position, const Float4* motion,
                       const std::uint32_t* id, const FluidConstants& c) {
    constexpr std::uint32_t none = ~0u;
    std::vector<std::uint32_t> slot(n, none);
    for (std::uint32_t k = 0; k < active; ++k)
        slot[id[k]] = k;
    Snapshot s;
    s.dimension = D;
    s.time = time;
    s.step = step;
    s.dt = dt;
    s.id.reserve(active);
    s.type.reserve(active);
    s.position.reserve(active);
    s.velocity.reserve(active);
    s.density.reserve(active);
    s.pressure.reserve(active);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t k = slot[i];
        if (k == none)
            continue;
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        s.id.push_back(i);
        s.type.push_back(p.type);
        s.position.push_back(to_array3(p.position));
        s.velocity.push_back(to_array3(p.velocity));
        s.density.push_back(p.density);
        s.pressure.push_back(tait_pressure(c, p.density));
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Asynchronous snapshots

/// Copy slots for begin_snapshot(): per slot a device staging copy of the state (taken on the
/// simulation's stream, so the step after it may overwrite the state) and pinned host arrays
/// that a side stream fills from it. Shared between the simulation and the pending futures, so
/// either may go first.
template <int D>
class SnapshotPool {
public:
    static constexpr int slot_count = 2;

    struct Slot {
        DeviceArray<Vec<D>> d_position;
        DeviceArray<Float4> d_motion;
        DeviceArray<std::uint32_t> d_id;
        PinnedArray<Vec<D>> h_position;
        PinnedArray<Float4> h_motion;
        PinnedArray<std::uint32_t> h_id;
        /// Several GPUs: the tags (slab_kernels.cuh), so that the halo copies are left out.
        DeviceArray<std::uint32_t> d_tag;
        PinnedArray<std::uint32_t> h_tag;
        cudaEvent_t staged = nullptr, copied = nullptr;
        bool busy = false;
        double time = 0.0, dt = 0.0;
        std::uint64_t step = 0;
        /// ids are below n (the whole run's particles); binned: the copied entries
        std::uint32_t n = 0, binned = 0;
        bool tagged = false; ///< d_tag/h_tag hold the entries' tags
    };

    /// Slots of `capacity` entries; `tagged` (several GPUs): with the tags.
    SnapshotPool(std::uint32_t capacity, const FluidConstants& c, bool tagged = false) : fluid_(c) {
        SLUICE_CUDA_CHECK(cudaGetDevice(&device_));
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
        for (Slot& s : slots_) {
            s.d_position.allocate(capacity, account_);
            s.d_motion.allocate(capacity, account_);
            s.d_id.allocate(capacity, account_);
            s.h_position.allocate(capacity);
            s.h_motion.allocate(capacity);
            s.h_id.allocate(capacity);
            if (tagged) {
                s.d_tag.allocate(capacity, account_);
                s.h_tag.allocate(capacity);
            }
            SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&s.staged, cudaEventDisableTiming));
            SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming));
        }
    }
    ~SnapshotPool() {
        cudaStreamSynchronize(side_);
        for (Slot& s : slots_) {
            cudaEventDestroy(s.staged);
            cudaEventDestroy(s.copied);
        }
        cudaStreamDestroy(side_);
    }
    SnapshotPool(const SnapshotPool&) = delete;
    SnapshotPool& operator=(const SnapshotPool&) = delete;

    /// Waits for a free slot and marks it busy.
    Slot& acquire() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            for (Slot& s : slots_)
                if (!s.busy) {
                    s.busy = true;
                    return s;
                }
            freed_.wait(lock);
        }
    }
    /// Waits for the slot's copy (so no transfer into it is in flight) and frees it.
    void release(Slot& s) noexcept {
        cudaSetDevice(device_);
        cudaEventSynchronize(s.copied);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            s.busy = false;
        }
        freed_.notify_all();
    }
    /// The slot's snapshot, once its copy has arrived; frees the slot. Any thread (its device
    /// becomes the pool's).
    Snapshot take(Slot& s) {
        try {
            SLUICE_CUDA_CHECK(cudaSetDevice(device_));
            SLUICE_CUDA_CHECK(cudaEventSynchronize(s.copied));
            std::uint32_t count = s.binned;
            if (s.tagged) { // this process's own particles, in place
                count = 0;
                for (std::uint32_t k = 0; k < s.binned; ++k)
                    if (!is_halo(s.h_tag.get()[k])) {
                        s.h_position.get()[count] = s.h_position.get()[k];
                        s.h_motion.get()[count] = s.h_motion.get()[k];
                        s.h_id.get()[count] = s.h_id.get()[k];
                        ++count;
                    }
            }
            Snapshot out = make_snapshot<D>(s.time, s.step, s.dt, s.n, count, s.h_position.get(),
                                            s.h_motion.get(), s.h_id.get(), fluid_);
            release(s);
            return out;
        } catch (...) {
            release(s);
            throw;
        }
    }
    cudaStream_t side() const { return side_; }
    std::size_t device_bytes() const { return account_.bytes; }

private:
    FluidConstants fluid_;
    int device_ = 0; ///< the GPU the slots are on
    DeviceMemoryAccount account_;
    cudaStream_t side_ = nullptr;
    std::array<Slot, slot_count> slots_;
    std::mutex mutex_;
    std::condition_variable freed_;
};

} // namespace sluice::gpu
