#pragma once
/// \file domain_grid.h
/// The case's domain as a neighbour grid (neighbours/grid.h): the one rule that the step plan,
/// the slab cut, the memory estimates and the tests use for "which bins cover Case::domain".

#include "case/case_model.h"
#include "case/state_conversion.h"
#include "neighbours/grid.h"

namespace sluice {

/// Bins of binWidth × `radius` (the search radius, m) over `box`, as the domain's grid is made
/// (the reader asks it of boxes that may become the domain).
/// \throws std::invalid_argument as make_grid: a box not finite in float, or too many bins.
template <int D>
GridSpec<D> box_grid(const Box& box, double radius, double bin_width) {
    return make_grid<D>(to_vec<D>(box.min), to_vec<D>(box.max), static_cast<float>(radius),
                        static_cast<float>(bin_width));
}

/// Bins of binWidth × `radius` (the search radius, m; `bin_width` overrides the case's module's)
/// over Case::domain: a particle outside it is excluded.
template <int D>
GridSpec<D> domain_grid(const Case& c, double radius, double bin_width) {
    return box_grid<D>(c.domain, radius, bin_width);
}

/// The same at the case's own bin width.
template <int D>
GridSpec<D> domain_grid(const Case& c, double radius) {
    return domain_grid<D>(c, radius, c.neighbours.bin_width);
}

} // namespace sluice
