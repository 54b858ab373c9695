#pragma once
/// \file cuda_builder.h
/// Device-side construction of the bin order and PBM (DESIGN.md, thesis ch. 2.5, 4), or of the
/// linked-list grids (Barbieri et al.; list_views.h): the CUDA builders `counting-sort`,
/// `radix-sort`, `linked-list`, `linked-list-packed` and `linked-list-tight`. Plain C++ header (no
/// device code), so host code of the solver can own a builder; queries run in kernels through
/// for_each_neighbour (query.h).
///
/// Typical use in a solver step (all on one stream, no host synchronisation):
///
///     CudaNeighbourBuilder<3> builder(Construction::counting_sort);
///     builder.reserve(n_max, grid.bin_count());      // once: all allocation happens here
///     ...
///     NeighbourView<3> view = builder.build(d_pos, n, grid, radius, OutsidePolicy::exclude, s);
///     gather(s, builder.d_permutation(), n, GatherPair<Vec<3>>{d_vel, d_vel_sorted}, ...);
///     my_kernel<StripsQuery><<<blocks, threads, 0, s>>>(view, ...);   // for_each_neighbour

#include "grid.h"
#include "module.h"
#include "query.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sluice {

/// Events for timing the stages of a build (benchmarks). When build() gets one, it records
/// events[s] before stage s and events[stage_count] after the last stage, on the build's stream.
struct BuildStageEvents {
    static constexpr int max_stages = 4;
    cudaEvent_t events[max_stages + 1] = {};
};

/// Builds the bin order and PBM of n device positions on a CUDA stream.
///
/// - counting_sort (thesis ch. 4.3): clear the histogram; one pass computes each particle's key
///   and takes its offset within its bin from an atomic increment (one atomic per run of equal
///   keys in a warp, so input already in bin order costs few atomics); CUB
///   DeviceScan::ExclusiveSum → PBM; scatter of positions and indices to pbm[key] + offset.
/// - radix_sort (thesis ch. 2.5.2, the baseline): keys and indices; CUB
///   DeviceRadixSort::SortPairs over the minimal number of key bits; one kernel that detects bin
///   boundaries (→ PBM, empty bins included) and gathers the positions.
/// - linked_list (Barbieri et al. §2): clear the heads; one kernel in which every particle
///   swaps itself into its bin's head with atomicExch and keeps the old head as its next.
/// - linked_list_packed: the same, writing next into a 16-byte node beside a copy of the
///   position; linked_list_tight: every particle links an entry into each bin its box of edge
///   R touches (list_views.h), one atomicExch each.
///
/// The order within a bin is not specified (atomics); the PBM is, and equals the CPU builder's.
/// Positions outside the grid box follow `policy` exactly as CpuNeighbourBuilder does (clamped
/// into edge bins, or excluded: sorted after every binned particle, pbm[nbins] = binned count).
///
/// Device buffers persist across builds and only grow; CUB temporary storage is sized with its
/// nullptr call. After reserve(n, nbins) no build of at most n particles and nbins bins
/// allocates, and no build synchronises with the host (a build can be captured in a CUDA graph).
/// Not thread-safe; one builder per stream.
template <int D>
class CudaNeighbourBuilder {
public:
    explicit CudaNeighbourBuilder(Construction construction = Construction::counting_sort);
    ~CudaNeighbourBuilder();
    CudaNeighbourBuilder(const CudaNeighbourBuilder&) = delete;
    CudaNeighbourBuilder& operator=(const CudaNeighbourBuilder&) = delete;
    CudaNeighbourBuilder(CudaNeighbourBuilder&& other) noexcept;
    CudaNeighbourBuilder& operator=(CudaNeighbourBuilder&& other) noexcept;

    /// Grows the device buffers so that builds of up to n particles over up to nbins bins need
    /// no allocation. Synchronous (cudaMalloc); call it outside the time step.
    /// \throws std::length_error if nbins + 2 does not fit in an int (CUB's item count);
    ///         CudaError if an allocation fails.
    void reserve(std::uint32_t n, std::uint32_t nbins);

    /// Enqueues a build of d_positions[0, n) (device memory, not modified, must stay valid until
    /// the stream has run the build) on `stream` and returns the view of the result: grid, PBM
    /// (grid.bin_count() + 1 entries) and the positions in bin order, all device pointers, valid
    /// until the next build. Grows the buffers first if they are too small (reserve()).
    /// `timing` (optional) records stage events; see BuildStageEvents.
    /// \throws CudaError on a failed launch (asynchronous errors surface at the next check).
    NeighbourView<D> build(const Vec<D>* d_positions, std::uint32_t n, const GridSpec<D>& grid,
                           float radius, OutsidePolicy policy, cudaStream_t stream,
                           const BuildStageEvents* timing = nullptr);

