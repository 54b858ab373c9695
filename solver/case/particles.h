#pragma once
/// \file particles.h
/// Initial particles of a case: positions on the dp lattice, types, hydrostatic densities.

#include "case/case_model.h"
#include "case/constants.h"
#include "io/snapshot.h"

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice {

/// The ids of one boundary object's particles: [first, first + count).
struct ObjectIds {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
};

/// The particles of a case at t = 0 (velocity 0). Index = particle id = generation order:
/// tank walls, then obstacles (in case order), then fluid boxes (in case order); boundary first,
/// as DualSPHysics.
struct ParticleSet {
    int dimension = 2;
    std::vector<Eigen::Vector3d> position; ///< m; in 2D y = 0
    std::vector<Eigen::Vector3d> velocity; ///< m/s at t = 0: the fluid region's; 0 for boundary
    std::vector<ParticleType> type;
    std::vector<float> density; ///< kg/m³, hydrostatic
    std::size_t fluid_count = 0;
    std::size_t boundary_count = 0;
    /// Per boundary object (boundary_objects(c)'s order: the tank, then the obstacles) its ids.
    std::vector<ObjectIds> objects;
    double fluid_height = 0.0;  ///< H_max (m): vertical extent of the fluid, top − bottom
    DerivedConstants constants; ///< derive_constants(case, fluid_height)

    std::size_t size() const { return position.size(); }
};

/// Particle counts of a case worked out from its geometry without generating a particle, for
/// the pre-flight check (a case too large for memory is refused at once). Boxes and tank walls
/// are counted exactly; overlapping boxes are counted twice (an upper bound); other shapes as
/// volume / dp^D (within the lattice error, shapes.h); an obstacle shell as its solid (an upper
/// bound).
struct ParticleCountEstimate {
    double fluid = 0.0;
    double boundary = 0.0;
    double total() const { return fluid + boundary; }
};
ParticleCountEstimate estimate_particle_count(const Case& c);

/// Generates the particles of a case (which the reader has validated).
///
/// Lattice: a fluid region or obstacle is filled at box.min + (i + ½)·dp on every axis (box: the
/// region's bounding box), keeping the points whose centre lies inside its shape (shapes.h); in
/// 2D the lattice is in x–z with y = 0. An obstacle with `layers` keeps only the points within
/// layers·dp of a lattice point outside it. Fluid regions and obstacles are unions: a point
/// inside an earlier region of the same kind is not generated twice, and no fluid point is
/// generated inside an obstacle's shape. Fluid particles start with their region's velocity
/// (boundary particles at rest). Tank walls: along each axis the coordinates are the tank
/// interior's lattice plus, for every chosen face, `layers` coordinates outside it at face ∓ (k +
/// ½)·dp; every point of their product with at least one wall coordinate is a wall particle (this
/// fills the corners and edges between chosen faces).
///
/// Initial density: the Tait equation inverted for p = ρ0·g·(H − z), so still water starts at
/// rest (DualSPHysics does the same for its hydrostatic initial condition).
/// - fluid: H is the free surface of the particle's own column (same x, y): the top of its
///   highest fluid particle + dp/2;
/// - boundary: H of the nearest fluid column within one kernel support 2h horizontally (its own
///   column for a floor under water, the adjacent column for a side wall); ρ = ρ0 above that
///   surface or with no fluid column within 2h. The wall then starts in equilibrium with the
///   water next to it.
/// \throws std::invalid_argument as derive_constants does.
ParticleSet generate_particles(const Case& c);

/// The positions of generate_particles(c)'s boundary particles (ids 0 … boundary_count − 1, in
/// that order) as generated, without the fluid: a restarted run finds its walls' geometry (mDBC's
/// ghost nodes, case/ghost_offsets.h) and a moving wall its reference positions
/// (case/motion_table.h) here. `objects` (optional) receives each object's ids.
std::vector<Eigen::Vector3d> boundary_positions(const Case& c,
                                                std::vector<ObjectIds>* objects = nullptr);

} // namespace sluice
