#include "cuda_builder.h"
#include "cuda_check.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace sluice {
namespace {

constexpr int block_size = 256;
constexpr unsigned full_warp = 0xFFFFFFFFu;

unsigned blocks_for(std::uint64_t threads) {
    return static_cast<unsigned>((threads + block_size - 1) / block_size);
}

/// Atomic counting sort, pass 1 (thesis Fig. 4.1): each particle's key and its offset within its
/// bin, which the atomic increment of the bin's counter returns. Lanes of a warp that hold the
/// same key in a run (consecutive lanes) take their offsets from one atomicAdd of the run's
/// length: input already in bin order (a solver's next step) then costs ~one atomic per bin and
/// warp instead of one per particle, and shuffled input costs what plain atomics cost.
/// Needs blockDim.x to be a multiple of 32; every lane reaches the warp intrinsics.
template <int D>
__global__ void __launch_bounds__(block_size)
    histogram_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                     OutsidePolicy policy, std::uint32_t* __restrict__ counts,
                     std::uint32_t* __restrict__ offsets) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = i < n;
    // Inactive lanes get a key no particle has (keys are at most nbins < 2^32 - 1).
    const std::uint32_t key =
        active ? bin_key(grid, detail::load_position(positions + i), policy) : 0xFFFFFFFFu;

    const unsigned lane = threadIdx.x & 31u;
    // Every lane must execute the shuffle (full mask): no short-circuit around it.
    const std::uint32_t previous_key = __shfl_up_sync(full_warp, key, 1);
    const bool head = lane == 0 || previous_key != key;
    const unsigned heads = __ballot_sync(full_warp, head);
    const unsigned up_to_me = full_warp >> (31u - lane); // lanes 0..lane
    const int run_first = 31 - __clz(heads & up_to_me);  // head of my run
    const unsigned later_heads = heads & ~up_to_me;
    const int run_end = later_heads ? __ffs(later_heads) - 1 : 32; // one past my run
    std::uint32_t base = 0;
    if (head && active)
        base = atomicAdd(&counts[key], static_cast<std::uint32_t>(run_end - run_first));
    base = __shfl_sync(full_warp, base, run_first);
    if (active)
        offsets[i] = base + (lane - static_cast<unsigned>(run_first));
}

/// Atomic counting sort, pass 3: particle i goes to pbm[key] + offset. The key is recomputed
/// from the position, which the scatter reads anyway (cheaper than storing it in pass 1).
template <int D>
__global__ void __launch_bounds__(block_size)
    scatter_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                   OutsidePolicy policy, const std::uint32_t* __restrict__ pbm,
                   const std::uint32_t* __restrict__ offsets, Vec<D>* __restrict__ sorted,
                   std::uint32_t* __restrict__ permutation) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Vec<D> x = detail::load_position(positions + i);
    const std::uint32_t k = __ldg(pbm + bin_key(grid, x, policy)) + offsets[i];
    if (sorted) // Layout::index reads the input positions: no sorted copy
        sorted[k] = x;
    permutation[k] = i;
}

/// Adds the lanes of this warp whose particle joined a list to *binned (one atomicAdd per warp).
/// Every lane of the warp calls it.
__device__ __forceinline__ void count_listed(bool listed, std::uint32_t* binned) {
    const unsigned listed_lanes = __ballot_sync(full_warp, listed);
    if ((threadIdx.x & 31u) == 0 && listed_lanes != 0)
        atomicAdd(binned, static_cast<std::uint32_t>(__popc(listed_lanes)));
}

