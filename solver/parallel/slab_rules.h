#pragma once
/// \file slab_rules.h
/// Which neighbour an owned particle goes to at an exchange (DESIGN.md, Scale-out), written once
/// for both backends' Exchange passes: the CPU backend's loop (backends/cpu/exchange.cpp) and the
/// CUDA backend's classifying kernels (backends/cuda/slab_kernels.cuh) call these. Only
/// particles inside the domain are sent; the caller checks that (GridSpec::contains).

#include "neighbours/vec.h"

namespace sluice {

/// Where an owned particle is sent: nowhere, to the slab below or to the slab above.
enum class SlabSide : unsigned { none = 0, below = 1, above = 2 };

/// Migration: a particle at coordinate x (m, along the cut's axis) of the slab [lower, upper)
/// belongs to the slab it is in; a step moves it far less than a slab's width, so at most to a
/// neighbour.
SLUICE_HD inline SlabSide migration_side(double x, double lower, double upper) {
    if (x < lower)
        return SlabSide::below;
    if (x >= upper)
        return SlabSide::above;
    return SlabSide::none;
}

/// The halo: a particle within `width` (m) of a face is copied to the neighbour beyond it, where
/// there is one (has_below, has_above). Slabs are at least two halo widths wide (slabs.h), so
/// none goes both ways; below is asked first.
SLUICE_HD inline SlabSide halo_side(double x, double lower, double upper, double width,
                                    bool has_below, bool has_above) {
    if (has_below && x < lower + width)
        return SlabSide::below;
    if (has_above && x >= upper - width)
        return SlabSide::above;
    return SlabSide::none;
}

} // namespace sluice