    /// As build(), for any module: Layout::reorder of a PBM construction returns build()'s
    /// NeighbourView; Layout::index returns an IndexedNeighbourView over d_positions (which must
    /// then stay valid and unchanged while the view is queried) and writes no sorted copy; a
    /// linked list returns its view (LinkedListView, PackedLinkedListView or
    /// TightLinkedListView) over d_positions, whatever the layout.
    /// \throws std::invalid_argument (linked-list-tight) where !tight_grid_supported(grid,
    ///         radius); std::length_error where n particles' tight entries overflow 32 bits.
    AnyNeighbourView<D> build_view(const Vec<D>* d_positions, std::uint32_t n,
                                   const GridSpec<D>& grid, float radius, OutsidePolicy policy,
                                   Layout layout, cudaStream_t stream,
                                   const BuildStageEvents* timing = nullptr);

    /// The view of the last build (a PBM construction's, Layout::reorder).
    NeighbourView<D> view() const;
    /// Device pointer to the number of binned particles of the last build (pbm[nbins], or the
    /// linked list's count).
    const std::uint32_t* d_binned_count() const { return d_pbm_ + grid_.bin_count(); }
    /// d_permutation()[k] = input index of the particle at bin-order position k (n entries):
    /// gather every particle array with it (cuda_gather.cuh) to follow the bin order. Null for a
    /// linked-list builder.
    const std::uint32_t* d_permutation() const { return d_perm_; }
    /// The PBM of the last build (bin_count() + 1 entries, device memory).
    const std::uint32_t* d_pbm() const { return d_pbm_; }
    /// Positions in bin order (n entries; excluded ones at the end, in unspecified order).
    /// Mutable so that a solver may adopt them as its bin-ordered position array.
    Vec<D>* d_sorted_positions() { return d_sorted_; }
    const Vec<D>* d_sorted_positions() const { return d_sorted_; }
    /// Number of particles of the last build (binned and excluded).
    std::uint32_t size() const { return n_; }
    Construction construction() const { return construction_; }

    /// Device memory held (bytes).
    std::size_t device_bytes() const;
    /// Number of device allocations made so far: constant in a steady state.
    std::uint64_t allocation_count() const { return allocations_; }

    /// Stages of a construction, for timing: 4 for counting_sort (clear, histogram, scan,
    /// scatter), 3 for radix_sort (keys, sort, pbm+gather), 2 for the linked lists (clear,
    /// link).
    static int stage_count(Construction construction);
    static const char* stage_name(Construction construction, int stage);

private:
    void release() noexcept;
    /// The build itself; write_sorted = false leaves the sorted positions unwritten (index).
    void enqueue(const Vec<D>* d_positions, std::uint32_t n, const GridSpec<D>& grid, float radius,
                 OutsidePolicy policy, bool write_sorted, cudaStream_t stream,
                 const BuildStageEvents* timing);
    template <class T>
    void grow(T*& buffer, std::size_t count); ///< frees and allocates count elements

    Construction construction_;
    GridSpec<D> grid_{};
    float radius_ = 0.0f;
    std::uint32_t n_ = 0;
    std::uint64_t allocations_ = 0;

    // Capacities in elements (bytes for the CUB temporary storage).
    std::size_t cap_n_ = 0, cap_bins_ = 0, cap_temp_ = 0;
    Vec<D>* d_sorted_ = nullptr;         ///< cap_n_: positions in bin order
    std::uint32_t* d_perm_ = nullptr;    ///< cap_n_: bin order → input index
    std::uint32_t* d_key_ = nullptr;     ///< cap_n_: counting: offset in bin; radix: input keys;
                                         ///< linked-list: next; tight: cap_n_ · 4^D entries' next
    PackedListNode* d_nodes_ = nullptr;  ///< cap_n_: linked-list-packed only: the nodes
    std::uint32_t* d_key_out_ = nullptr; ///< cap_n_: radix only: sorted keys
    std::uint32_t* d_index_ = nullptr;   ///< cap_n_: radix only: 0..n-1, the sort's values
    std::uint32_t* d_counts_ = nullptr;  ///< cap_bins_ = nbins + 2: counting only: histogram
    std::uint32_t* d_pbm_ = nullptr;     ///< cap_bins_ = nbins + 2 (the last: excluded count);
                                         ///< linked-list: heads, then the listed count
    unsigned char* d_temp_ = nullptr;    ///< cap_temp_ bytes of CUB temporary storage
    std::uint32_t temp_sized_for_bins_ = 0;
};

} // namespace sluice