/// Linked-list grid (Barbieri et al. §2): particle i becomes the head of its bin's list with one
/// atomic exchange and links to the previous head; excluded particles join no list. The count of
/// listed particles (*binned) takes one atomicAdd per warp.
template <int D>
__global__ void __launch_bounds__(block_size)
    link_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                OutsidePolicy policy, std::uint32_t* __restrict__ heads,
                std::uint32_t* __restrict__ next, std::uint32_t* __restrict__ binned) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t nbins = grid.bin_count();
    bool listed = false;
    if (i < n) {
        const std::uint32_t key = bin_key(grid, detail::load_position(positions + i), policy);
        listed = key != nbins;
        next[i] = listed ? atomicExch(heads + key, i) : LinkedListView<D>::list_end;
    }
    count_listed(listed, binned);
}

/// Packed linked list: as link_kernel, with particle i's next written beside a copy of its
/// position in one 16-byte node (a coalesced store), so a traversal reads one stream.
template <int D>
__global__ void __launch_bounds__(block_size)
    link_packed_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                       OutsidePolicy policy, std::uint32_t* __restrict__ heads,
                       PackedListNode* __restrict__ nodes, std::uint32_t* __restrict__ binned) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t nbins = grid.bin_count();
    bool listed = false;
    if (i < n) {
        const Vec<D> x = detail::load_position(positions + i);
        const std::uint32_t key = bin_key(grid, x, policy);
        listed = key != nbins;
        nodes[i] = detail::pack_node(x, listed ? atomicExch(heads + key, i)
                                               : PackedLinkedListView<D>::list_end);
    }
    count_listed(listed, binned);
}

/// Tight linked list (Barbieri et al. §1, "Linked List Tight" of §3): one thread per particle
/// links an entry into every bin its box touches (list_views.h), each with one atomic exchange;
/// next[entry] takes the old head. The entries of a particle lie in its own 4^D slots.
template <int D>
__global__ void __launch_bounds__(block_size)
    link_tight_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                      float half, OutsidePolicy policy, std::uint32_t* __restrict__ heads,
                      std::uint32_t* __restrict__ next, std::uint32_t* __restrict__ binned) {
    using View = TightLinkedListView<D>;
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool listed = false;
    if (i < n) {
        const Vec<D> x = detail::load_position(positions + i);
        listed = bin_key(grid, x, policy) != grid.bin_count();
        if (listed) {
            int lo[D], hi[D];
            SLUICE_UNROLL
            for (int k = 0; k < D; ++k)
                detail::tight_axis_bins(grid, x[k], half, k, lo[k], hi[k]);
            detail::for_each_tight_bin<D>(lo, hi, [&](const int(&b)[D], std::uint32_t offsets) {
                const std::uint32_t entry = (i << View::entry_shift) | offsets;
                next[entry] = atomicExch(heads + grid.linear_bin(b), entry);
            });
        }
    }
    count_listed(listed, binned);
}

/// Radix sort, pass 1: the sort's (key, index) pairs.
template <int D>
__global__ void __launch_bounds__(block_size)
    keys_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                OutsidePolicy policy, std::uint32_t* __restrict__ keys,
                std::uint32_t* __restrict__ indices) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    keys[i] = bin_key(grid, detail::load_position(positions + i), policy);
    indices[i] = i;
}

