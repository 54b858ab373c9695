#pragma once
/// \file slab_kernels.cuh
/// The CUDA backend's kernels for a run over several GPUs (DESIGN.md, Scale-out; the CPU
/// backend's distribute / refresh_halo on the device): classifying particles for migration and
/// the halo, packing and unpacking them as records for NCCL, and the slot maps of the halo.
/// Which particles go where is parallel/slab_rules.h's, as on the CPU.

#include "backends/cuda/packed_particles.h"
#include "backends/cuda/step_kernels.cuh"
#include "neighbours/grid.h"
#include "parallel/slab_rules.h"

#include <cstdint>

namespace sluice::gpu {

/// One particle as it travels between GPUs: the packed state and the step n−1 of Verlet.
template <int D>
struct ParticleRecord {
    Vec<D> position;
    Float4 motion;
    Vec<D> previous_velocity;
    float previous_density;
    std::uint32_t id;
};

/// A halo copy's refresh: the packed state only.
template <int D>
struct HaloRecord {
    Vec<D> position;
    Float4 motion;
};

/// counts[key] += how many threads of the block have `key` (< 5; key ≥ 5: none): one global
/// atomic per key and block, not one per particle (thousands of particles on five counters
/// serialise). Every thread of the block must call it.
__device__ __forceinline__ void count_keys(unsigned key, std::uint32_t* counts) {
    __shared__ std::uint32_t block_counts[5];
    if (threadIdx.x < 5)
        block_counts[threadIdx.x] = 0;
    __syncthreads();
    if (key < 5)
        atomicAdd(&block_counts[key], 1u);
    __syncthreads();
    if (threadIdx.x < 5 && block_counts[threadIdx.x] > 0)
        atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
}

/// Migration classes (the key of a stable sort): 0 stays, 1 stays excluded (frozen, last),
/// 2 goes to the slab below, 3 to the slab above, 4 a halo copy (dropped). counts[key] += 1.
template <int D>
__global__ void __launch_bounds__(block_size)
    migration_keys_kernel(const Vec<D>* __restrict__ positions,
                          const std::uint32_t* __restrict__ tags, std::uint32_t n,
                          std::uint32_t active, GridSpec<D> grid, int axis, double lower,
                          double upper, std::uint8_t* __restrict__ keys,
                          std::uint32_t* __restrict__ index, std::uint32_t* __restrict__ counts) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    unsigned key = 5; // none: past the end
    if (i < n) {
        key = 0;
        if (is_halo(tags[i])) {
            key = 4;
        } else if (i >= active) {
            key = 1;
        } else {
            const Vec<D> x = detail::load_position(positions + i);
            if (grid.contains(x)) { // none → 0, below → 2, above → 3
                const SlabSide side = migration_side(x[axis], lower, upper);
                key = side == SlabSide::none ? 0u : 1u + static_cast<unsigned>(side);
            }
        }
        keys[i] = static_cast<std::uint8_t>(key);
        index[i] = i;
    }
    count_keys(key, counts);
}

/// Halo classes over the owned, active particles [0, n): 0 not sent, 1 to the slab below (within
/// `width` of the lower face), 2 to the slab above; counts[key] += 1.
template <int D>
__global__ void __launch_bounds__(block_size)
    halo_keys_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                     int axis, double lower, double upper, double width, bool below, bool above,
                     std::uint8_t* __restrict__ keys, std::uint32_t* __restrict__ index,
                     std::uint32_t* __restrict__ counts) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    unsigned key = 5; // none: past the end
    if (i < n) {
        const Vec<D> x = detail::load_position(positions + i);
        key = grid.contains(x)
                  ? static_cast<unsigned>(halo_side(x[axis], lower, upper, width, below, above))
                  : 0u;
        keys[i] = static_cast<std::uint8_t>(key);
        index[i] = i;
    }
    count_keys(key, counts);
}

/// Load balancing's work estimate: the owned particles among [0, n) per bin column of width
/// `bin` from `start` along `axis` (columns clamped to [0, columns)), fluid in counts[2c] and
/// boundary in counts[2c + 1]. The column as the CPU backend's balance computes it (double).
template <int D>
__global__ void __launch_bounds__(block_size)
    column_counts_kernel(const Vec<D>* __restrict__ positions, const Float4* __restrict__ motion,
                         const std::uint32_t* __restrict__ tags, std::uint32_t n, int axis,
                         double start, double bin, std::uint32_t columns,
                         std::uint32_t* __restrict__ counts) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n || is_halo(tags[i]))
        return;
    const Vec<D> x = detail::load_position(positions + i);
    const double c = floor((static_cast<double>(x[axis]) - start) / bin);
    const auto column =
        static_cast<std::uint32_t>(fmin(fmax(c, 0.0), static_cast<double>(columns - 1)));
    const bool boundary = decode_type(motion_signed_density<D>(detail::load_motion(motion + i))) ==
                          ParticleType::boundary;
    atomicAdd(&counts[2 * column + (boundary ? 1 : 0)], 1u);
}

