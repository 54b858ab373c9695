#include "case/mass_properties.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

namespace {

constexpr double pi = 3.14159265358979323846;

// --- Primitives (Meriam & Kraige, Engineering Mechanics, Appendix D: Table D/3 for plane
// figures, D/4 for homogeneous solids) ------------------------------------------------------

/// The tensor of a body of revolution about its centroid: `axial` about the unit `axis`,
/// `transverse` about every axis normal to it.
Eigen::Matrix3d axisymmetric_inertia(const Eigen::Vector3d& axis, double axial, double transverse) {
    return transverse * Eigen::Matrix3d::Identity() +
           (axial - transverse) * axis * axis.transpose();
}

/// A solid box a × b × c: I_xx = V (b² + c²)/12 and so on. 2D: a rectangle a × c, J = A (a² +
/// c²)/12.
ShapeMassProperties box_properties(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi,
                                   int dimension) {
    const Eigen::Vector3d size = hi - lo;
    const Eigen::Vector3d sq = size.cwiseProduct(size);
    ShapeMassProperties p;
    p.centroid = (lo + hi) / 2.0;
    if (dimension == 2) {
        p.volume = size.x() * size.z();
        p.centroid.y() = 0.0;
        p.inertia_per_density(1, 1) = p.volume * (sq.x() + sq.z()) / 12.0;
        return p;
    }
    p.volume = size.prod();
    p.inertia_per_density.diagonal() =
        p.volume / 12.0 * Eigen::Vector3d(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y());
    return p;
}

/// A disc of radius r about (x, z) of `centre`: A = π r², J = A r²/2.
ShapeMassProperties disc_properties(const Eigen::Vector3d& centre, double r) {
    ShapeMassProperties p;
    p.volume = pi * r * r;
    p.centroid = Eigen::Vector3d(centre.x(), 0.0, centre.z());
    p.inertia_per_density(1, 1) = p.volume * r * r / 2.0;
    return p;
}

/// A solid cylinder of length L: I_axis = V r²/2, I_transverse = V (3 r² + L²)/12.
ShapeMassProperties cylinder_properties(const Cylinder& c) {
    const Eigen::Vector3d axis = c.end - c.start;
    const double length = axis.norm(), r2 = c.radius * c.radius;
    ShapeMassProperties p;
    p.volume = pi * r2 * length;
    p.centroid = (c.start + c.end) / 2.0;
    if (length > 0.0)
        p.inertia_per_density = axisymmetric_inertia(
            axis / length, p.volume * r2 / 2.0, p.volume * (3.0 * r2 + length * length) / 12.0);
    return p;
}

/// A solid ball: I = 2/5 V r² about every axis.
ShapeMassProperties sphere_properties(const Sphere& s) {
    ShapeMassProperties p;
    p.volume = 4.0 / 3.0 * pi * s.radius * s.radius * s.radius;
    p.centroid = s.center;
    p.inertia_per_density.diagonal().setConstant(0.4 * p.volume * s.radius * s.radius);
    return p;
}

// --- Closed triangle meshes -----------------------------------------------------------------

/// The point the mesh's sums are taken about: its bounding box's centre, so that the corners'
/// products stay of the mesh's size rather than of its distance from the origin.
Eigen::Vector3d reference_point(const TriangleMesh& mesh) {
    return (mesh.min() + mesh.max()) / 2.0;
}

/// +1 when the triangles face outwards (positive signed volume), −1 when inwards (as
/// TriangleMesh::volume, which takes the magnitude).
double orientation(const TriangleMesh& mesh) {
    const Eigen::Vector3d o = reference_point(mesh);
    const auto& v = mesh.vertices();
    double six_volume = 0.0;
    for (const auto& t : mesh.triangles())
        six_volume += (v[t[0]] - o).dot((v[t[1]] - o).cross(v[t[2]] - o));
    return six_volume < 0.0 ? -1.0 : 1.0;
}

/// Each triangle (a, b, c), taken relative to the reference point o, spans with o a tetrahedron
/// of signed volume det/6 (det = a · (b × c)), first moment det (a + b + c)/24 and covariance
/// ∫ r rᵀ dV = det/120 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c (Tonon 2005; Blow & Binstock
/// 2004: the canonical tetrahedron's covariance (I + 1 1ᵀ)/120 mapped by [a b c]). Their sums
/// are the solid's (divergence theorem); the parallel-axis theorem moves the covariance to the
/// centroid, and I = tr(C) 1 − C.
ShapeMassProperties mesh_properties(const TriangleMesh& mesh) {
    const Eigen::Vector3d o = reference_point(mesh);
    const auto& v = mesh.vertices();
    double six_volume = 0.0;
    Eigen::Vector3d first = Eigen::Vector3d::Zero();
    Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
    for (const auto& t : mesh.triangles()) {
        const Eigen::Vector3d a = v[t[0]] - o, b = v[t[1]] - o, c = v[t[2]] - o;
        const Eigen::Vector3d s = a + b + c;
        const double det = a.dot(b.cross(c));
        six_volume += det;
        first += det * s;
        covariance +=
            det * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
    const double sign = six_volume < 0.0 ? -1.0 : 1.0;
    ShapeMassProperties p;
    p.volume = sign * six_volume / 6.0;
    if (!(p.volume > 0.0))
        return p;
    const Eigen::Vector3d offset = sign * first / 24.0 / p.volume;
    covariance = sign * covariance / 120.0 - p.volume * offset * offset.transpose();
    p.centroid = o + offset;
    p.inertia_per_density = covariance.trace() * Eigen::Matrix3d::Identity() - covariance;
    return p;
}

/// A piece of a 2D section's boundary in the x–z plane, as (x, z), running counter-clockwise
/// about the section (the section on its left, its outward normal on its right).
struct Segment {
    Eigen::Vector2d p, q;
};

/// Where the edge from u (y ≤ 0) to w (y > 0) crosses y = 0, as (x, z). Both triangles of an
/// edge call it with the same ends in the same order, so their segments meet exactly.
Eigen::Vector2d crossing(const Eigen::Vector3d& u, const Eigen::Vector3d& w) {
    const double t = u.y() / (u.y() - w.y());
    return {u.x() + t * (w.x() - u.x()), u.z() + t * (w.z() - u.z())};
}

/// The mesh's section by the plane y = 0, as closed loops of segments. A corner on the plane
/// counts as below it (the section is the one at y = 0⁺, where shape_contains tests: its ray
/// starts a little towards +y), so a face lying in the plane yields no segment and the loops
/// still close. A triangle's segment runs along N × ŷ = (−N_z, N_x) in (x, z), N its outward
/// normal, which puts the section on the segment's left.
std::vector<Segment> section_at_y0(const TriangleMesh& mesh) {
    const double sign = orientation(mesh);
    const auto& v = mesh.vertices();
    std::vector<Segment> segments;
    for (const auto& t : mesh.triangles()) {
        const std::array<Eigen::Vector3d, 3> c = {v[t[0]], v[t[1]], v[t[2]]};
        std::array<Eigen::Vector2d, 2> ends;
        int n = 0;
        for (int i = 0; i < 3; ++i) {
            const Eigen::Vector3d& a = c[i];
            const Eigen::Vector3d& b = c[(i + 1) % 3];
            if ((a.y() <= 0.0) != (b.y() <= 0.0) && n < 2)
                ends[n++] = a.y() <= 0.0 ? crossing(a, b) : crossing(b, a);
        }
        if (n != 2 || ends[0] == ends[1])
            continue;
        const Eigen::Vector3d normal = sign * (c[1] - c[0]).cross(c[2] - c[0]);
        if ((ends[1] - ends[0]).dot(Eigen::Vector2d(-normal.z(), normal.x())) < 0.0)
            std::swap(ends[0], ends[1]);
        segments.push_back({ends[0], ends[1]});
    }
    return segments;
}

/// Green's theorem over the section (Steger 1996): each segment (p, q) adds the signed triangle
/// (0, p, q), with c = p_x q_z − p_z q_x: A = Σ c/2, ∫x dA = Σ c (p_x + q_x)/6,
/// ∫x² dA = Σ c (p_x² + p_x q_x + q_x²)/12, and alike in z; taken about the mesh's bounding
/// box's centre, then moved to the centroid.
ShapeMassProperties section_properties(const TriangleMesh& mesh) {
    const Eigen::Vector3d o3 = reference_point(mesh);
    const Eigen::Vector2d o(o3.x(), o3.z());
    double area = 0.0, mx = 0.0, mz = 0.0, mxx = 0.0, mzz = 0.0;
    for (const Segment& s : section_at_y0(mesh)) {
        const Eigen::Vector2d p = s.p - o, q = s.q - o;
        const double c = p.x() * q.y() - p.y() * q.x();
        area += c;
        mx += c * (p.x() + q.x());
        mz += c * (p.y() + q.y());
        mxx += c * (p.x() * p.x() + p.x() * q.x() + q.x() * q.x());
        mzz += c * (p.y() * p.y() + p.y() * q.y() + q.y() * q.y());
    }
    ShapeMassProperties p;
    p.volume = area / 2.0;
    if (!(p.volume > 0.0))
        return p;
    const Eigen::Vector2d offset = Eigen::Vector2d(mx, mz) / 6.0 / p.volume;
    p.centroid = Eigen::Vector3d(o.x() + offset.x(), 0.0, o.y() + offset.y());
    p.inertia_per_density(1, 1) = (mxx + mzz) / 12.0 - p.volume * offset.squaredNorm();
    return p;
}

/// The divergence theorem with F = (0, 0, z − h) over the part of the solid below z = h: F
/// vanishes on the cut, so V = Σ over the triangles clipped to z ≤ h of ∫ (z − h) n_z dS = Σ
/// N_z/2 · (z̄ − h) for each piece (N its unnormalised normal, z̄ its centroid's height).
double mesh_volume_below(const TriangleMesh& mesh, double level) {
    const double sign = orientation(mesh);
    const auto& v = mesh.vertices();
    const Eigen::Vector3d shift(0.0, 0.0, level);
    auto cut = [](const Eigen::Vector3d& below, const Eigen::Vector3d& above) {
        Eigen::Vector3d x = below + below.z() / (below.z() - above.z()) * (above - below);
        x.z() = 0.0;
        return x;
    };
    double six_volume = 0.0;
    for (const auto& t : mesh.triangles()) {
        // Sutherland–Hodgman against one plane: a triangle clips to at most a quadrilateral.
        std::array<Eigen::Vector3d, 4> polygon;
        int n = 0;
        for (int i = 0; i < 3; ++i) {
            const Eigen::Vector3d a = v[t[i]] - shift, b = v[t[(i + 1) % 3]] - shift;
            if (a.z() <= 0.0)
                polygon[n++] = a;
            if ((a.z() <= 0.0) != (b.z() <= 0.0))
                polygon[n++] = a.z() <= 0.0 ? cut(a, b) : cut(b, a);
        }
        for (int k = 1; k + 1 < n; ++k) {
            const Eigen::Vector3d e1 = polygon[k] - polygon[0], e2 = polygon[k + 1] - polygon[0];
            const double normal_z = e1.x() * e2.y() - e1.y() * e2.x();
            six_volume += normal_z * (polygon[0].z() + polygon[k].z() + polygon[k + 1].z());
        }
    }
    return sign * six_volume / 6.0;
}

/// The same in 2D over the section's segments, F = (0, z − h): a counter-clockwise segment's
/// n_z ds is −dx, so A = −Σ Δx ((z_p + z_q)/2 − h) over the segments clipped to z ≤ h.
double section_area_below(const TriangleMesh& mesh, double level) {
    double area = 0.0;
    for (const Segment& s : section_at_y0(mesh)) {
        Eigen::Vector2d p = s.p, q = s.q;
        p.y() -= level;
        q.y() -= level;
        if (p.y() > 0.0 && q.y() > 0.0)
            continue;
        if (p.y() > 0.0 || q.y() > 0.0) {
            Eigen::Vector2d& above = p.y() > 0.0 ? p : q;
            const Eigen::Vector2d& below = p.y() > 0.0 ? q : p;
            above = below + below.y() / (below.y() - above.y()) * (above - below);
            above.y() = 0.0;
        }
        area -= (q.x() - p.x()) * (p.y() + q.y()) / 2.0;
    }
    return area;
}

// --- Primitives below a level ---------------------------------------------------------------

/// The area of the unit disc below the chord at height x (from its centre): a(x) = asin x +
/// x √(1 − x²) + π/2, 0 below the disc, π above it (the disc less the circular segment above
/// the chord, acos x − x √(1 − x²)). 1 − x² is formed as (1 − x)(1 + x), accurate near ±1.
double unit_disc_below(double x) {
    if (x <= -1.0)
        return 0.0;
    if (x >= 1.0)
        return pi;
    return std::asin(x) + x * std::sqrt((1.0 - x) * (1.0 + x)) + pi / 2.0;
}

/// An antiderivative of unit_disc_below, continuous over the whole line: G(x) = x asin x +
/// √(1 − x²) − (1 − x²)^{3/2}/3 + π x/2 on [−1, 1] (G(−1) = 0, G(1) = π), 0 below, π x above.
double unit_disc_below_integral(double x) {
    if (x <= -1.0)
        return 0.0;
    if (x >= 1.0)
        return pi * x;
    const double s = std::sqrt((1.0 - x) * (1.0 + x));
    return x * std::asin(x) + s - s * s * s / 3.0 + pi * x / 2.0;
}

/// The 20-point Gauss–Legendre rule on [−1, 1], its nodes found by Newton's iteration on
/// P_20 (Press et al., Numerical Recipes, §4.6 gauleg), once.
struct GaussLegendre {
    static constexpr int n = 20;
    std::array<double, n> node{}, weight{};
};

const GaussLegendre& gauss_legendre() {
    static const GaussLegendre rule = [] {
        GaussLegendre r;
        constexpr int n = GaussLegendre::n;
        for (int i = 0; i < n; ++i) {
            double x = std::cos(pi * (i + 0.75) / (n + 0.5)), derivative = 1.0;
            for (int iteration = 0; iteration < 100; ++iteration) {
                double p = 1.0, previous = 0.0; // P_j(x), P_{j-1}(x)
                for (int j = 1; j <= n; ++j) {
                    const double older = previous;
                    previous = p;
                    p = ((2.0 * j - 1.0) * x * previous - (j - 1.0) * older) / j;
                }
                derivative = n * (x * p - previous) / (x * x - 1.0);
                const double step = p / derivative;
                x -= step;
                if (std::abs(step) <= 1e-16)
                    break;
            }
            r.node[i] = x;
            r.weight[i] = 2.0 / ((1.0 - x * x) * derivative * derivative);
        }
        return r;
    }();
    return rule;
}

/// The volume of a cylinder below z = h. Its cross-section at axial distance t is a disc of
/// radius r tilted by the axis' angle α to the vertical, whose z-extent is ±r sin α about its
/// centre: the area below h is r² a(x(t)), x(t) = (h − z_start − t u_z)/(r sin α), and
/// V = r² ∫₀ᴸ a(x(t)) dt = r³ sin α (G(x(0)) − G(x(L)))/u_z in closed form (relative error
/// about 1e-16/|Δx| with Δx = x(0) − x(L), since G is of order 1). When |Δx| < 1e-3 (a nearly
/// horizontal axis) the integral is taken by Gauss–Legendre instead, split where x = ±1 (a's
/// kinks, where it goes as |1 ∓ x|^{3/2}), each piece mapped by t = t₀ + Δt (1 − cos πs)/2 to
/// smooth those end terms. Against a slice integration (tests) both stay within 3e-13 of the
/// volume, over tilts from vertical to 1e-8 rad off horizontal.
double cylinder_volume_below(const Cylinder& c, double level) {
    const Eigen::Vector3d axis = c.end - c.start;
    const double length = axis.norm(), r = c.radius;
    if (!(length > 0.0) || !(r > 0.0))
        return 0.0;
    const Eigen::Vector3d u = axis / length;
    const double sin_tilt = std::hypot(u.x(), u.y());
    if (sin_tilt == 0.0) // a vertical axis: whole discs
        return pi * r * r * std::clamp(level - std::min(c.start.z(), c.end.z()), 0.0, length);
    const double half_height = r * sin_tilt;
    const double x0 = (level - c.start.z()) / half_height;
    const double x1 = (level - c.end.z()) / half_height;
    if (std::abs(x0 - x1) >= 1e-3)
        return r * r * half_height * (unit_disc_below_integral(x0) - unit_disc_below_integral(x1)) /
               u.z();

    std::vector<double> ends = {0.0, length};
    if (u.z() != 0.0)
        for (const double side : {-1.0, 1.0}) {
            const double t = (level - c.start.z() - side * half_height) / u.z();
            if (t > 0.0 && t < length)
                ends.push_back(t);
        }
    std::sort(ends.begin(), ends.end());
    const GaussLegendre& rule = gauss_legendre();
    double integral = 0.0;
    for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
        const double t0 = ends[k], span = ends[k + 1] - ends[k];
        for (int i = 0; i < GaussLegendre::n; ++i) {
            const double s = (rule.node[i] + 1.0) / 2.0;
            const double t = t0 + span * (1.0 - std::cos(pi * s)) / 2.0;
            const double dt_ds = span * pi * std::sin(pi * s) / 2.0;
            const double x = (level - c.start.z() - t * u.z()) / half_height;
            integral += rule.weight[i] / 2.0 * dt_ds * unit_disc_below(x);
        }
    }
    return r * r * integral;
}

/// A spherical cap of height d below the level: V = π d² (3r − d)/3.
double sphere_volume_below(const Sphere& s, double level) {
    const double d = std::clamp(level - (s.center.z() - s.radius), 0.0, 2.0 * s.radius);
    return pi * d * d * (3.0 * s.radius - d) / 3.0;
}

/// A disc of radius r about (x, z) of `centre`: r² a((h − z_c)/r).
double disc_area_below(const Eigen::Vector3d& centre, double r, double level) {
    if (!(r > 0.0))
        return 0.0;
    return r * r * unit_disc_below((level - centre.z()) / r);
}

/// The shape's extent in z, m: the bracket floating_level searches.
std::pair<double, double> z_range(const Shape& shape, const Eigen::Vector3d& lo,
                                  const Eigen::Vector3d& hi, int dimension) {
    if (const auto* m = std::get_if<SurfaceMesh>(&shape))
        return {m->mesh->min().z(), m->mesh->max().z()};
    if (std::holds_alternative<BoxShape>(shape))
        return {lo.z(), hi.z()};
    Eigen::Vector3d min, max;
    primitive_bounds(shape, dimension, min, max);
    return {min.z(), max.z()};
}

} // namespace

