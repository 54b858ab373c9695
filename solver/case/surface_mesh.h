#pragma once
/// \file surface_mesh.h
/// Reads a closed surface (STL, PLY or OBJ, through VTK's readers) into a TriangleMesh placed in
/// the case: scaled about the origin, rotated about x, then y, then z (degrees), then translated.

#include "case/shapes.h"

#include <Eigen/Core>

#include <memory>
#include <stdexcept>
#include <string>

namespace sluice {

/// What is wrong with a surface file, in words for a case author (the reader adds file:line).
struct SurfaceMeshError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The largest coordinate (m) a placed surface may reach: far beyond any case, and small enough
/// that its mesh's sizes, areas and volumes stay finite (their cubes: 10^36 m³).
constexpr double max_placed_coordinate = 1e12;

struct SurfacePlacement {
    double scale = 1.0;
    Eigen::Vector3d rotate_degrees = Eigen::Vector3d::Zero(); ///< about x, then y, then z
    Eigen::Vector3d translate = Eigen::Vector3d::Zero();      ///< m
};

/// Loads `path` by its extension (.stl, .ply, .obj, any case), merges coincident vertices and
/// checks that the surface is closed: every edge shared by exactly two triangles.
/// \throws SurfaceMeshError when the file is missing or unreadable, has an unknown extension,
///         holds no triangle, is open (names the number of boundary and non-manifold edges and
///         one of their end points), or encloses no volume.
std::shared_ptr<const TriangleMesh> load_surface_mesh(const std::string& path,
                                                      const SurfacePlacement& placement);

} // namespace sluice
