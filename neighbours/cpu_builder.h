#pragma once
/// \file cpu_builder.h
/// Host-side neighbour structure builder for the CPU backend (and the reference PBM the CUDA
/// builders are tested against).

#include "grid.h"
#include "module.h"
#include "query.h"

#include <cstdint>
#include <vector>

namespace sluice {

/// Builds the bin order and PBM (or the linked lists) on the host. Buffers persist across builds
/// and only grow.
///
/// The PBM constructions give the same, stable order (particles of a bin keep their input
/// order), so results are deterministic:
/// - counting_sort: histogram that records each particle's offset within its bin, exclusive
///   scan → PBM, scatter to pbm[bin] + offset (thesis ch. 4.3; run serially: the order within a
///   bin is then the input order, which an atomic histogram would not give);
/// - radix_sort: std::stable_sort of (bin key, index) pairs, then boundary detection;
/// - linked_list: serially, each particle becomes its bin's head and links to the old one
///   (Barbieri et al. §2); no PBM, no permutation, no sorted copy. Deterministic too.
/// - linked_list_packed: the same lists, next stored in a node beside a copy of the position.
/// - linked_list_tight: serially, each particle's entries (one per bin its box touches, in bin
///   order) become their bins' heads (list_views.h).
template <int D>
class CpuNeighbourBuilder {
public:
    explicit CpuNeighbourBuilder(Construction construction = Construction::counting_sort)
        : construction_(construction) {}

    /// Bins n positions. With OutsidePolicy::exclude, positions outside the grid box are placed
    /// after all binned ones (in input order) and pbm[nbins] counts only the binned ones.
    void build(const Vec<D>* positions, std::uint32_t n, const GridSpec<D>& grid, float radius,
               OutsidePolicy policy = OutsidePolicy::clamp);

    /// The view over the sorted positions (Layout::reorder); valid until the next build.
    /// \throws std::logic_error for a linked-list build.
    NeighbourView<D> view() const;
    /// The PBM, the permutation and the input positions (Layout::index): valid until the next
    /// build while the positions passed to build() live. \throws std::logic_error (linked-list).
    IndexedNeighbourView<D> indexed_view() const;
    /// The lists and the input positions: a linked-list build only (else std::logic_error).
    LinkedListView<D> linked_list_view() const;
    /// The packed lists (linked-list-packed build only, else std::logic_error).
    PackedLinkedListView<D> packed_list_view() const;
    /// The tight lists and the input positions (linked-list-tight build only, else
    /// std::logic_error).
    TightLinkedListView<D> tight_list_view() const;
    /// The view a module (construction, layout) queries: those above by construction and layout
    /// (a linked list is always indexed).
    AnyNeighbourView<D> view(Layout layout) const;

    /// permutation()[k] = input index of the particle at bin-order position k (size n).
    const std::vector<std::uint32_t>& permutation() const { return permutation_; }
    /// The PBM: bin_count()+1 entries.
    const std::vector<std::uint32_t>& pbm() const { return pbm_; }
    /// Positions in bin order (size n, excluded ones at the end).
    const std::vector<Vec<D>>& sorted_positions() const { return sorted_; }
    /// Number of binned particles (= pbm[nbins], or the particles in the lists).
    std::uint32_t binned_count() const { return binned_; }
    /// The lists of a linked-list build: heads (bin_count() entries) and next (n; a tight
    /// build's: TightLinkedListView::slots_per_particle per particle, indexed by entry). A
    /// packed build's next is in its nodes.
    const std::vector<std::uint32_t>& heads() const { return heads_; }
    const std::vector<std::uint32_t>& next() const { return next_; }
    const std::vector<PackedListNode>& nodes() const { return nodes_; }
    Construction construction() const { return construction_; }

private:
    /// The lists of the three linked-list constructions (keys_ already computed).
    void build_lists(const Vec<D>* positions, std::uint32_t n, const GridSpec<D>& grid,
                     float radius);
    /// A list view's common fields; \throws std::logic_error unless built by `built_by`.
    template <class ViewT>
    ViewT list_view(Construction built_by) const;

    Construction construction_;
    GridSpec<D> grid_{};
    float radius_ = 0.0f;
    std::vector<std::uint32_t> keys_;    ///< bin per input particle (nbins = excluded)
    std::vector<std::uint32_t> offsets_; ///< counting sort: offset within the bin
    std::vector<std::uint32_t> permutation_;
    std::vector<std::uint32_t> pbm_;
    std::vector<Vec<D>> sorted_;
    std::vector<std::uint32_t> heads_, next_; ///< linked lists
    std::vector<PackedListNode> nodes_;       ///< linked_list_packed
    std::uint32_t binned_ = 0;
    const Vec<D>* input_ = nullptr; ///< the positions of the last build (index views read them)
};

/// Brute-force reference, O(n) per query point, for tests only: the sorted input indices j with
/// neighbour_distance2(x − positions[j]) < radius * radius (the same float ops as the query).
template <int D>
std::vector<std::uint32_t> brute_force_neighbours(const Vec<D>* positions, std::uint32_t n,
                                                  const Vec<D>& x, float radius);

} // namespace sluice
