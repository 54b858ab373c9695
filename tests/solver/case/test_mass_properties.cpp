// Volume-based mass properties (case/mass_properties.h): every shape against the textbook
// formulas in 2D and 3D, meshes against the solids they bound, the volume below a level against
// closed forms and an independent slice integration, and the level a body floats at.
//
// Tolerances: a closed form against another closed form differs by rounding only, so 1e-12 of
// the quantity's scale (volume, length, |I|); a tilted cylinder's volume below a level is
// promised to 1e-11 of its volume and compared with a composite Simpson rule whose own error is
// below 1e-12 (see slice_integral); floating levels come from a bisection to 1e-13 of the height.

#include "case/mass_properties.h"
#include "support/meshes.h"

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

namespace sluice {
namespace {

constexpr double pi = 3.14159265358979323846;
const Eigen::Vector3d origin = Eigen::Vector3d::Zero(); // the bounds a non-box shape ignores

/// The surface as a shape, its vertices rotated then shifted; inside_out reverses every
/// triangle (inward normals).
Shape mesh_shape(const test::Surface& s,
                 const Eigen::Matrix3d& rotation = Eigen::Matrix3d::Identity(),
                 const Eigen::Vector3d& shift = Eigen::Vector3d::Zero(), bool inside_out = false) {
    std::vector<Eigen::Vector3d> vertices;
    for (const Eigen::Vector3d& v : s.vertices)
        vertices.push_back(rotation * v + shift);
    std::vector<std::array<std::size_t, 3>> triangles;
    for (const auto& t : s.triangles)
        triangles.push_back({std::size_t(t[0]), std::size_t(t[inside_out ? 2 : 1]),
                             std::size_t(t[inside_out ? 1 : 2])});
    return SurfaceMesh{"test", std::make_shared<const TriangleMesh>(vertices, triangles)};
}

Shape cylinder(const Eigen::Vector3d& start, const Eigen::Vector3d& end, double r) {
    return Cylinder{start, end, r};
}

Shape sphere(const Eigen::Vector3d& centre, double r) {
    return Sphere{centre, r};
}

Eigen::Matrix3d rotation(double angle, const Eigen::Vector3d& axis) {
    return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

void expect_near(const Eigen::Vector3d& a, const Eigen::Vector3d& b, double tolerance) {
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance) << a.transpose() << " vs " << b.transpose();
}

void expect_matrix_near(const Eigen::Matrix3d& a, const Eigen::Matrix3d& b, double tolerance) {
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance) << a << "\nvs\n" << b;
}

/// Both properties agree to `relative` of the volume, the centroid's scale `length` and |I|.
void expect_same(const ShapeMassProperties& a, const ShapeMassProperties& b, double length,
                 double relative = 1e-12) {
    EXPECT_NEAR(a.volume, b.volume, relative * b.volume);
    expect_near(a.centroid, b.centroid, relative * length);
    expect_matrix_near(a.inertia_per_density, b.inertia_per_density,
                       relative * b.inertia_per_density.cwiseAbs().maxCoeff());
}

/// The 2D tensor: ∫(x² + z²) dA in yy, nothing else.
Eigen::Matrix3d planar(double polar) {
    Eigen::Matrix3d m = Eigen::Matrix3d::Zero();
    m(1, 1) = polar;
    return m;
}

/// The area of the unit disc below the chord at height d: the disc less the segment above it,
/// π − (acos d − d √(1 − d²)) (the implementation writes it with asin).
double unit_disc_below(double d) {
    d = std::clamp(d, -1.0, 1.0);
    return pi - (std::acos(d) - d * std::sqrt(1.0 - d * d));
}

/// A ball's volume below z = c_z + d: ∫ π (r² − z²) dz from −r to d.
double ball_below(double r, double d) {
    d = std::clamp(d, -r, r);
    auto f = [r](double z) { return pi * (r * r * z - z * z * z / 3.0); };
    return f(d) - f(-r);
}

/// A cylinder's volume below z = level by composite Simpson over its axis (2·10⁵ intervals) of
/// the slice areas r² unit_disc_below(...): the integrand's roughest terms go as |t − t_k|^{3/2},
/// so the rule's error is of order h^{5/2} ≈ 1e-13 of the volume.
double slice_integral(const Cylinder& c, double level) {
    const Eigen::Vector3d axis = c.end - c.start;
    const double length = axis.norm(), sin_tilt = std::hypot(axis.x(), axis.y()) / length;
    auto area = [&](double t) {
        const double zc = c.start.z() + t * axis.z() / length;
        return c.radius * c.radius * unit_disc_below((level - zc) / (c.radius * sin_tilt));
    };
    const int n = 200000;
    const double h = length / n;
    double sum = area(0.0) + area(length);
    for (int i = 1; i < n; ++i)
        sum += (i % 2 ? 4.0 : 2.0) * area(i * h);
    return sum * h / 3.0;
}

// --- Primitives -----------------------------------------------------------------------------

TEST(MassProperties, Box3dVolumeCentroidAndTensor) {
    const Eigen::Vector3d lo(0.1, -0.2, 0.3), hi(0.5, 0.4, 1.0); // 0.4 × 0.6 × 0.7
    const ShapeMassProperties p = shape_mass_properties(BoxShape{}, lo, hi, 3);
    const double v = 0.4 * 0.6 * 0.7;
    EXPECT_NEAR(p.volume, v, 1e-15);
    expect_near(p.centroid, {0.3, 0.1, 0.65}, 1e-15);
    const Eigen::Vector3d diagonal =
        v / 12.0 * Eigen::Vector3d(0.36 + 0.49, 0.16 + 0.49, 0.16 + 0.36);
    expect_matrix_near(p.inertia_per_density, Eigen::Matrix3d(diagonal.asDiagonal()), 1e-15);
}

TEST(MassProperties, Box2dIsTheRectangleInXz) {
    // The y bounds do not count in 2D; the centroid lies at y = 0.
    const Eigen::Vector3d lo(0.1, -5.0, 0.3), hi(0.5, 7.0, 1.0); // 0.4 × 0.7 in x–z
    const ShapeMassProperties p = shape_mass_properties(BoxShape{}, lo, hi, 2);
    const double a = 0.4 * 0.7;
    EXPECT_NEAR(p.volume, a, 1e-15);
    expect_near(p.centroid, {0.3, 0.0, 0.65}, 1e-15);
    expect_matrix_near(p.inertia_per_density, planar(a * (0.16 + 0.49) / 12.0), 1e-15);
}

TEST(MassProperties, SphereIsABall) {
    const double r = 0.3, v = 4.0 / 3.0 * pi * r * r * r;
    const ShapeMassProperties p = shape_mass_properties(sphere({1, 2, 3}, r), origin, origin, 3);
    EXPECT_NEAR(p.volume, v, 1e-12 * v);
    expect_near(p.centroid, {1, 2, 3}, 1e-15);
    expect_matrix_near(p.inertia_per_density, 0.4 * v * r * r * Eigen::Matrix3d::Identity(), 1e-17);
}

TEST(MassProperties, SphereAndCylinderIn2dAreDiscs) {
    const double r = 0.25, a = pi * r * r;
    const ShapeMassProperties expected{a, {0.5, 0.0, -0.25}, planar(a * r * r / 2.0)};
    expect_same(shape_mass_properties(sphere({0.5, 0.0, -0.25}, r), origin, origin, 2), expected,
                1.0);
    // A 2D cylinder is a circle about its start, whatever its end or y says.
    expect_same(
        shape_mass_properties(cylinder({0.5, 3.0, -0.25}, {0.5, 3.0, -0.25}, r), origin, origin, 2),
        expected, 1.0);
}

TEST(MassProperties, CylindersAlongTheAxes) {
    const double r = 0.2, length = 1.5, v = pi * r * r * length;
    const double axial = v * r * r / 2.0, transverse = v * (3 * r * r + length * length) / 12.0;
    const ShapeMassProperties along_z =
        shape_mass_properties(cylinder({0, 0, 1}, {0, 0, 2.5}, r), origin, origin, 3);
    expect_same(along_z,
                {v, {0, 0, 1.75}, Eigen::Vector3d(transverse, transverse, axial).asDiagonal()},
                1.0);
    // Written end to start: the same body.
    const ShapeMassProperties along_x =
        shape_mass_properties(cylinder({2, 1, 0}, {0.5, 1, 0}, r), origin, origin, 3);
    expect_same(along_x,
                {v, {1.25, 1, 0}, Eigen::Vector3d(axial, transverse, transverse).asDiagonal()},
                1.0);
}

TEST(MassProperties, TiltedCylinderRotatesThePrincipalTensor) {
    const double r = 0.15, length = 0.8, v = pi * r * r * length;
    const Eigen::Matrix3d q = rotation(0.7, {1, 2, 3});
    const Eigen::Vector3d start(0.2, 0.3, 0.4), end = start + length * q * Eigen::Vector3d::UnitZ();
    const Eigen::Matrix3d principal =
        Eigen::Vector3d(v * (3 * r * r + length * length) / 12.0,
                        v * (3 * r * r + length * length) / 12.0, v * r * r / 2.0)
            .asDiagonal();
    expect_same(shape_mass_properties(cylinder(start, end, r), origin, origin, 3),
                {v, (start + end) / 2.0, q * principal * q.transpose()}, 1.0);
}

TEST(MassProperties, EmptyShapesThrow) {
    const Eigen::Vector3d lo(0, 0, 0), hi(1, 0, 1); // no y extent: empty in 3D, not in 2D
    EXPECT_THROW(shape_mass_properties(BoxShape{}, lo, hi, 3), std::invalid_argument);
    EXPECT_NO_THROW(shape_mass_properties(BoxShape{}, lo, hi, 2));
    EXPECT_THROW(shape_mass_properties(cylinder({0, 0, 0}, {0, 0, 0}, 1.0), origin, origin, 3),
                 std::invalid_argument);
    EXPECT_THROW(shape_mass_properties(sphere({0, 0, 0}, 0.0), origin, origin, 2),
                 std::invalid_argument);
    // A mesh wholly at y > 0 has no section at y = 0.
    const Shape away = mesh_shape(test::box_surface({0, 0.1, 0}, {1, 1, 1}));
    EXPECT_THROW(shape_mass_properties(away, origin, origin, 2), std::invalid_argument);
}

// --- Meshes ---------------------------------------------------------------------------------

/// A wedge: the right triangle (0, 0), (a, 0), (0, c) in x–z extruded over y ∈ [y0, y1],
/// outward triangles.
test::Surface wedge_surface(double a, double c, double y0, double y1) {
    test::Surface s;
    for (const double y : {y0, y1})
        for (const Eigen::Vector2d& p : {Eigen::Vector2d(0, 0), {a, 0}, {0, c}})
            s.vertices.emplace_back(p.x(), y, p.y());
    s.triangles = {{0, 1, 2}, {3, 5, 4}, {0, 3, 4}, {0, 4, 1},
                   {0, 2, 5}, {0, 5, 3}, {1, 4, 5}, {1, 5, 2}};
    return s;
}

TEST(MassProperties, BoxMeshMatchesTheBoxFormula) {
    const Eigen::Vector3d lo(0.1, -0.2, 0.3), hi(0.5, 0.4, 1.0);
    const Shape mesh = mesh_shape(test::box_surface(lo, hi));
    expect_same(shape_mass_properties(mesh, origin, origin, 3),
                shape_mass_properties(BoxShape{}, lo, hi, 3), 1.0);
    expect_same(shape_mass_properties(mesh, origin, origin, 2),
                shape_mass_properties(BoxShape{}, lo, hi, 2), 1.0);
}

TEST(MassProperties, RotatedBoxMeshRotatesTheTensor) {
    // Far from the origin, so that the sums' reference point matters.
    const Eigen::Vector3d lo(-0.2, -0.3, -0.5), hi(0.2, 0.3, 0.5), shift(100.0, -40.0, 7.0);
    const Eigen::Matrix3d q = rotation(1.1, {0.3, -1, 0.5});
    const ShapeMassProperties box = shape_mass_properties(BoxShape{}, lo, hi, 3);
    expect_same(
        shape_mass_properties(mesh_shape(test::box_surface(lo, hi), q, shift), origin, origin, 3),
        {box.volume, q * box.centroid + shift, q * box.inertia_per_density * q.transpose()}, 100.0);
}

TEST(MassProperties, InsideOutMeshGivesTheSame) {
    const test::Surface box = test::box_surface({0.1, -0.2, 0.3}, {0.5, 0.4, 1.0});
    const Eigen::Matrix3d q = rotation(0.4, {1, 1, 0});
    const Shape outward = mesh_shape(box, q), inward = mesh_shape(box, q, {0, 0, 0}, true);
    for (const int dimension : {2, 3}) {
        SCOPED_TRACE(dimension);
        expect_same(shape_mass_properties(inward, origin, origin, dimension),
                    shape_mass_properties(outward, origin, origin, dimension), 1.0);
        for (const double level : {0.2, 0.5, 0.8})
            EXPECT_NEAR(volume_below(inward, origin, origin, dimension, level),
                        volume_below(outward, origin, origin, dimension, level), 1e-15);
    }
}

TEST(MassProperties, WedgeMeshMatchesTheTriangleFormulas) {
    // Its centroid is not its bounding box's centre, and its tensor has a product of inertia.
    // About its centroid a right triangle with legs a (x) and c (z) has A = ac/2, ∫x² dA =
    // c a³/36, ∫z² dA = a c³/36, ∫xz dA = −a² c²/72; extruded by d = y1 − y0 the prism adds
    // A d³/12 about x and z.
    const double a = 0.6, c = 0.3, y0 = -0.3, y1 = 0.6, d = y1 - y0, area = a * c / 2;
    const double xx = c * a * a * a / 36, zz = a * c * c * c / 36, xz = -a * a * c * c / 72;
    const Eigen::Vector3d shift(20.0, 0.0, -3.0);
    const Shape wedge = mesh_shape(wedge_surface(a, c, y0, y1), Eigen::Matrix3d::Identity(), shift);
    Eigen::Matrix3d tensor;
    tensor << d * zz + area * d * d * d / 12, 0, -d * xz, //
        0, d * (xx + zz), 0,                              //
        -d * xz, 0, d * xx + area * d * d * d / 12;
    expect_same(shape_mass_properties(wedge, origin, origin, 3),
                {area * d, shift + Eigen::Vector3d(a / 3, (y0 + y1) / 2, c / 3), tensor}, 20.0);
    expect_same(shape_mass_properties(wedge, origin, origin, 2),
                {area, shift + Eigen::Vector3d(a / 3, 0, c / 3), planar(xx + zz)}, 20.0);
    // Below z = z0 + h the triangle keeps a trapezium: A − a (c − h)²/(2c).
    for (const double h : {-0.1, 0.0, 0.1, 0.25, 0.3, 0.5}) {
        SCOPED_TRACE(h);
        const double above = std::clamp(c - h, 0.0, c), below = area - a * above * above / (2 * c);
        EXPECT_NEAR(volume_below(wedge, origin, origin, 2, shift.z() + h), below, 1e-14);
        EXPECT_NEAR(volume_below(wedge, origin, origin, 3, shift.z() + h), d * below, 1e-14);
    }
}

TEST(MassProperties, PrismMeshMatchesThePolygonFormulas) {
    // A 64-gon prism, circumradius r, height h along z: a regular polygon has A = n r² sin β/2
    // and polar moment J = n r⁴ sin β (2 + cos β)/12 (β = 2π/n; n triangles about the centre),
    // the same second moment J/2 about any axis in its plane.
    const int n = 64;
    const double r = 0.3, h = 0.9, beta = 2 * pi / n;
    const double area = n * r * r * std::sin(beta) / 2.0;
    const double polar = n * r * r * r * r * std::sin(beta) * (2.0 + std::cos(beta)) / 12.0;
    const test::Surface prism = test::cylinder_surface(0.4, -0.1, r, -0.5, 0.4, n);
    const double v = area * h, transverse = h * polar / 2.0 + area * h * h * h / 12.0;
    expect_same(
        shape_mass_properties(mesh_shape(prism), origin, origin, 3),
        {v, {0.4, -0.1, -0.05}, Eigen::Vector3d(transverse, transverse, h * polar).asDiagonal()},
        1.0);
    // Its axis turned onto y (x stays, y → z, z → −y): in 2D the section is the polygon about
    // (x, z) = (0.4, 0.1).
    const Shape across = mesh_shape(prism, rotation(-pi / 2, Eigen::Vector3d::UnitX()));
    expect_same(shape_mass_properties(across, origin, origin, 2),
                {area, {0.4, 0, 0.1}, planar(polar)}, 1.0);
}

TEST(MassProperties, MeshSectionIn2dTurnsWithTheMesh) {
    // A box turned about y is a turned rectangle in x–z: same area and polar moment.
    const Eigen::Vector3d lo(-0.2, -0.3, -0.35), hi(0.2, 0.5, 0.35), shift(3.0, 0.0, -1.0);
    const Eigen::Matrix3d q = rotation(0.6, Eigen::Vector3d::UnitY());
    const ShapeMassProperties rectangle = shape_mass_properties(BoxShape{}, lo, hi, 2);
    expect_same(
        shape_mass_properties(mesh_shape(test::box_surface(lo, hi), q, shift), origin, origin, 2),
        {rectangle.volume, shift, rectangle.inertia_per_density}, 3.0);
    // A box turned about x cuts y = 0 obliquely: with c ≤ b cot θ the section is still a
    // rectangle, 2a wide and 2c / cos θ high.
    const double ha = 0.2, hb = 0.5, hc = 0.3, theta = 0.4, high = 2 * hc / std::cos(theta);
    const Shape tipped = mesh_shape(test::box_surface({-ha, -hb, -hc}, {ha, hb, hc}),
                                    rotation(theta, Eigen::Vector3d::UnitX()), shift);
    expect_same(shape_mass_properties(tipped, origin, origin, 2),
                {2 * ha * high, shift, planar(2 * ha * high * (4 * ha * ha + high * high) / 12)},
                3.0);
    for (const double h : {-0.5, -0.1, 0.2, 0.5})
        EXPECT_NEAR(volume_below(tipped, origin, origin, 2, shift.z() + h),
                    2 * ha * std::clamp(h + high / 2, 0.0, high), 1e-14);
    // A face lying in y = 0: the section is the one just beside it at y > 0, as shape_contains
    // sees it (its ray starts a little towards +y).
    const Shape on_face = mesh_shape(test::box_surface({0, 0, 0}, {0.4, 1, 0.7}));
    expect_same(shape_mass_properties(on_face, origin, origin, 2),
                shape_mass_properties(BoxShape{}, {0, 0, 0}, {0.4, 1, 0.7}, 2), 1.0);
}

// --- Volume below a level -------------------------------------------------------------------

TEST(MassProperties, VolumeBelowBox) {
    const Eigen::Vector3d lo(0.1, -0.2, 0.3), hi(0.5, 0.4, 1.0);
    const Shape box = BoxShape{}, mesh = mesh_shape(test::box_surface(lo, hi));
    // Below, at the bottom, inside, at the top, above.
    for (const double level : {-1.0, 0.3, 0.55, 1.0, 2.0}) {
        SCOPED_TRACE(level);
        const double depth = std::clamp(level - 0.3, 0.0, 0.7);
        EXPECT_NEAR(volume_below(box, lo, hi, 3, level), 0.4 * 0.6 * depth, 1e-15);
        EXPECT_NEAR(volume_below(box, lo, hi, 2, level), 0.4 * depth, 1e-15);
        EXPECT_NEAR(volume_below(mesh, origin, origin, 3, level), 0.4 * 0.6 * depth, 1e-15);
        EXPECT_NEAR(volume_below(mesh, origin, origin, 2, level), 0.4 * depth, 1e-15);
    }
}

TEST(MassProperties, VolumeBelowTurnedBoxMesh) {
    // A cube of side s turned 45° about y is a diamond in x–z, half-diagonal d = s/√2, whose
    // area at height u above its lowest corner is u² up to u = d and 2d² − (2d − u)² above.
    // Turning it further about the vertical z moves no volume across a level.
    const double s = 0.4, d = s / std::sqrt(2.0), width = 0.6;
    const Eigen::Vector3d centre(1.0, 0.0, 2.0);
    const test::Surface box =
        test::box_surface({-s / 2, -width / 2, -s / 2}, {s / 2, width / 2, s / 2});
    const Eigen::Matrix3d about_y = rotation(pi / 4, Eigen::Vector3d::UnitY());
    const Shape diamond = mesh_shape(box, about_y, centre);
    const Shape turned = mesh_shape(box, rotation(0.5, Eigen::Vector3d::UnitZ()) * about_y, centre);
    for (const double u : {-0.1, 0.0, 0.05, d, 0.4, 2 * d, 1.0}) {
        SCOPED_TRACE(u);
        const double v = std::clamp(u, 0.0, d), w = std::clamp(2 * d - u, 0.0, d);
        const double area = u <= d ? v * v : 2 * d * d - w * w;
        const double level = centre.z() - d + u;
        EXPECT_NEAR(volume_below(diamond, origin, origin, 2, level), area, 1e-14);
        EXPECT_NEAR(volume_below(diamond, origin, origin, 3, level), width * area, 1e-14);
        EXPECT_NEAR(volume_below(turned, origin, origin, 3, level), width * area, 1e-14);
    }
}

TEST(MassProperties, VolumeBelowSphereAndDisc) {
    const double r = 0.3;
    const Eigen::Vector3d c(0.5, 0.2, 1.0);
    for (const double d : {-0.5, -0.3, -0.1, 0.0, 0.17, 0.3, 0.9}) {
        SCOPED_TRACE(d);
        EXPECT_NEAR(volume_below(sphere(c, r), origin, origin, 3, c.z() + d), ball_below(r, d),
                    1e-14);
        const double disc = r * r * unit_disc_below(d / r);
        EXPECT_NEAR(volume_below(sphere(c, r), origin, origin, 2, c.z() + d), disc, 1e-14);
        EXPECT_NEAR(volume_below(cylinder(c, c, r), origin, origin, 2, c.z() + d), disc, 1e-14);
    }
}

TEST(MassProperties, VolumeBelowVerticalAndHorizontalCylinders) {
    const double r = 0.2, length = 1.2;
    const Shape up = cylinder({0.3, 0.1, 0.5}, {0.3, 0.1, 1.7}, r);
    const Shape down = cylinder({0.3, 0.1, 1.7}, {0.3, 0.1, 0.5}, r);
    const Shape across = cylinder({0.0, 0.5, 1.0}, {-1.2, 0.5, 1.0}, r);
    for (const double level : {0.0, 0.5, 0.8, 0.9, 1.0, 1.15, 1.2, 1.7, 2.0}) {
        SCOPED_TRACE(level);
        const double standing = pi * r * r * std::clamp(level - 0.5, 0.0, length);
        EXPECT_NEAR(volume_below(up, origin, origin, 3, level), standing, 1e-14);
        EXPECT_NEAR(volume_below(down, origin, origin, 3, level), standing, 1e-14);
        EXPECT_NEAR(volume_below(across, origin, origin, 3, level),
                    length * r * r * unit_disc_below((level - 1.0) / r), 1e-14);
    }
}

TEST(MassProperties, VolumeBelowTiltedCylinderCutThroughItsSide) {
    // A plane that meets only the curved side cuts every generator: the volume below is that of
    // the straight cylinder up to where the axis meets the plane, π r² t.
    const double r = 0.1, length = 1.0;
    for (const double tilt : {0.0, 0.3, 1.0, 1.3}) { // from vertical, rad; r tan(1.3) < L/2
        SCOPED_TRACE(tilt);
        const Eigen::Vector3d start(0.2, -0.1, 0.4);
        const Eigen::Vector3d u = rotation(tilt, {1, 1, 0}) * Eigen::Vector3d::UnitZ();
        const Shape c = cylinder(start, start + length * u, r);
        const double reach = r * std::tan(tilt); // the side's rise across the axis, along it
        for (const double t : {reach + 0.01, 0.5, length - reach - 0.01})
            EXPECT_NEAR(volume_below(c, origin, origin, 3, start.z() + t * u.z()), pi * r * r * t,
                        1e-13);
    }
}

TEST(MassProperties, VolumeBelowTiltedCylinderMatchesSliceIntegration) {
    // Tilts from steep to within 1e-6 rad of horizontal, on both sides of where the closed form
    // hands over to quadrature (3e-4 and 2e-4 here); levels through the lower cap, the side
    // and the upper cap.
    const double r = 0.25, length = 1.0, v = pi * r * r * length;
    for (const double from_horizontal : {1.2, 0.5, 0.1, 0.02, 1e-3, 3e-4, 2e-4, 1e-6}) {
        SCOPED_TRACE(from_horizontal);
        const Eigen::Vector3d start(0.3, 0.2, 0.0);
        const Eigen::Vector3d u(std::cos(from_horizontal) * std::cos(0.4),
                                std::cos(from_horizontal) * std::sin(0.4),
                                std::sin(from_horizontal));
        const Cylinder c{start, start + length * u, r};
        Eigen::Vector3d lo, hi;
        primitive_bounds(c, 3, lo, hi);
        const double middle = (lo.z() + hi.z()) / 2;
        for (const double f : {-0.1, 0.0, 0.05, 0.2, 0.45, 0.5, 0.7, 0.97, 1.0, 1.2}) {
            const double level = lo.z() + f * (hi.z() - lo.z());
            SCOPED_TRACE(f);
            const double below = volume_below(c, origin, origin, 3, level);
            EXPECT_NEAR(below, slice_integral(c, level), 1e-11 * v);
            // The body is symmetric about its centre: below h and above 2 z_c − h alike.
            EXPECT_NEAR(below + volume_below(c, origin, origin, 3, 2 * middle - level), v,
                        1e-12 * v);
        }
    }
}

// --- Floating level -------------------------------------------------------------------------

TEST(MassProperties, FloatingBoxDraftIsMassOverDensityAndWaterplane) {
    const Eigen::Vector3d lo(0.1, -0.2, -0.3), hi(0.5, 0.4, 0.4); // height 0.7
    const double rho = 1000.0;
    const Shape mesh = mesh_shape(test::box_surface(lo, hi));
    for (const double fraction : {0.01, 0.3, 0.5, 0.99}) {
        SCOPED_TRACE(fraction);
        const double mass3 = fraction * rho * 0.4 * 0.6 * 0.7, mass2 = fraction * rho * 0.4 * 0.7;
        const double level = -0.3 + fraction * 0.7; // draft m/(ρ A) above the bottom
        EXPECT_NEAR(*floating_level(BoxShape{}, lo, hi, 3, rho, mass3), level, 1e-12 * 0.7);
        EXPECT_NEAR(*floating_level(BoxShape{}, lo, hi, 2, rho, mass2), level, 1e-12 * 0.7);
        EXPECT_NEAR(*floating_level(mesh, origin, origin, 3, rho, mass3), level, 1e-12 * 0.7);
        EXPECT_NEAR(*floating_level(mesh, origin, origin, 2, rho, mass2), level, 1e-12 * 0.7);
    }
}

TEST(MassProperties, HalfDensityBodiesFloatAtTheirCentre) {
    const double rho = 1025.0, r = 0.3;
    const Eigen::Vector3d c(0.5, 0.2, 1.0);
    const double ball = 4.0 / 3.0 * pi * r * r * r, disc = pi * r * r;
    EXPECT_NEAR(*floating_level(sphere(c, r), origin, origin, 3, rho, rho * ball / 2), c.z(),
                1e-12 * 2 * r);
    EXPECT_NEAR(*floating_level(sphere(c, r), origin, origin, 2, rho, rho * disc / 2), c.z(),
                1e-12 * 2 * r);
    EXPECT_NEAR(*floating_level(cylinder(c, c, r), origin, origin, 2, rho, rho * disc / 2), c.z(),
                1e-12 * 2 * r);
    // A tilted cylinder is symmetric about its centre too.
    const Eigen::Vector3d end = c + rotation(0.9, {1, -2, 0}) * Eigen::Vector3d(0, 0, 0.8);
    const Cylinder tilted{c, end, 0.1};
    Eigen::Vector3d lo, hi;
    primitive_bounds(tilted, 3, lo, hi);
    EXPECT_NEAR(*floating_level(tilted, origin, origin, 3, rho, rho * pi * 0.01 * 0.8 / 2),
                (c.z() + end.z()) / 2, 1e-12 * (hi.z() - lo.z()));
}

TEST(MassProperties, CircleAtAQuarterDensityDisplacesItsMass) {
    // The level where the segment's area is a quarter of the disc, checked by the acos form.
    const double rho = 1000.0, r = 0.2, mass = rho * pi * r * r / 4;
    const Eigen::Vector3d c(0.0, 0.0, -0.5);
    const double level = *floating_level(cylinder(c, c, r), origin, origin, 2, rho, mass);
    EXPECT_LT(level, c.z());
    EXPECT_NEAR(rho * r * r * unit_disc_below((level - c.z()) / r), mass, 1e-11 * mass);
}

TEST(MassProperties, DenserBodySinks) {
    const Eigen::Vector3d lo(0, 0, 0), hi(1, 1, 1);
    EXPECT_FALSE(floating_level(BoxShape{}, lo, hi, 3, 1000.0, 1001.0));
    EXPECT_FALSE(floating_level(BoxShape{}, lo, hi, 3, 1000.0, 1000.0)); // neutral: no level
    EXPECT_FALSE(floating_level(sphere({0, 0, 0}, 0.5), origin, origin, 2, 1000.0, 1000.0));
    EXPECT_TRUE(floating_level(BoxShape{}, lo, hi, 3, 1000.0, 999.0));
    EXPECT_THROW(floating_level(BoxShape{}, lo, hi, 3, 1000.0, 0.0), std::invalid_argument);
    EXPECT_THROW(floating_level(BoxShape{}, lo, hi, 3, 0.0, 1.0), std::invalid_argument);
}

} // namespace
} // namespace sluice