/// Radix sort, pass 3: boundary detection and gather, over sorted positions k = 0..n (n + 1
/// threads). Bins (key[k−1], key[k]] all start at k (key[−1] = −1, key[n] = nbins), so every PBM
/// entry, empty bins and pbm[nbins] included, is written exactly once: no clearing pass, no extra
/// scan. Short gaps are filled by their own thread; gaps longer than a warp (empty regions, e.g.
/// the air above a free surface) by the whole warp, 32 entries per store instruction.
template <int D>
__global__ void __launch_bounds__(block_size)
    boundaries_kernel(const std::uint32_t* __restrict__ sorted_keys,
                      const std::uint32_t* __restrict__ permutation,
                      const Vec<D>* __restrict__ positions, std::uint32_t n, std::uint32_t nbins,
                      std::uint32_t* __restrict__ pbm, Vec<D>* __restrict__ sorted) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    long long lo = 0, hi = 0; // fill pbm[b] = k for lo < b <= hi
    if (k <= n) {
        lo = k == 0 ? -1 : static_cast<long long>(sorted_keys[k - 1]);
        hi = k == n ? static_cast<long long>(nbins) : static_cast<long long>(sorted_keys[k]);
    }
    if (k < n && sorted) // Layout::index: no sorted copy
        sorted[k] = detail::load_position(positions + permutation[k]);

    const bool long_gap = hi - lo > 32;
    if (!long_gap)
        for (long long b = lo + 1; b <= hi; ++b)
            pbm[b] = k;
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned todo = __ballot_sync(full_warp, long_gap); todo != 0; todo &= todo - 1) {
        const int src = __ffs(todo) - 1;
        const long long src_lo = __shfl_sync(full_warp, lo, src);
        const long long src_hi = __shfl_sync(full_warp, hi, src);
        const std::uint32_t src_k = __shfl_sync(full_warp, k, src);
        for (long long b = src_lo + 1 + lane; b <= src_hi; b += 32)
            pbm[b] = src_k;
    }
}

/// Smallest end_bit with every key in [0, max_key] below 2^end_bit.
int key_bits(std::uint32_t max_key) {
    int bits = 1;
    while (bits < 32 && (max_key >> bits) != 0)
        ++bits;
    return bits;
}

void record(const BuildStageEvents* timing, int stage, cudaStream_t stream) {
    if (timing)
        SLUICE_CUDA_CHECK(cudaEventRecord(timing->events[stage], stream));
}

template <class T>
void device_free(T*& p) noexcept {
    if (p)
        cudaFree(p); // nothing sensible to do on failure while releasing
    p = nullptr;
}

} // namespace

template <int D>
CudaNeighbourBuilder<D>::CudaNeighbourBuilder(Construction construction)
    : construction_(construction) {}

template <int D>
CudaNeighbourBuilder<D>::~CudaNeighbourBuilder() {
    release();
}

template <int D>
CudaNeighbourBuilder<D>::CudaNeighbourBuilder(CudaNeighbourBuilder&& other) noexcept
    : construction_(other.construction_) {
    *this = std::move(other);
}

template <int D>
CudaNeighbourBuilder<D>& CudaNeighbourBuilder<D>::operator=(CudaNeighbourBuilder&& other) noexcept {
    if (this != &other) {
        release();
        construction_ = other.construction_;
        grid_ = other.grid_;
        radius_ = other.radius_;
        n_ = std::exchange(other.n_, 0);
        allocations_ = other.allocations_;
        cap_n_ = std::exchange(other.cap_n_, 0);
        cap_bins_ = std::exchange(other.cap_bins_, 0);
        cap_temp_ = std::exchange(other.cap_temp_, 0);
        temp_sized_for_bins_ = other.temp_sized_for_bins_;
        d_sorted_ = std::exchange(other.d_sorted_, nullptr);
        d_perm_ = std::exchange(other.d_perm_, nullptr);
        d_key_ = std::exchange(other.d_key_, nullptr);
        d_key_out_ = std::exchange(other.d_key_out_, nullptr);
        d_index_ = std::exchange(other.d_index_, nullptr);
        d_counts_ = std::exchange(other.d_counts_, nullptr);
        d_pbm_ = std::exchange(other.d_pbm_, nullptr);
        d_temp_ = std::exchange(other.d_temp_, nullptr);
        d_nodes_ = std::exchange(other.d_nodes_, nullptr);
    }
    return *this;
}

template <int D>
void CudaNeighbourBuilder<D>::release() noexcept {
    device_free(d_sorted_);
    device_free(d_perm_);
    device_free(d_key_);
    device_free(d_key_out_);
    device_free(d_index_);
    device_free(d_counts_);
    device_free(d_pbm_);
    device_free(d_temp_);
    device_free(d_nodes_);
    cap_n_ = cap_bins_ = cap_temp_ = 0;
}