/// records[k] ← particle order[k], k < count; sent_tags (optional): tags[order[k]] = sent | slot
/// first_slot + k.
template <int D>
__global__ void __launch_bounds__(block_size)
    pack_records_kernel(const std::uint32_t* __restrict__ order, std::uint32_t count,
                        const Vec<D>* __restrict__ positions, const Float4* __restrict__ motion,
                        const std::uint32_t* __restrict__ id,
                        const Vec<D>* __restrict__ previous_velocity,
                        const float* __restrict__ previous_density,
                        ParticleRecord<D>* __restrict__ records, std::uint32_t* sent_tags,
                        std::uint32_t first_slot) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    if (k >= count)
        return;
    const std::uint32_t i = order[k];
    ParticleRecord<D> r;
    r.position = positions[i];
    r.motion = motion[i];
    r.id = id[i];
    r.previous_velocity = previous_velocity ? previous_velocity[i] : Vec<D>{};
    r.previous_density = previous_density ? previous_density[i] : 0.0f;
    records[k] = r;
    if (sent_tags)
        sent_tags[i] = tag_sent | (first_slot + k);
}

/// Particles [at, at + count) ← records; tag tag_owned, or for a halo tag_halo | first_slot + k.
template <int D>
__global__ void __launch_bounds__(block_size)
    unpack_records_kernel(const ParticleRecord<D>* __restrict__ records, std::uint32_t count,
                          std::uint32_t at, Vec<D>* __restrict__ positions,
                          Float4* __restrict__ motion, std::uint32_t* __restrict__ id,
                          std::uint32_t* __restrict__ tags, Vec<D>* __restrict__ previous_velocity,
                          float* __restrict__ previous_density, bool halo,
                          std::uint32_t first_slot) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    if (k >= count)
        return;
    const ParticleRecord<D> r = records[k];
    const std::uint32_t i = at + k;
    positions[i] = r.position;
    motion[i] = r.motion;
    id[i] = r.id;
    tags[i] = halo ? tag_halo | (first_slot + k) : tag_owned;
    if (previous_velocity) {
        previous_velocity[i] = r.previous_velocity;
        previous_density[i] = r.previous_density;
    }
}

/// Where each halo slot and each sent slot lives now (after any reorder).
static __global__ void __launch_bounds__(block_size)
    slot_index_kernel(const std::uint32_t* __restrict__ tags, std::uint32_t n,
                      std::uint32_t* __restrict__ halo_index,
                      std::uint32_t* __restrict__ sent_index) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n)
        return;
    const std::uint32_t tag = tags[i];
    if (tag == tag_owned)
        return;
    if (tag & tag_halo)
        halo_index[tag & tag_slot] = i;
    else
        sent_index[tag & tag_slot] = i;
}

template <int D>
__global__ void __launch_bounds__(block_size)
    pack_halo_kernel(const std::uint32_t* __restrict__ sent_index, std::uint32_t count,
                     const Vec<D>* __restrict__ positions, const Float4* __restrict__ motion,
                     HaloRecord<D>* __restrict__ records) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    if (k >= count)
        return;
    const std::uint32_t i = sent_index[k];
    records[k] = HaloRecord<D>{positions[i], motion[i]};
}

/// The halo copies take their owners' state; `skin` (optional): folds in how far each moved
/// from `built` (the positions the reused structure was built on): along an axis, or with
/// `in_space` (kept lists: BuildOrder::skin_move's measure) in space.
template <int D>
__global__ void __launch_bounds__(block_size)
    unpack_halo_kernel(const HaloRecord<D>* __restrict__ records, std::uint32_t count,
                       const std::uint32_t* __restrict__ halo_index, Vec<D>* positions,
                       Float4* __restrict__ motion, const Vec<D>* built, float* skin,
                       bool in_space) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    float moved = 0.0f;
    if (k < count) {
        const std::uint32_t i = halo_index[k];
        const HaloRecord<D> r = records[k];
        positions[i] = r.position;
        motion[i] = r.motion;
        if (skin) {
            const Vec<D> b = detail::load_position(built + i);
            if (in_space) {
                float s = 0.0f;
                SLUICE_UNROLL
                for (int a = 0; a < D; ++a)
                    s += (r.position[a] - b[a]) * (r.position[a] - b[a]);
                moved = sqrtf(s);
            } else {
                moved = largest_move(r.position, b);
            }
        }
    }
    if (skin != nullptr) // the same for every thread: all reach the reduction
        block_max_into(skin, moved);
}

} // namespace sluice::gpu
