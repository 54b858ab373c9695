#pragma once
/// \file mass_properties.h
/// Mass properties of a shape (shapes.h) from its volume at uniform density, not from particles:
/// volume, centre of mass and inertia tensor per unit density, the volume below a horizontal
/// plane, and the level at which a body floats upright in still water (host code, for floating
/// bodies).
///
/// Sources:
/// - box, cylinder, sphere, disc: the standard tables of moments of inertia of homogeneous solids
///   (Meriam & Kraige, Engineering Mechanics: Dynamics, Appendix D, Table D/4);
/// - a closed triangle mesh (3D): the divergence theorem over its triangles, each triangle with a
///   reference point spanning a signed tetrahedron whose volume, first moment and covariance
///   ∫ r rᵀ dV are exact polynomials of its corners (Tonon 2005, "Explicit exact formulas for the
///   3-D tetrahedron inertia tensor in terms of its vertex coordinates", J. Math. Stat. 1(1):8–11;
///   Blow & Binstock 2004, "How to find the inertia tensor (or other mass properties) of a 3D
///   solid body represented by a triangle mesh"). Summed over the triangles this is Mirtich 1996
///   ("Fast and accurate computation of polyhedral mass properties", J. Graphics Tools 1(2)) and
///   Eberly ("Polyhedral mass properties (revisited)") in another arrangement;
/// - a mesh in 2D: its cross-section at y = 0, a set of oriented segments, whose area and moments
///   follow from Green's theorem (Steger 1996, "On the calculation of arbitrary moments of
///   polygons", TU München report FGBV-96-05);
/// - the volume below z = h: the divergence theorem with the field F = (0, 0, z − h), whose
///   divergence is 1 and which vanishes on the cut, so only the surface below the cut counts.
///
/// 2D cases lie in the x–z plane (shapes.h): volumes are areas (m², i.e. per metre of width),
/// masses are per metre of width (kg/m), and the only rotation is about y.

#include "case/shapes.h"

#include <Eigen/Core>

#include <optional>

namespace sluice {

/// Volume-based mass properties of a shape per unit density (multiply by ρ, kg/m³, for mass and
/// inertia).
struct ShapeMassProperties {
    double volume = 0.0;                                ///< m³ (2D: area m², per unit width)
    Eigen::Vector3d centroid = Eigen::Vector3d::Zero(); ///< centre of volume, m (2D: y = 0)
    /// Second-moment (inertia) tensor about the centroid per unit density, ∫ (|r|² I − r rᵀ) dV,
    /// m⁵ (products of inertia enter with a minus sign). 2D (per unit width): only the yy entry
    /// is set, ∫ (x² + z²) dA, m⁴; the others are 0.
    Eigen::Matrix3d inertia_per_density = Eigen::Matrix3d::Zero();
};

/// The mass properties of `shape` filled at unit density; `bounds_min`/`bounds_max` is the
/// region's box (BoxShape's volume, as in shape_contains). A closed mesh may face either way
/// (its orientation is taken from the sign of its volume, as TriangleMesh::volume does); in 2D a
/// mesh counts by its cross-section at y = 0.
/// \throws std::invalid_argument when the shape encloses no volume (a box or cylinder of zero
///         extent, a zero radius, a 2D mesh that does not cross y = 0).
ShapeMassProperties shape_mass_properties(const Shape& shape, const Eigen::Vector3d& bounds_min,
                                          const Eigen::Vector3d& bounds_max, int dimension);

/// The volume (2D: area) of the shape below the horizontal plane z = level, m³ (m²), in the
/// shape's pose as written: 0 below the shape, its whole volume above it. Closed forms for the
/// box, sphere, disc and a cylinder with a vertical or horizontal axis; a tilted cylinder
/// integrates the circular-segment areas of its cross-sections along the axis, in closed form
/// or, when the plane's depth changes little along the axis, by Gauss–Legendre quadrature:
/// within 1e-11 of the cylinder's volume either way. A mesh clips its triangles (2D: its
/// section's segments) to z ≤ level, exact up to rounding.
double volume_below(const Shape& shape, const Eigen::Vector3d& bounds_min,
                    const Eigen::Vector3d& bounds_max, int dimension, double level);

/// The level z (m) of the still water surface at which the shape, of mass `mass` (kg; 2D: kg
/// per m of width) and upright as written, floats in fluid of density `rho` (kg/m³): where
/// rho · volume_below(level) = mass (Archimedes; the vertical balance only, not the stability of
/// the pose). Found by bisection of the monotone volume_below over the shape's height, to 1e-13
/// of that height. std::nullopt when the body does not float (mass ≥ rho · volume).
/// Preconditions (the caller validates): rho and mass positive and finite.
/// \throws std::invalid_argument when they are not (a guard, not a message for a case author),
///         or when the shape encloses no volume.
std::optional<double> floating_level(const Shape& shape, const Eigen::Vector3d& bounds_min,
                                     const Eigen::Vector3d& bounds_max, int dimension, double rho,
                                     double mass);

} // namespace sluice
