#include "case/shapes.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sluice {

namespace {

constexpr double pi = 3.14159265358979323846;

/// The cell of coordinate v in n cells of `size` from lo, clamped to [0, n): clamped as a double
/// before the cast, so no value (a point far outside the mesh) overflows an int.
int cell_index(double v, double lo, double size, int n) {
    return static_cast<int>(std::clamp(std::floor((v - lo) / size), 0.0, n - 1.0));
}

/// Twice the signed area of the triangle (a, b, q) in the x–y plane.
double orient(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& q) {
    return (b.x() - a.x()) * (q.y() - a.y()) - (b.y() - a.y()) * (q.x() - a.x());
}

} // namespace

TriangleMesh::TriangleMesh(std::vector<Eigen::Vector3d> vertices,
                           std::vector<std::array<std::size_t, 3>> triangles)
    : vertices_(std::move(vertices)), triangles_(std::move(triangles)) {
    for (const Eigen::Vector3d& v : vertices_)
        if (!v.allFinite())
            throw std::invalid_argument("a mesh vertex is not a finite coordinate");
    min_ = Eigen::Vector3d::Constant(HUGE_VAL);
    max_ = Eigen::Vector3d::Constant(-HUGE_VAL);
    for (const auto& t : triangles_)
        for (const std::size_t v : t) {
            min_ = min_.cwiseMin(vertices_[v]);
            max_ = max_.cwiseMax(vertices_[v]);
        }
    double signed_volume = 0.0;
    for (const auto& t : triangles_)
        signed_volume += vertices_[t[0]].dot(vertices_[t[1]].cross(vertices_[t[2]])) / 6.0;
    volume_ = std::abs(signed_volume);

    // About four triangles per cell on average, at most 512 cells along an axis.
    const double sx = std::max(max_.x() - min_.x(), 1e-300);
    const double sy = std::max(max_.y() - min_.y(), 1e-300);
    const double cells = std::clamp(static_cast<double>(triangles_.size()) / 4.0, 1.0, 512.0 * 512);
    nx_ = static_cast<int>(std::clamp(std::floor(std::sqrt(cells * sx / sy)), 1.0, 512.0));
    ny_ = static_cast<int>(std::clamp(std::floor(cells / nx_), 1.0, 512.0));
    cell_x_ = sx / nx_;
    cell_y_ = sy / ny_;
    buckets_.assign(static_cast<std::size_t>(nx_) * ny_, {});
    auto cell = [](double v, double lo, double size, int n) { return cell_index(v, lo, size, n); };
    for (std::uint32_t k = 0; k < triangles_.size(); ++k) {
        Eigen::Vector3d lo = vertices_[triangles_[k][0]], hi = lo;
        for (const std::size_t v : triangles_[k]) {
            lo = lo.cwiseMin(vertices_[v]);
            hi = hi.cwiseMax(vertices_[v]);
        }
        for (int j = cell(lo.y(), min_.y(), cell_y_, ny_);
             j <= cell(hi.y(), min_.y(), cell_y_, ny_); ++j)
            for (int i = cell(lo.x(), min_.x(), cell_x_, nx_);
                 i <= cell(hi.x(), min_.x(), cell_x_, nx_); ++i)
                buckets_[static_cast<std::size_t>(j) * nx_ + i].push_back(k);
    }
    // An offset no lattice or mesh coordinate shares: irrational multiples of 1e-9 of the size.
    const double size = (max_ - min_).norm();
    jitter_ = Eigen::Vector2d(std::sqrt(2.0), std::sqrt(3.0)) * 1e-9 * size;
}

bool TriangleMesh::contains(const Eigen::Vector3d& p) const {
    const Eigen::Vector2d q(p.x() + jitter_.x(), p.y() + jitter_.y());
    if (q.x() < min_.x() || q.x() > max_.x() || q.y() < min_.y() || q.y() > max_.y() ||
        p.z() < min_.z() || p.z() > max_.z())
        return false;
    const int i = cell_index(q.x(), min_.x(), cell_x_, nx_);
    const int j = cell_index(q.y(), min_.y(), cell_y_, ny_);
    int crossings = 0;
    for (const std::uint32_t k : buckets_[static_cast<std::size_t>(j) * nx_ + i]) {
        const Eigen::Vector3d& a = vertices_[triangles_[k][0]];
        const Eigen::Vector3d& b = vertices_[triangles_[k][1]];
        const Eigen::Vector3d& c = vertices_[triangles_[k][2]];
        const Eigen::Vector2d a2 = a.head<2>(), b2 = b.head<2>(), c2 = c.head<2>();
        const double area = orient(a2, b2, c2);
        if (area == 0.0)
            continue; // a vertical triangle: the ray runs along it, the faces around it count
        const double wa = orient(b2, c2, q) / area, wb = orient(c2, a2, q) / area,
                     wc = orient(a2, b2, q) / area;
        if (wa < 0.0 || wb < 0.0 || wc < 0.0)
            continue;
        if (wa * a.z() + wb * b.z() + wc * c.z() > p.z())
            ++crossings;
    }
    return crossings % 2 == 1;
}

