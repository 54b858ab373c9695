#include "cpu_builder.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace sluice {

template <int D>
void CpuNeighbourBuilder<D>::build(const Vec<D>* positions, std::uint32_t n,
                                   const GridSpec<D>& grid, float radius, OutsidePolicy policy) {
    grid_ = grid;
    radius_ = radius;
    input_ = positions;
    const std::uint32_t nbins = grid.bin_count();

    // Key nbins (excluded) sorts after every real bin.
    keys_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i)
        keys_[i] = bin_key(grid, positions[i], policy);

    if (is_linked_list(construction_)) {
        build_lists(positions, n, grid, radius);
        permutation_.clear();
        pbm_.clear();
        sorted_.clear();
        return;
    }

    permutation_.resize(n);
    // One extra counter for the excluded particles; pbm_ keeps nbins + 1 entries.
    std::vector<std::uint32_t>& counts = pbm_;
    counts.assign(static_cast<std::size_t>(nbins) + 2, 0u);

    if (construction_ == Construction::counting_sort) {
        // Histogram with offsets (thesis Fig. 4.2: the atomic increment returns the offset).
        offsets_.resize(n);
        for (std::uint32_t i = 0; i < n; ++i)
            offsets_[i] = counts[keys_[i]]++;
        // Exclusive scan over nbins + 1 counters → first index of each bin.
        std::exclusive_scan(counts.begin(), counts.end(), counts.begin(), 0u);
        for (std::uint32_t i = 0; i < n; ++i)
            permutation_[counts[keys_[i]] + offsets_[i]] = i;
    } else {
        std::iota(permutation_.begin(), permutation_.end(), 0u);
        std::stable_sort(permutation_.begin(), permutation_.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return keys_[a] < keys_[b]; });
        // Boundary detection: bin b starts at the first sorted key ≥ b; empty bins take the next
        // start, so first fill every start with n and then write starts of present keys.
        std::fill(counts.begin(), counts.end(), n);
        for (std::uint32_t k = n; k-- > 0;) {
            const std::uint32_t key = keys_[permutation_[k]];
            if (k == 0 || keys_[permutation_[k - 1]] != key)
                counts[key] = k;
        }
        // Empty bins: start = start of the next non-empty bin (scan from the back).
        for (std::uint32_t b = nbins + 1; b-- > 0;)
            counts[b] = std::min(counts[b], counts[b + 1]);
    }
    pbm_.resize(static_cast<std::size_t>(nbins) + 1); // drop the excluded counter's end
    binned_ = pbm_.back();

    sorted_.resize(n);
    for (std::uint32_t k = 0; k < n; ++k)
        sorted_[k] = positions[permutation_[k]];
}

template <int D>
void CpuNeighbourBuilder<D>::build_lists(const Vec<D>* positions, std::uint32_t n,
                                         const GridSpec<D>& grid, float radius) {
    const std::uint32_t nbins = grid.bin_count();
    constexpr std::uint32_t end = LinkedListView<D>::list_end;
    heads_.assign(nbins, end);
    binned_ = 0;
    nodes_.clear();
    if (construction_ == Construction::linked_list_tight) {
        using View = TightLinkedListView<D>;
        detail::check_tight_build(grid, radius, n);
        next_.assign(static_cast<std::size_t>(n) * View::slots_per_particle, end);
        const float half = 0.5f * radius;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (keys_[i] == nbins)
                continue;
            ++binned_;
            int lo[D], hi[D];
            for (int k = 0; k < D; ++k)
                detail::tight_axis_bins(grid, positions[i][k], half, k, lo[k], hi[k]);
            detail::for_each_tight_bin<D>(lo, hi, [&](const int(&b)[D], std::uint32_t offsets) {
                const std::uint32_t entry = (i << View::entry_shift) | offsets;
                next_[entry] = std::exchange(heads_[grid.linear_bin(b)], entry);
            });
        }
        return;
    }
    // Barbieri et al. §2, serially: each particle becomes its bin's head and links to the old
    // head (the atomic exchange of the GPU version). Lists run in falling input order.
    next_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        next_[i] = keys_[i] == nbins ? end : std::exchange(heads_[keys_[i]], i);
        binned_ += keys_[i] == nbins ? 0 : 1;
    }
    if (construction_ == Construction::linked_list_packed) {
        nodes_.resize(n);
        for (std::uint32_t i = 0; i < n; ++i)
            nodes_[i] = detail::pack_node(positions[i], next_[i]);
        next_.clear(); // in the nodes
    }
}

