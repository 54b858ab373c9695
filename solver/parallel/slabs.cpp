// Slab cuts (slabs.h): by particle count at the start, by measured time when balancing.

#include "parallel/slabs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace sluice {

namespace {

/// The fewest bins a slab may span: twice the halo, so a particle is sent to one neighbour at
/// most and halos come from the two neighbouring slabs only.
std::int64_t min_bins_per_slab(const SlabDecomposition& s) {
    return static_cast<std::int64_t>(std::ceil(2.0 * s.halo_width / s.bin - 1e-9));
}

/// Faces at the bin columns where the running sum of `weights` (one per column) reaches each
/// k/ranks of its total, each slab at least `min_bins` columns and the last one more than that.
std::vector<std::int64_t> cut_columns(const std::vector<double>& weights, int ranks,
                                      std::int64_t min_bins) {
    const std::int64_t columns = static_cast<std::int64_t>(weights.size());
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<std::int64_t> cuts(static_cast<std::size_t>(ranks) + 1, 0);
    cuts[static_cast<std::size_t>(ranks)] = columns;
    double running = 0.0;
    std::int64_t column = 0;
    for (int k = 1; k < ranks; ++k) {
        const double target = total * k / ranks;
        while (column < columns &&
               running + 0.5 * weights[static_cast<std::size_t>(column)] < target)
            running += weights[static_cast<std::size_t>(column++)];
        const std::int64_t lowest = cuts[static_cast<std::size_t>(k) - 1] + min_bins;
        const std::int64_t highest = columns - (ranks - k) * min_bins - 1;
        cuts[static_cast<std::size_t>(k)] = std::clamp(column, lowest, highest);
        while (column < cuts[static_cast<std::size_t>(k)])
            running += weights[static_cast<std::size_t>(column++)];
    }
    return cuts;
}

/// The first slab between `cuts` with no weight, or −1: a process never owns an empty slab.
int first_empty_slab(const std::vector<double>& weights, const std::vector<std::int64_t>& cuts) {
    for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
        double total = 0.0;
        for (std::int64_t c = cuts[r]; c < cuts[r + 1]; ++c)
            total += weights[static_cast<std::size_t>(c)];
        if (!(total > 0.0))
            return static_cast<int>(r);
    }
    return -1;
}

} // namespace

std::int64_t bin_columns(const SlabDecomposition& s) {
    return std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil((s.faces.back() - s.faces.front()) / s.bin - 1e-9)));
}

double SlabDecomposition::lower(int r) const {
    return r == 0 ? -std::numeric_limits<double>::infinity() : faces[static_cast<std::size_t>(r)];
}

double SlabDecomposition::upper(int r) const {
    return r + 1 == ranks() ? std::numeric_limits<double>::infinity()
                            : faces[static_cast<std::size_t>(r) + 1];
}

int SlabDecomposition::rank_of(double x) const {
    const auto it = std::upper_bound(faces.begin() + 1, faces.end() - 1, x);
    return static_cast<int>(it - (faces.begin() + 1));
}

std::vector<std::int64_t> SlabDecomposition::face_bins() const {
    std::vector<std::int64_t> out;
    for (int k = 1; k < ranks(); ++k)
        out.push_back(std::llround((faces[static_cast<std::size_t>(k)] - faces.front()) / bin));
    return out;
}