ShapeMassProperties shape_mass_properties(const Shape& shape, const Eigen::Vector3d& bounds_min,
                                          const Eigen::Vector3d& bounds_max, int dimension) {
    ShapeMassProperties p;
    if (const auto* c = std::get_if<Cylinder>(&shape))
        p = dimension == 2 ? disc_properties(c->start, c->radius) : cylinder_properties(*c);
    else if (const auto* s = std::get_if<Sphere>(&shape))
        p = dimension == 2 ? disc_properties(s->center, s->radius) : sphere_properties(*s);
    else if (const auto* m = std::get_if<SurfaceMesh>(&shape))
        p = dimension == 2 ? section_properties(*m->mesh) : mesh_properties(*m->mesh);
    else
        p = box_properties(bounds_min, bounds_max, dimension);
    if (!(p.volume > 0.0))
        throw std::invalid_argument("the " + describe(shape) + " encloses no " +
                                    (dimension == 2 ? "area at y = 0" : "volume"));
    return p;
}

double volume_below(const Shape& shape, const Eigen::Vector3d& bounds_min,
                    const Eigen::Vector3d& bounds_max, int dimension, double level) {
    if (const auto* c = std::get_if<Cylinder>(&shape))
        return dimension == 2 ? disc_area_below(c->start, c->radius, level)
                              : cylinder_volume_below(*c, level);
    if (const auto* s = std::get_if<Sphere>(&shape))
        return dimension == 2 ? disc_area_below(s->center, s->radius, level)
                              : sphere_volume_below(*s, level);
    if (const auto* m = std::get_if<SurfaceMesh>(&shape))
        return dimension == 2 ? section_area_below(*m->mesh, level)
                              : mesh_volume_below(*m->mesh, level);
    const Eigen::Vector3d size = bounds_max - bounds_min;
    const double depth = std::clamp(level - bounds_min.z(), 0.0, size.z());
    return dimension == 2 ? size.x() * depth : size.x() * size.y() * depth;
}

std::optional<double> floating_level(const Shape& shape, const Eigen::Vector3d& bounds_min,
                                     const Eigen::Vector3d& bounds_max, int dimension, double rho,
                                     double mass) {
    if (!(rho > 0.0) || !(mass > 0.0) || !std::isfinite(rho) || !std::isfinite(mass))
        throw std::invalid_argument("floating_level needs a positive, finite density and mass");
    const auto [bottom, top] = z_range(shape, bounds_min, bounds_max, dimension);
    const double volume = volume_below(shape, bounds_min, bounds_max, dimension, top);
    if (!(volume > 0.0))
        throw std::invalid_argument("the " + describe(shape) + " encloses no " +
                                    (dimension == 2 ? "area at y = 0" : "volume"));
    const double displaced = mass / rho;
    if (displaced >= volume)
        return std::nullopt;
    // volume_below is non-decreasing in the level: bisection keeps the root bracketed.
    const double tolerance = 1e-13 * (top - bottom);
    double lo = bottom, hi = top;
    while (hi - lo > tolerance) {
        const double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi)
            break;
        (volume_below(shape, bounds_min, bounds_max, dimension, mid) < displaced ? lo : hi) = mid;
    }
    return lo + (hi - lo) / 2.0;
}

} // namespace sluice