template <int D>
template <class T>
void CudaNeighbourBuilder<D>::grow(T*& buffer, std::size_t count) {
    device_free(buffer);
    void* p = nullptr;
    SLUICE_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)));
    ++allocations_;
    buffer = static_cast<T*>(p);
}

template <int D>
void CudaNeighbourBuilder<D>::reserve(std::uint32_t n, std::uint32_t nbins) {
    if (static_cast<std::uint64_t>(nbins) + 2 > static_cast<std::uint64_t>(INT_MAX))
        throw std::length_error("CudaNeighbourBuilder: too many bins for CUB (nbins + 2 > " +
                                std::to_string(INT_MAX) + ")");
    const bool radix = construction_ == Construction::radix_sort;
    const bool linked = is_linked_list(construction_);
    const bool tight = construction_ == Construction::linked_list_tight;
    constexpr std::size_t tight_slots = TightLinkedListView<D>::slots_per_particle;
    const bool packed = construction_ == Construction::linked_list_packed;
    if (tight) // before anything changes: a refused count leaves the builder as it was
        detail::check_tight_count<D>(n);
    const bool grow_particles = n > cap_n_ || (packed ? !d_nodes_ : !d_key_);
    if (grow_particles) {
        // At least half again, so that a slowly growing particle count (inflow) does not
        // reallocate at every step (a tight list: no more than its entries can number). The
        // capacity is recorded only once every buffer has it: a failed allocation leaves 0,
        // and the next build allocates again.
        std::size_t capacity = std::max<std::size_t>(n, cap_n_ + cap_n_ / 2);
        if (tight)
            capacity =
                std::min<std::size_t>(capacity, TightLinkedListView<D>::list_end / tight_slots);
        cap_n_ = 0;
        if (packed)
            grow(d_nodes_, capacity); // the nodes hold next; d_key_ stays a one-entry stub
        grow(d_key_, packed ? 1 : tight ? capacity * tight_slots : capacity); // lists: next
        if (!linked) {
            grow(d_sorted_, capacity);
            grow(d_perm_, capacity);
        }
        if (radix) {
            grow(d_key_out_, capacity);
            grow(d_index_, capacity);
        }
        cap_n_ = capacity;
    }
    const std::size_t bins_needed = static_cast<std::size_t>(nbins) + 2;
    if (bins_needed > cap_bins_ || !d_pbm_) {
        cap_bins_ = bins_needed;
        grow(d_pbm_, cap_bins_); // linked-list: the heads, then the listed count
        if (!radix && !linked)
            grow(d_counts_, cap_bins_);
    }
    if (linked)
        return; // no CUB pass
    // CUB temporary storage, sized by its nullptr call (host side only) for the capacities, and
    // for the key bits of this bin count (radix sort).
    if (!grow_particles && d_temp_ && nbins == temp_sized_for_bins_)
        return;
    std::size_t temp_bytes = 0;
    if (radix) {
        SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, temp_bytes, d_key_, d_key_out_, d_index_, d_perm_,
            static_cast<int>(std::max<std::size_t>(cap_n_, 1)), 0, key_bits(nbins)));
    } else {
        SLUICE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_counts_, d_pbm_,
                                                        static_cast<int>(cap_bins_)));
    }
    if (temp_bytes > cap_temp_ || !d_temp_) {
        cap_temp_ = temp_bytes;
        grow(d_temp_, cap_temp_);
    }
    temp_sized_for_bins_ = nbins;
}

template <int D>
NeighbourView<D> CudaNeighbourBuilder<D>::build(const Vec<D>* d_positions, std::uint32_t n,
                                                const GridSpec<D>& grid, float radius,
                                                OutsidePolicy policy, cudaStream_t stream,
                                                const BuildStageEvents* timing) {
    if (is_linked_list(construction_))
        throw std::logic_error("a linked-list build has no bin order: use build_view()");
    enqueue(d_positions, n, grid, radius, policy, true, stream, timing);
    return view();
}

