#pragma once
/// \file ghost_offsets.h
/// mDBC's ghost nodes as the backends use them (physics/mdbc.h): for every boundary particle, by
/// its id, the offset x_g − x_b from the particle to its ghost node, as a solver vector.

#include "case/case_model.h"
#include "neighbours/vec.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice {

/// The ghost offsets of case c's boundary particles, indexed by particle id (boundary ids are
/// 0 … boundary count − 1, case/particles.h): 2(s − x_b), s the particle's wall-surface point
/// (case/wall_normals.h). Zero — no ghost node, the particle keeps its density — for a particle
/// at least `search_radius` (m) under the surface (no fluid particle is within reach of it, so
/// its density is never read) and for one wall_ghosts found no surface for; `missing` counts
/// the latter. Every offset is thus shorter than 2·search_radius (parallel/slab_start.h's
/// ghost_node_reach).
template <int D>
std::vector<Vec<D>> ghost_offsets(const Case& c, double search_radius,
                                  std::size_t* missing = nullptr);

/// Snapshot::normal (io/snapshot.h) for the particles `ids` of a snapshot, from the ghost
/// offsets by id `offsets` (as ghost_offsets returns them): per particle the unit vector along
/// its offset as (x, y, z) (2D: y = 0); zero where the offset is zero (no ghost node) and for
/// ids past the offsets (fluid particles).
template <int D>
std::vector<std::array<float, 3>> wall_normals_of(const std::vector<Vec<D>>& offsets,
                                                  const std::vector<std::uint32_t>& ids);

} // namespace sluice