std::string describe(const Shape& shape) {
    if (std::holds_alternative<Cylinder>(shape))
        return "cylinder";
    if (std::holds_alternative<Sphere>(shape))
        return "sphere";
    if (const auto* m = std::get_if<SurfaceMesh>(&shape))
        return "surface '" + m->file + "'";
    return "box";
}

bool shape_contains(const Shape& shape, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi,
                    const Eigen::Vector3d& p, int dimension) {
    if (const auto* c = std::get_if<Cylinder>(&shape)) {
        if (dimension == 2) {
            const double dx = p.x() - c->start.x(), dz = p.z() - c->start.z();
            return dx * dx + dz * dz <= c->radius * c->radius;
        }
        const Eigen::Vector3d axis = c->end - c->start;
        const double t = (p - c->start).dot(axis) / axis.squaredNorm();
        if (t < 0.0 || t > 1.0)
            return false;
        return (p - c->start - t * axis).squaredNorm() <= c->radius * c->radius;
    }
    if (const auto* s = std::get_if<Sphere>(&shape)) {
        Eigen::Vector3d d = p - s->center;
        if (dimension == 2)
            d.y() = 0.0;
        return d.squaredNorm() <= s->radius * s->radius;
    }
    if (const auto* m = std::get_if<SurfaceMesh>(&shape))
        return m->mesh->contains(p);
    for (int k = 0; k < 3; ++k)
        if ((dimension == 3 || k != 1) && (p[k] < lo[k] || p[k] > hi[k]))
            return false;
    return true;
}

double shape_volume(const Shape& shape, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi,
                    int dimension) {
    if (const auto* c = std::get_if<Cylinder>(&shape))
        return dimension == 2 ? pi * c->radius * c->radius
                              : pi * c->radius * c->radius * (c->end - c->start).norm();
    if (const auto* s = std::get_if<Sphere>(&shape))
        return dimension == 2 ? pi * s->radius * s->radius
                              : 4.0 / 3.0 * pi * s->radius * s->radius * s->radius;
    if (const auto* m = std::get_if<SurfaceMesh>(&shape)) {
        if (dimension == 3)
            return m->mesh->volume();
        // 2D: the profile's area, estimated from the volume over the mesh's y extent.
        const double depth = m->mesh->max().y() - m->mesh->min().y();
        return depth > 0.0 ? m->mesh->volume() / depth : 0.0;
    }
    double v = 1.0;
    for (int k = 0; k < 3; ++k)
        if (dimension == 3 || k != 1)
            v *= hi[k] - lo[k];
    return v;
}

void primitive_bounds(const Shape& shape, int dimension, Eigen::Vector3d& lo, Eigen::Vector3d& hi) {
    if (const auto* s = std::get_if<Sphere>(&shape)) {
        lo = s->center - Eigen::Vector3d::Constant(s->radius);
        hi = s->center + Eigen::Vector3d::Constant(s->radius);
    } else if (const auto* c = std::get_if<Cylinder>(&shape)) {
        if (dimension == 2) {
            lo = c->start - Eigen::Vector3d::Constant(c->radius);
            hi = c->start + Eigen::Vector3d::Constant(c->radius);
        } else {
            // The end discs' extents: r·sqrt(1 − u_k²) about each end centre along axis k.
            const Eigen::Vector3d u = (c->end - c->start).normalized();
            Eigen::Vector3d reach;
            for (int k = 0; k < 3; ++k)
                reach[k] = c->radius * std::sqrt(std::max(0.0, 1.0 - u[k] * u[k]));
            lo = c->start.cwiseMin(c->end) - reach;
            hi = c->start.cwiseMax(c->end) + reach;
        }
    }
    if (dimension == 2)
        lo.y() = hi.y() = 0.0;
}

} // namespace sluice