template <int D>
AnyNeighbourView<D> CudaNeighbourBuilder<D>::build_view(const Vec<D>* d_positions, std::uint32_t n,
                                                        const GridSpec<D>& grid, float radius,
                                                        OutsidePolicy policy, Layout layout,
                                                        cudaStream_t stream,
                                                        const BuildStageEvents* timing) {
    const bool indexed = layout == Layout::index || is_linked_list(construction_);
    enqueue(d_positions, n, grid, radius, policy, !indexed, stream, timing);
    const auto lists = [&](auto v) {
        v.set_search(grid_, radius_);
        v.heads = d_pbm_;
        v.positions = d_positions;
        v.binned = d_pbm_ + grid_.bin_count();
        return v;
    };
    if (construction_ == Construction::linked_list) {
        LinkedListView<D> v = lists(LinkedListView<D>{});
        v.next = d_key_;
        return v;
    }
    if (construction_ == Construction::linked_list_packed) {
        PackedLinkedListView<D> v = lists(PackedLinkedListView<D>{});
        v.nodes = d_nodes_;
        return v;
    }
    if (construction_ == Construction::linked_list_tight) {
        TightLinkedListView<D> v = lists(TightLinkedListView<D>{});
        v.next = d_key_;
        return v;
    }
    if (indexed) {
        IndexedNeighbourView<D> v;
        v.set_search(grid_, radius_);
        v.pbm = d_pbm_;
        v.permutation = d_perm_;
        v.positions = d_positions;
        return v;
    }
    return view();
}

template <int D>
void CudaNeighbourBuilder<D>::enqueue(const Vec<D>* d_positions, std::uint32_t n,
                                      const GridSpec<D>& grid, float radius, OutsidePolicy policy,
                                      bool write_sorted, cudaStream_t stream,
                                      const BuildStageEvents* timing) {
    const std::uint32_t nbins = grid.bin_count();
    if (construction_ == Construction::linked_list_tight) // refused before anything changes
        detail::check_tight_build(grid, radius, n);
    reserve(n, nbins); // no-op in a steady state
    grid_ = grid;
    radius_ = radius;
    n_ = n;
    const int items = static_cast<int>(nbins) + 2;
    Vec<D>* sorted = write_sorted ? d_sorted_ : nullptr;

    if (is_linked_list(construction_)) {
        record(timing, 0, stream);
        SLUICE_CUDA_CHECK(cudaMemsetAsync(d_pbm_, 0xFF, nbins * sizeof(std::uint32_t), stream));
        SLUICE_CUDA_CHECK(cudaMemsetAsync(d_pbm_ + nbins, 0, sizeof(std::uint32_t), stream));
        record(timing, 1, stream);
        if (n > 0 && construction_ == Construction::linked_list) {
            link_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(
                d_positions, n, grid, policy, d_pbm_, d_key_, d_pbm_ + nbins);
            SLUICE_CUDA_CHECK_LAUNCH();
        } else if (n > 0 && construction_ == Construction::linked_list_packed) {
            link_packed_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(
                d_positions, n, grid, policy, d_pbm_, d_nodes_, d_pbm_ + nbins);
            SLUICE_CUDA_CHECK_LAUNCH();
        } else if (n > 0) {
            link_tight_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(
                d_positions, n, grid, 0.5f * radius, policy, d_pbm_, d_key_, d_pbm_ + nbins);
            SLUICE_CUDA_CHECK_LAUNCH();
        }
        record(timing, 2, stream);
    } else if (construction_ == Construction::counting_sort) {
        record(timing, 0, stream);
        SLUICE_CUDA_CHECK(cudaMemsetAsync(d_counts_, 0, items * sizeof(std::uint32_t), stream));
        record(timing, 1, stream);
        if (n > 0) {
            histogram_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(
                d_positions, n, grid, policy, d_counts_, d_key_);
            SLUICE_CUDA_CHECK_LAUNCH();
        }
        record(timing, 2, stream);
        // counts[nbins] holds the excluded particles, so pbm[nbins] = binned count and
        // pbm[nbins + 1] = n (the extra entry is not part of the view).
        std::size_t temp_bytes = cap_temp_;
        SLUICE_CUDA_CHECK(
            cub::DeviceScan::ExclusiveSum(d_temp_, temp_bytes, d_counts_, d_pbm_, items, stream));
        record(timing, 3, stream);
        if (n > 0) {
            scatter_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(
                d_positions, n, grid, policy, d_pbm_, d_key_, sorted, d_perm_);
            SLUICE_CUDA_CHECK_LAUNCH();
        }
        record(timing, 4, stream);
    } else {
        record(timing, 0, stream);
        if (n > 0) {
            keys_kernel<D><<<blocks_for(n), block_size, 0, stream>>>(d_positions, n, grid, policy,
                                                                     d_key_, d_index_);
            SLUICE_CUDA_CHECK_LAUNCH();
        }
        record(timing, 1, stream);
        if (n > 0) {
            std::size_t temp_bytes = cap_temp_;
            SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                d_temp_, temp_bytes, d_key_, d_key_out_, d_index_, d_perm_, static_cast<int>(n), 0,
                key_bits(nbins), stream));
        }
        record(timing, 2, stream);
        boundaries_kernel<D><<<blocks_for(std::uint64_t{n} + 1), block_size, 0, stream>>>(
            d_key_out_, d_perm_, d_positions, n, nbins, d_pbm_, sorted);
        SLUICE_CUDA_CHECK_LAUNCH();
        record(timing, 3, stream);
    }
}

