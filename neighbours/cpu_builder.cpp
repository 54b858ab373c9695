#include "cpu_builder.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
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

    if (construction_ == Construction::linked_list) {
        // Barbieri et al. §2, serially: each particle becomes its bin's head and links to the
        // old head (the atomic exchange of the GPU version). Lists run in falling input order.
        heads_.assign(nbins, LinkedListView<D>::list_end);
        next_.resize(n);
        binned_ = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (keys_[i] == nbins) {
                next_[i] = LinkedListView<D>::list_end;
                continue;
            }
            next_[i] = std::exchange(heads_[keys_[i]], i);
            ++binned_;
        }
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
NeighbourView<D> CpuNeighbourBuilder<D>::view() const {
    if (construction_ == Construction::linked_list)
        throw std::logic_error("a linked-list build has no bin order: use linked_list_view()");
    NeighbourView<D> v;
    v.set_search(grid_, radius_);
    v.pbm = pbm_.data();
    v.positions = sorted_.data();
    return v;
}

template <int D>
IndexedNeighbourView<D> CpuNeighbourBuilder<D>::indexed_view() const {
    if (construction_ == Construction::linked_list)
        throw std::logic_error("a linked-list build has no PBM: use linked_list_view()");
    IndexedNeighbourView<D> v;
    v.set_search(grid_, radius_);
    v.pbm = pbm_.data();
    v.permutation = permutation_.data();
    v.positions = input_;
    return v;
}

template <int D>
LinkedListView<D> CpuNeighbourBuilder<D>::linked_list_view() const {
    if (construction_ != Construction::linked_list)
        throw std::logic_error("only a linked-list build has lists");
    LinkedListView<D> v;
    v.set_search(grid_, radius_);
    v.heads = heads_.data();
    v.next = next_.data();
    v.positions = input_;
    v.binned = &binned_;
    return v;
}

template <int D>
AnyNeighbourView<D> CpuNeighbourBuilder<D>::view(Layout layout) const {
    if (construction_ == Construction::linked_list)
        return linked_list_view();
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