template <int D>
NeighbourView<D> CpuNeighbourBuilder<D>::view() const {
    if (is_linked_list(construction_))
        throw std::logic_error("a linked-list build has no bin order: use view(Layout)");
    NeighbourView<D> v;
    v.set_search(grid_, radius_);
    v.pbm = pbm_.data();
    v.positions = sorted_.data();
    return v;
}

template <int D>
IndexedNeighbourView<D> CpuNeighbourBuilder<D>::indexed_view() const {
    if (is_linked_list(construction_))
        throw std::logic_error("a linked-list build has no PBM: use view(Layout)");
    IndexedNeighbourView<D> v;
    v.set_search(grid_, radius_);
    v.pbm = pbm_.data();
    v.permutation = permutation_.data();
    v.positions = input_;
    return v;
}

template <int D>
template <class ViewT>
ViewT CpuNeighbourBuilder<D>::list_view(Construction built_by) const {
    if (construction_ != built_by)
        throw std::logic_error("only a " + std::string(construction_name(built_by)) +
                               " build has these lists");
    ViewT v;
    v.set_search(grid_, radius_);
    v.heads = heads_.data();
    v.positions = input_;
    v.binned = &binned_;
    return v;
}

template <int D>
LinkedListView<D> CpuNeighbourBuilder<D>::linked_list_view() const {
    LinkedListView<D> v = list_view<LinkedListView<D>>(Construction::linked_list);
    v.next = next_.data();
    return v;
}

template <int D>
PackedLinkedListView<D> CpuNeighbourBuilder<D>::packed_list_view() const {
    PackedLinkedListView<D> v =
        list_view<PackedLinkedListView<D>>(Construction::linked_list_packed);
    v.nodes = nodes_.data();
    return v;
}

template <int D>
TightLinkedListView<D> CpuNeighbourBuilder<D>::tight_list_view() const {
    TightLinkedListView<D> v = list_view<TightLinkedListView<D>>(Construction::linked_list_tight);
    v.next = next_.data();
    return v;
}

template <int D>
AnyNeighbourView<D> CpuNeighbourBuilder<D>::view(Layout layout) const {
    if (construction_ == Construction::linked_list)
        return linked_list_view();
    if (construction_ == Construction::linked_list_packed)
        return packed_list_view();
    if (construction_ == Construction::linked_list_tight)
        return tight_list_view();
    if (layout == Layout::index)
        return indexed_view();
    return view();
}

template <int D>
std::vector<std::uint32_t> brute_force_neighbours(const Vec<D>* positions, std::uint32_t n,
                                                  const Vec<D>& x, float radius) {
    const float radius2 = radius * radius;
    std::vector<std::uint32_t> result;
    for (std::uint32_t j = 0; j < n; ++j)
        if (neighbour_distance2(x - positions[j]) < radius2)
            result.push_back(j);
    return result;
}

template class CpuNeighbourBuilder<2>;
template class CpuNeighbourBuilder<3>;
template std::vector<std::uint32_t> brute_force_neighbours<2>(const Vec<2>*, std::uint32_t,
                                                              const Vec<2>&, float);
template std::vector<std::uint32_t> brute_force_neighbours<3>(const Vec<3>*, std::uint32_t,
                                                              const Vec<3>&, float);

} // namespace sluice