std::string axis_name(int dimension, int axis) {
    if (dimension == 2)
        return axis == 0 ? "x" : "z";
    return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

SlabDecomposition slabs_with_faces(int axis, std::vector<double> faces, double bin,
                                   double search_radius, double ghost_reach) {
    SlabDecomposition s;
    s.axis = axis;
    s.bin = bin;
    s.max_step_move = search_radius / 16.0;
    s.halo_width = search_radius + 2.0 * s.max_step_move + ghost_reach;
    s.faces = std::move(faces);
    return s;
}

SlabDecomposition balanced_slabs(const std::vector<float>& coordinates,
                                 const std::vector<float>& weights, int dimension, int axis,
                                 double domain_min, double domain_max, double bin,
                                 double search_radius, int ranks, double ghost_reach) {
    SlabDecomposition s =
        slabs_with_faces(axis, {domain_min, domain_max}, bin, search_radius, ghost_reach);
    const std::int64_t columns = bin_columns(s);
    const std::int64_t min_bins = min_bins_per_slab(s);
    if (ranks < 1 || columns <= ranks * min_bins) {
        std::ostringstream msg;
        msg << ranks << " processes need " << ranks << " slabs along " << axis_name(dimension, axis)
            << " (the domain's longest axis, " << domain_max - domain_min << " m) of at least "
            << min_bins * bin << " m each (twice the halo width " << s.halo_width
            << " m, in bins of " << bin << " m): at most "
            << std::max<std::int64_t>(1, (columns - 1) / min_bins)
            << " process(es) fit this domain";
        throw std::invalid_argument(msg.str());
    }
    std::vector<double> column_weights(static_cast<std::size_t>(columns), 0.0);
    for (std::size_t i = 0; i < coordinates.size(); ++i) {
        const auto c = static_cast<std::int64_t>(std::floor((coordinates[i] - domain_min) / bin));
        column_weights[static_cast<std::size_t>(std::clamp<std::int64_t>(c, 0, columns - 1))] +=
            weights.empty() ? 1.0 : static_cast<double>(weights[i]);
    }
    const std::vector<std::int64_t> cuts = cut_columns(column_weights, ranks, min_bins);
    if (const int empty = first_empty_slab(column_weights, cuts); empty >= 0) {
        std::ostringstream msg;
        msg << ranks << " processes: slab " << empty << " along " << axis_name(dimension, axis)
            << " would hold no particles (every slab is at least " << min_bins * bin
            << " m wide and the particles fill too little of the domain); use fewer processes";
        throw std::invalid_argument(msg.str());
    }
    s.faces.assign(static_cast<std::size_t>(ranks) + 1, domain_min);
    for (int k = 1; k < ranks; ++k)
        s.faces[static_cast<std::size_t>(k)] =
            domain_min + static_cast<double>(cuts[static_cast<std::size_t>(k)]) * bin;
    s.faces.back() = domain_max;
    return s;
}

SlabDecomposition rebalanced_slabs(const SlabDecomposition& slabs,
                                   const std::vector<double>& seconds,
                                   const std::vector<double>& work_per_bin, double tolerance) {
    const int ranks = slabs.ranks();
    const double mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / ranks;
    const double slowest = *std::max_element(seconds.begin(), seconds.end());
    if (ranks < 2 || !(mean > 0.0) || slowest <= (1.0 + tolerance) * mean)
        return slabs;
    // Each column costs its estimated work times its owner's measured time per unit of work.
    const std::int64_t columns = static_cast<std::int64_t>(work_per_bin.size());
    const std::vector<std::int64_t> old_cuts = [&] {
        std::vector<std::int64_t> c{0};
        for (const std::int64_t f : slabs.face_bins())
            c.push_back(f);
        c.push_back(columns);
        return c;
    }();
    std::vector<double> weights(static_cast<std::size_t>(columns), 0.0);
    for (int r = 0; r < ranks; ++r) {
        const auto first = static_cast<std::size_t>(old_cuts[static_cast<std::size_t>(r)]);
        const auto last = static_cast<std::size_t>(old_cuts[static_cast<std::size_t>(r) + 1]);
        double work = 0.0;
        for (std::size_t c = first; c < last; ++c)
            work += work_per_bin[c];
        const double per_work = work > 0.0 ? seconds[static_cast<std::size_t>(r)] / work : 0.0;
        for (std::size_t c = first; c < last; ++c)
            weights[c] = per_work * work_per_bin[c];
    }
    const std::int64_t min_bins = min_bins_per_slab(slabs);
    std::vector<std::int64_t> cuts = cut_columns(weights, ranks, min_bins);
    // Faces move part of the way, all by the same fraction: the cut stays valid (a convex
    // combination of two valid cuts, floored, keeps every slab min_bins wide) and no face moves
    // by min_bins or more, so that a particle changes owner to a neighbouring rank at most
    // (migration talks to neighbours only).
    std::int64_t largest = 0;
    for (int k = 1; k < ranks; ++k)
        largest = std::max(largest, std::abs(cuts[static_cast<std::size_t>(k)] -
                                             old_cuts[static_cast<std::size_t>(k)]));
    if (largest == 0)
        return slabs;
    const double fraction = std::min(1.0, static_cast<double>(min_bins - 1) / largest);
    for (int k = 1; k < ranks; ++k) {
        const double old = static_cast<double>(old_cuts[static_cast<std::size_t>(k)]);
        cuts[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(std::floor(
            old + fraction * (static_cast<double>(cuts[static_cast<std::size_t>(k)]) - old)));
    }
    if (first_empty_slab(work_per_bin, cuts) >= 0)
        return slabs; // a process never owns an empty slab
    SlabDecomposition out = slabs;
    for (int k = 1; k < ranks; ++k)
        out.faces[static_cast<std::size_t>(k)] =
            slabs.faces.front() +
            static_cast<double>(cuts[static_cast<std::size_t>(k)]) * slabs.bin;
    return out;
}

} // namespace sluice