template <int D>
NeighbourView<D> CudaNeighbourBuilder<D>::view() const {
    NeighbourView<D> v;
    v.set_search(grid_, radius_);
    v.pbm = d_pbm_;
    v.positions = d_sorted_;
    return v;
}

template <int D>
std::size_t CudaNeighbourBuilder<D>::device_bytes() const {
    std::size_t per_particle =
        sizeof(Vec<D>) +
        sizeof(std::uint32_t) * (construction_ == Construction::radix_sort ? 4 : 2);
    if (construction_ == Construction::linked_list)
        per_particle = sizeof(std::uint32_t);
    else if (construction_ == Construction::linked_list_packed)
        per_particle = sizeof(PackedListNode);
    else if (construction_ == Construction::linked_list_tight)
        per_particle = sizeof(std::uint32_t) * TightLinkedListView<D>::slots_per_particle;
    const std::size_t per_bin =
        sizeof(std::uint32_t) * (construction_ == Construction::counting_sort ? 2 : 1);
    return cap_n_ * per_particle + cap_bins_ * per_bin + cap_temp_;
}

template <int D>
int CudaNeighbourBuilder<D>::stage_count(Construction construction) {
    switch (construction) {
    case Construction::counting_sort:
        return 4;
    case Construction::radix_sort:
        return 3;
    case Construction::linked_list:
    case Construction::linked_list_packed:
    case Construction::linked_list_tight:
        return 2;
    }
    return 0;
}

template <int D>
const char* CudaNeighbourBuilder<D>::stage_name(Construction construction, int stage) {
    static const char* const counting[] = {"clear", "histogram", "scan", "scatter"};
    static const char* const radix[] = {"keys", "sort", "pbm+gather"};
    static const char* const linked[] = {"clear", "link"};
    if (stage < 0 || stage >= stage_count(construction))
        throw std::out_of_range("no such construction stage");
    if (is_linked_list(construction))
        return linked[stage];
    return construction == Construction::counting_sort ? counting[stage] : radix[stage];
}

template class CudaNeighbourBuilder<2>;
template class CudaNeighbourBuilder<3>;

} // namespace sluice
