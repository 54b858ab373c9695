#pragma once
/// \file data_sets.h
/// The synthetic data sets neighbours_bench times the modules on: positions in a box, with the
/// search radius R = 1 and a density set by the target neighbour count. circles-0 and lattice are
/// made here; circles-200 is circles-0 after the Circles model's steps (circles_run.cuh).

#include "vec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::bench {

constexpr float search_radius = 1.0f;  ///< R; the Circles attraction radius r is R/2
constexpr float circles_force = 0.05f; ///< the Circles model's unified force k (thesis ch. 3.1.2)

/// Volume of the unit ball in `dim` (2 or 3) dimensions.
double ball_volume(int dim);

template <int D>
struct Dataset {
    std::string name; ///< "circles-0", "circles-200" or "lattice"
    std::vector<Vec<D>> positions;
    Vec<D> lo{}, hi{};    ///< the box the grid covers (units of R)
    float env_max = 0.0f; ///< Circles: positions are clamped to [0, env_max]
    std::string note;     ///< how it was made, for the report (may hold commas)
};

/// Circles start (thesis eq. 3.1): `n` points uniform random in [0, W)^D with W from the
/// neighbour count: N = n V_D R^D / W^D (the author's code floors W, which the anchors used:
/// 10^6 particles, N = 100 gives W = 34 and 106.6 neighbours in 3D).
template <int D>
Dataset<D> circles_start(std::uint32_t n, int neighbours, unsigned seed);

/// Jittered SPH lattice: spacing dp with N = V_D (R/dp)^D, m = round(n^(1/D)) per axis (so m^D
/// particles, not n), each particle moved by up to ±0.1 dp per axis.
template <int D>
Dataset<D> jittered_lattice(std::uint32_t n, int neighbours, unsigned seed);

} // namespace sluice::bench
