#pragma once
/// \file shapes.h
/// The volumes a <fluid> or <obstacle> fills besides a box: cylinders, spheres (circles in 2D)
/// and closed surface meshes (STL, PLY, OBJ). Each answers "is this point inside?", which is all
/// particle generation asks; the region's `box` (case_model.h) is always the shape's bounding
/// box, so containment checks stay box checks.
///
/// 2D cases lie in the x–z plane: a cylinder there is a circle (its axis is y), a sphere too, and
/// a mesh is tested at y = 0 (an extruded profile that crosses the plane).

#include <Eigen/Core>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace sluice {

/// The region is its bounding box itself (the shape of every region before primitives).
struct BoxShape {};

/// A right circular cylinder from `start` to `end` (the centres of its end discs), m. In 2D a
/// circle of `radius` about `start` (= end) in the x–z plane.
struct Cylinder {
    Eigen::Vector3d start = Eigen::Vector3d::Zero();
    Eigen::Vector3d end = Eigen::Vector3d::Zero();
    double radius = 0.0;
};

/// A ball (a disc in 2D), m.
struct Sphere {
    Eigen::Vector3d center = Eigen::Vector3d::Zero();
    double radius = 0.0;
};

/// A closed triangulated surface, already scaled, rotated and translated into case coordinates,
/// with a column index for the inside test: triangles are bucketed by their x–y footprint so a
/// vertical ray meets only the triangles of its bucket.
class TriangleMesh {
public:
    /// `vertices` (m) and `triangles` (three vertex indices each). The mesh must be closed
    /// (surface_mesh.h checks that); the index is built here.
    TriangleMesh(std::vector<Eigen::Vector3d> vertices,
                 std::vector<std::array<std::size_t, 3>> triangles);

    /// Ray parity along +z from `p`: inside when the ray crosses the surface an odd number of
    /// times. The ray starts a billionth of the mesh size off the lattice, so a point whose
    /// vertical line runs exactly along an edge (a box face's diagonal) is still counted once.
    bool contains(const Eigen::Vector3d& p) const;

    Eigen::Vector3d min() const { return min_; } ///< bounding box, m
    Eigen::Vector3d max() const { return max_; }
    /// Enclosed volume, m³ (divergence theorem; positive for either orientation).
    double volume() const { return volume_; }
    std::size_t triangle_count() const { return triangles_.size(); }
    /// The vertices (m) and the triangles' vertex indices, as given (for nearest-point queries:
    /// case/wall_normals.h).
    const std::vector<Eigen::Vector3d>& vertices() const { return vertices_; }
    const std::vector<std::array<std::size_t, 3>>& triangles() const { return triangles_; }

private:
    std::vector<Eigen::Vector3d> vertices_;
    std::vector<std::array<std::size_t, 3>> triangles_;
    Eigen::Vector3d min_, max_;
    double volume_ = 0.0;
    // Column index: buckets_ of triangle indices over an nx × ny raster of the x–y footprint.
    int nx_ = 1, ny_ = 1;
    double cell_x_ = 1.0, cell_y_ = 1.0;
    std::vector<std::vector<std::uint32_t>> buckets_;
    Eigen::Vector2d jitter_; ///< the ray's offset from the queried point in x–y
};

/// A surface file placed in the case: as written, and the mesh it gives.
struct SurfaceMesh {
    std::string file; ///< as written in the case (relative to the case file)
    std::shared_ptr<const TriangleMesh> mesh; ///< loaded, transformed and checked
};

using Shape = std::variant<BoxShape, Cylinder, Sphere, SurfaceMesh>;

/// "box", "cylinder", "sphere" or "surface 'FILE'" (for messages).
std::string describe(const Shape& shape);

/// Whether p (2D: y = 0) lies inside the shape; `bounds` is the region's box (BoxShape's volume).
bool shape_contains(const Shape& shape, const Eigen::Vector3d& bounds_min,
                    const Eigen::Vector3d& bounds_max, const Eigen::Vector3d& p, int dimension);

/// The shape's volume (area in 2D), m³ (m²), for particle-count estimates.
double shape_volume(const Shape& shape, const Eigen::Vector3d& bounds_min,
                    const Eigen::Vector3d& bounds_max, int dimension);

/// The bounding box of a cylinder or sphere (2D: y = 0), m.
void primitive_bounds(const Shape& shape, int dimension, Eigen::Vector3d& min,
                      Eigen::Vector3d& max);

} // namespace sluice
