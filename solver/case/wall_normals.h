#pragma once
/// \file wall_normals.h
/// Wall normals and ghost nodes of the modified dynamic boundary condition (mDBC: English,
/// Domínguez, Vacondio, Crespo, Stansby, Lind, Chiapponi, Gómez-Gesteira, "Modified dynamic
/// boundary conditions (mDBC) for general-purpose smoothed particle hydrodynamics (SPH):
/// application to tank sloshing, dam break and fish pass problems", Comp. Part. Mech. 9 (2022)
/// 1–15, doi 10.1007/s40571-021-00403-3, §2.3 and Fig. 2), computed from the geometry the case
/// describes rather than from the particles.
///
/// The wall surface is the boundary of the solids: the tank (everything beyond a chosen face of
/// its interior box, `TankWalls::box`) and the obstacles' shapes (shapes.h). For a boundary
/// particle p the rules are:
/// - Its solid: the first obstacle (in case order) whose shape contains p; else the tank when p
///   lies outside the tank's interior box on a used axis; else none (found = false).
/// - Its surface point s: the nearest point of its solid's surface. Tank: the nearest point of
///   the interior box on the chosen faces, i.e. p clamped to [box.min, box.max] on the used axes,
///   so a particle beyond two or three faces (edge, corner) mirrors through the edge or corner
///   point (the paper's corner treatment, Fig. 2b). Box obstacle: the nearest point of each face
///   rectangle; cylinder: its side (radially, within its length) and its end discs (3D; 2D: the
///   circle); sphere: radially (2D: the circle); surface mesh: the closest point of the nearest
///   triangle (2D: of the nearest segment of the mesh's section by the plane y = 0).
/// - Its ghost node 2s − p and normal (s − p)/|s − p|, which points from the particle to the
///   fluid (outward of the solid).
/// - The ghost must lie in the open: in no obstacle's shape and, with a tank, not beyond a chosen
///   face of its interior box (an open face such as the top counts as open). Where the nearest
///   surface point's ghost is not (an obstacle's bottom face resting on the tank floor, a face
///   against another obstacle), the next nearest surface point of the same solid whose ghost is
///   in the open is taken (box: faces in order of distance; cylinder: side and discs; mesh:
///   triangles in order of distance). Where no surface point of the particle's own solid has
///   its ghost in the open (a floor particle under an obstacle standing on the floor), the
///   nearest surface point of any solid whose ghost is in the open is taken: under the edge of
///   such an obstacle that is the edge point, the mirror through the concave corner of floor and
///   obstacle, as the paper's corner rule. Otherwise found = false.
/// - A particle on its solid's surface (distance below 1e-9·dp) has no normal: found = false.
/// - 2D: everything in the x–z plane (y = 0): cylinders and spheres are circles, boxes have four
///   faces.

#include "case/case_model.h"

#include <Eigen/Core>

#include <optional>
#include <vector>

namespace sluice {

/// The mDBC ghost node of one boundary particle.
struct WallGhost {
    /// Unit, from the particle towards the fluid; zero when !found.
    Eigen::Vector3d normal = Eigen::Vector3d::Zero();
    /// m: the mirror point 2s − p of p through its wall-surface point s; zero when !found.
    Eigen::Vector3d ghost = Eigen::Vector3d::Zero();
    bool found = false;
};

/// For each boundary particle position p (case coordinates; 2D: y = 0, plane x–z), its wall
/// surface point s and ghost node (rules above). Depends only on the case and p (so a restarted
/// run gets the same result from the saved positions). Runs in parallel over the particles
/// (OpenMP).
std::vector<WallGhost> wall_ghosts(const Case& c,
                                   const std::vector<Eigen::Vector3d>& boundary_positions);

/// The unit normal (into the fluid) of the wall surface at a point on or within dp of a wall
/// surface (for wall pressure sensors): the outward normal of the nearest surface piece (tank
/// face, box face, cylinder side or disc, sphere, mesh triangle) within dp, preferring, among
/// those, pieces whose outside is open (so a point on the floor beside an obstacle standing on
/// it gets the floor's normal, not the obstacle's bottom face's); nullopt when no wall surface
/// is within dp of `point`. Indexes the case's surface meshes on every call: call it once per
/// sensor when a run starts, not per step.
std::optional<Eigen::Vector3d> wall_surface_normal(const Case& c, const Eigen::Vector3d& point);

} // namespace sluice
