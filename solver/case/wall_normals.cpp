#include "case/wall_normals.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <variant>

namespace sluice {

namespace {

using Eigen::Vector3d;

/// A point of a solid's surface near a query point: s, the outward normal of the surface piece
/// it lies on (into the fluid), and its squared distance from the query point.
struct Candidate {
    Vector3d s;
    Vector3d n;
    double d2;
};

/// Sorts candidates by distance; equal distances keep the order they were listed in (tank
/// before obstacles in case order; a box's faces x, y, z, low before high; a mesh's primitives
/// by index), so a particle equidistant from two faces always gets the same one.
void sort_by_distance(std::vector<Candidate>& cands, std::vector<std::uint32_t>& order,
                      std::vector<Candidate>& sorted) {
    order.resize(cands.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return cands[a].d2 < cands[b].d2 || (cands[a].d2 == cands[b].d2 && a < b);
    });
    sorted.clear();
    for (const std::uint32_t i : order)
        sorted.push_back(cands[i]);
    cands.swap(sorted);
}

bool used_axis(int k, int dimension) {
    return dimension == 3 || k != 1;
}

/// The point of the face of [lo, hi] at `side` (0: lo, 1: hi) of `axis` nearest p: p with that
/// axis set to the face and the other used axes clamped to the box (2D: y = 0).
Vector3d face_point(const Box& b, int axis, int side, const Vector3d& p, int dimension) {
    Vector3d q = p;
    for (int k = 0; k < 3; ++k) {
        if (!used_axis(k, dimension))
            q[k] = 0.0;
        else if (k == axis)
            q[k] = side ? b.max[k] : b.min[k];
        else
            q[k] = std::clamp(p[k], b.min[k], b.max[k]);
    }
    return q;
}

/// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection, 2005, §5.1.5).
Vector3d closest_on_triangle(const Vector3d& p, const Vector3d& a, const Vector3d& b,
                             const Vector3d& c) {
    const Vector3d ab = b - a, ac = c - a, ap = p - a;
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return a;
    const Vector3d bp = p - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0.0 && d4 <= d3)
        return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return a + d1 / (d1 - d3) * ab;
    const Vector3d cp = p - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0.0 && d5 <= d6)
        return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return a + d2 / (d2 - d6) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
    const double denom = va + vb + vc;
    if (!(denom > 0.0)) // degenerate (zero-area) triangle: its longest edge's nearest point
        return (b - a).squaredNorm() >= (c - a).squaredNorm() ? a : c;
    return a + (vb / denom) * ab + (vc / denom) * ac;
}

Vector3d closest_on_segment(const Vector3d& p, const Vector3d& a, const Vector3d& b) {
    const Vector3d ab = b - a;
    const double l2 = ab.squaredNorm();
    if (l2 == 0.0)
        return a;
    return a + std::clamp((p - a).dot(ab) / l2, 0.0, 1.0) * ab;
}

/// A surface mesh's triangles (3D) or the segments of its section by the plane y = 0 (2D),
/// bucketed on a uniform grid by their bounding boxes, for nearest-point queries.
class MeshIndex {
public:
    MeshIndex(const TriangleMesh& mesh, int dimension) : dimension_(dimension) {
        const auto& v = mesh.vertices();
        double signed_volume = 0.0;
        for (const auto& t : mesh.triangles())
            signed_volume += v[t[0]].dot(v[t[1]].cross(v[t[2]]));
        const double outward = signed_volume < 0.0 ? -1.0 : 1.0; // normals of the winding
        for (const auto& t : mesh.triangles()) {
            const Vector3d &a = v[t[0]], &b = v[t[1]], &c = v[t[2]];
            Vector3d n = (b - a).cross(c - a);
            n = n.squaredNorm() > 0.0 ? Vector3d(outward * n.normalized()) : Vector3d::Zero();
            if (dimension == 3)
                prims_.push_back({a, b, c, n, false});
            else
                add_section(a, b, c, n);
        }
        build_grid();
    }

    /// Appends the nearest point of every primitive whose bounding box comes within `radius` of
    /// p (a superset of those within `radius`).
    void candidates(const Vector3d& p, double radius, std::vector<std::uint32_t>& scratch,
                    std::vector<Candidate>& out) const {
        scratch.clear();
        int lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = cell_of(p[k] - radius, k);
            hi[k] = cell_of(p[k] + radius, k);
        }
        for (int k = lo[2]; k <= hi[2]; ++k)
            for (int j = lo[1]; j <= hi[1]; ++j)
                for (int i = lo[0]; i <= hi[0]; ++i) {
                    const auto& cell =
                        cells_[(static_cast<std::size_t>(k) * dims_[1] + j) * dims_[0] + i];
                    scratch.insert(scratch.end(), cell.begin(), cell.end());
                }
        std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        for (const std::uint32_t id : scratch) {
            const Prim& q = prims_[id];
            const Vector3d s =
                q.segment ? closest_on_segment(p, q.a, q.b) : closest_on_triangle(p, q.a, q.b, q.c);
            out.push_back({s, q.n, (s - p).squaredNorm()});
        }
    }

    bool empty() const { return prims_.empty(); }
    Vector3d min() const { return min_; }
    Vector3d max() const { return max_; }

private:
    struct Prim {
        Vector3d a, b, c; ///< c unused for a segment
        Vector3d n;       ///< unit outward normal (2D: in the x–z plane); zero if degenerate
        bool segment;
    };

    /// The segment where triangle abc crosses y = 0 (2D), if it does along a length; its normal
    /// is the in-plane perpendicular on the side of the triangle's outward normal.
    void add_section(const Vector3d& a, const Vector3d& b, const Vector3d& c, const Vector3d& n) {
        const Vector3d v[3] = {a, b, c};
        Vector3d points[3];
        int count = 0;
        auto add = [&](const Vector3d& q) {
            const Vector3d in_plane(q.x(), 0.0, q.z());
            for (int i = 0; i < count; ++i)
                if ((points[i] - in_plane).squaredNorm() == 0.0)
                    return;
            if (count < 3)
                points[count++] = in_plane;
        };
        for (int i = 0; i < 3; ++i) {
            const Vector3d &e0 = v[i], &e1 = v[(i + 1) % 3];
            if (e0.y() == 0.0)
                add(e0);
            if ((e0.y() < 0.0 && e1.y() > 0.0) || (e0.y() > 0.0 && e1.y() < 0.0))
                add(e0 + (e1 - e0) * (-e0.y() / (e1.y() - e0.y())));
        }
        if (count != 2) // no crossing, a touching vertex, or a triangle in the plane
            return;
        const Vector3d d = points[1] - points[0];
        Vector3d perp(d.z(), 0.0, -d.x());
        const Vector3d in_plane(n.x(), 0.0, n.z());
        if (perp.squaredNorm() == 0.0)
            return;
        perp.normalize();
        if (perp.dot(in_plane) < 0.0)
            perp = -perp;
        prims_.push_back({points[0], points[1], points[1], perp, true});
    }

    void build_grid() {
        min_ = Vector3d::Constant(HUGE_VAL);
        max_ = Vector3d::Constant(-HUGE_VAL);
        for (const Prim& q : prims_)
            for (const Vector3d* v : {&q.a, &q.b, &q.c}) {
                min_ = min_.cwiseMin(*v);
                max_ = max_.cwiseMax(*v);
            }
        if (prims_.empty())
            min_ = max_ = Vector3d::Zero();
        // About two primitives per cell, at most 64 cells along an axis.
        const Vector3d size = (max_ - min_).cwiseMax(1e-300);
        const int axes = dimension_;
        const double volume = dimension_ == 3 ? size.prod() : size.x() * size.z();
        const double cells = std::max(1.0, static_cast<double>(prims_.size()) / 2.0);
        const double edge = std::pow(volume / cells, 1.0 / axes);
        for (int k = 0; k < 3; ++k) {
            dims_[k] = used_axis(k, dimension_)
                           ? static_cast<int>(std::clamp(std::ceil(size[k] / edge), 1.0, 64.0))
                           : 1;
            cell_[k] = size[k] / dims_[k];
        }
        cells_.assign(static_cast<std::size_t>(dims_[0]) * dims_[1] * dims_[2], {});
        for (std::uint32_t id = 0; id < prims_.size(); ++id) {
            const Prim& q = prims_[id];
            const Vector3d lo = q.a.cwiseMin(q.b).cwiseMin(q.c),
                           hi = q.a.cwiseMax(q.b).cwiseMax(q.c);
            for (int k = cell_of(lo.z(), 2); k <= cell_of(hi.z(), 2); ++k)
                for (int j = cell_of(lo.y(), 1); j <= cell_of(hi.y(), 1); ++j)
                    for (int i = cell_of(lo.x(), 0); i <= cell_of(hi.x(), 0); ++i)
                        cells_[(static_cast<std::size_t>(k) * dims_[1] + j) * dims_[0] + i]
                            .push_back(id);
        }
    }

    /// The cell of coordinate v along axis k, clamped to the grid (clamped as a double first).
    int cell_of(double v, int k) const {
        if (dims_[k] == 1)
            return 0;
        return static_cast<int>(
            std::clamp(std::floor((v - min_[k]) / cell_[k]), 0.0, dims_[k] - 1.0));
    }

    int dimension_;
    std::vector<Prim> prims_;
    Vector3d min_, max_;
    int dims_[3] = {1, 1, 1};
    double cell_[3] = {1.0, 1.0, 1.0};
    std::vector<std::vector<std::uint32_t>> cells_;
};

/// A unit vector perpendicular to u (deterministic).
Vector3d perpendicular(const Vector3d& u) {
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (std::abs(u[i]) < std::abs(u[k]))
            k = i;
    return u.cross(Vector3d::Unit(k)).normalized();
}

/// One solid of the case: the tank (beyond its chosen faces) or an obstacle.
struct Solid {
    const TankWalls* tank = nullptr;    ///< the tank, or
    const Obstacle* obstacle = nullptr; ///< an obstacle
    std::shared_ptr<const MeshIndex> mesh;
    Vector3d min, max; ///< bounds of the surface, m

    /// Every surface point of the solid within `radius` of p (more for primitives: all pieces).
    void candidates(const Vector3d& p, double radius, int dimension,
                    std::vector<std::uint32_t>& scratch, std::vector<Candidate>& out) const;
    /// Whether candidates() returns every piece whatever the radius (not a mesh).
    bool complete() const { return !mesh; }
};

void box_candidates(const Box& b, bool inward, unsigned faces, const Vector3d& p, int dimension,
                    std::vector<Candidate>& out) {
    const unsigned face_bits[3][2] = {
        {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
    for (int k = 0; k < 3; ++k) {
        if (!used_axis(k, dimension))
            continue;
        for (int side = 0; side < 2; ++side) {
            if (!(faces & face_bits[k][side]))
                continue;
            const Vector3d s = face_point(b, k, side, p, dimension);
            const double sign = (side ? 1.0 : -1.0) * (inward ? -1.0 : 1.0);
            out.push_back({s, sign * Vector3d::Unit(k), (s - p).squaredNorm()});
        }
    }
}

void Solid::candidates(const Vector3d& p, double radius, int dimension,
                       std::vector<std::uint32_t>& scratch, std::vector<Candidate>& out) const {
    if (tank) {
        box_candidates(tank->box, true, tank->faces, p, dimension, out);
        return;
    }
    const Shape& shape = obstacle->shape;
    if (const auto* cyl = std::get_if<Cylinder>(&shape)) {
        if (dimension == 2) {
            Vector3d d(p.x() - cyl->start.x(), 0.0, p.z() - cyl->start.z());
            d = d.squaredNorm() > 0.0 ? Vector3d(d.normalized()) : Vector3d::UnitZ();
            const Vector3d s = Vector3d(cyl->start.x(), 0.0, cyl->start.z()) + cyl->radius * d;
            out.push_back({s, d, (s - p).squaredNorm()});
            return;
        }
        const Vector3d axis = cyl->end - cyl->start;
        const double length = axis.norm();
        const Vector3d u = axis / length;
        const double t = (p - cyl->start).dot(u);
        const Vector3d radial = p - cyl->start - t * u;
        const double r = radial.norm();
        const Vector3d dir = r > 0.0 ? Vector3d(radial / r) : perpendicular(u);
        const Vector3d side = cyl->start + std::clamp(t, 0.0, length) * u + cyl->radius * dir;
        out.push_back({side, dir, (side - p).squaredNorm()});
        const Vector3d in_disc = std::min(r, cyl->radius) * dir;
        const Vector3d s0 = cyl->start + in_disc, s1 = cyl->end + in_disc;
        out.push_back({s0, -u, (s0 - p).squaredNorm()});
        out.push_back({s1, u, (s1 - p).squaredNorm()});
        return;
    }
    if (const auto* sph = std::get_if<Sphere>(&shape)) {
        Vector3d c = sph->center;
        if (dimension == 2)
            c.y() = 0.0;
        Vector3d d = p - c;
        d = d.squaredNorm() > 0.0 ? Vector3d(d.normalized()) : Vector3d::UnitZ();
        const Vector3d s = c + sph->radius * d;
        out.push_back({s, d, (s - p).squaredNorm()});
        return;
    }
    if (mesh) {
        mesh->candidates(p, radius, scratch, out);
        return;
    }
    box_candidates(obstacle->box, false, ~0u, p, dimension, out);
}

/// The case's solids and the test of whether a point is in the open.
class Solids {
public:
    explicit Solids(const Case& c) : c_(c) {
        if (c.tank) {
            Solid s;
            s.tank = &*c.tank;
            s.min = c.tank->box.min;
            s.max = c.tank->box.max;
            solids_.push_back(s);
        }
        for (const Obstacle& o : c.obstacles) {
            Solid s;
            s.obstacle = &o;
            s.min = o.box.min;
            s.max = o.box.max;
            if (const auto* m = std::get_if<SurfaceMesh>(&o.shape)) {
                s.mesh = std::make_shared<const MeshIndex>(*m->mesh, c.dimension);
                s.min = s.mesh->min();
                s.max = s.mesh->max();
            }
            solids_.push_back(s);
        }
        for (const Solid& solid : solids_)
            every_.push_back(&solid);
    }

    Solids(const Solids&) = delete; // every_ points into solids_
    Solids& operator=(const Solids&) = delete;

    const std::vector<Solid>& all() const { return solids_; }
    /// Pointers to all(), for searching every solid.
    const std::vector<const Solid*>& every() const { return every_; }

    /// The solid a boundary particle belongs to (header's rule), or nullptr.
    const Solid* owner(const Vector3d& p) const {
        for (const Solid& s : solids_)
            if (s.obstacle && shape_contains(s.obstacle->shape, s.obstacle->box.min,
                                             s.obstacle->box.max, p, c_.dimension))
                return &s;
        if (c_.tank)
            for (int k = 0; k < 3; ++k)
                if (used_axis(k, c_.dimension) &&
                    (p[k] < c_.tank->box.min[k] || p[k] > c_.tank->box.max[k]))
                    return &solids_.front();
        return nullptr;
    }

    /// In no obstacle's shape and not beyond a chosen face of the tank's interior box.
    bool open(const Vector3d& q) const {
        if (c_.tank) {
            const unsigned bits[3][2] = {
                {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
            const TankWalls& t = *c_.tank;
            for (int k = 0; k < 3; ++k)
                if (used_axis(k, c_.dimension) &&
                    ((q[k] < t.box.min[k] && (t.faces & bits[k][0])) ||
                     (q[k] > t.box.max[k] && (t.faces & bits[k][1]))))
                    return false;
        }
        for (const Obstacle& o : c_.obstacles)
            if (shape_contains(o.shape, o.box.min, o.box.max, q, c_.dimension))
                return false;
        return true;
    }

    const Case& the_case() const { return c_; }

private:
    const Case& c_;
    std::vector<Solid> solids_;
    std::vector<const Solid*> every_;
};

/// Per-thread buffers of the searches.
struct Scratch {
    std::vector<Candidate> candidates, sorted;
    std::vector<std::uint32_t> ids, order;
};

enum class Search { found, on_surface, none };

/// The nearest surface point of `solids` (a list of pointers) whose ghost 2s − p is in the
/// open, searching meshes in growing radii until every piece has been seen. With
/// `check_surface`, a nearest point closer than `eps` (the particle is on the surface) ends the
/// search as on_surface; otherwise such points are passed over.
template <class SolidListT>
Search nearest_open(const Solids& solids, const SolidListT& list, const Vector3d& p,
                    bool check_surface, Scratch& scratch, Candidate& result) {
    const Case& c = solids.the_case();
    const double eps2 = 1e-18 * c.dp * c.dp;
    bool complete = true;
    double reach = 0.0;
    for (const Solid* s : list) {
        complete = complete && s->complete();
        const Vector3d far = (s->min - p).cwiseAbs().cwiseMax((s->max - p).cwiseAbs());
        reach = std::max(reach, far.norm());
    }
    double radius = complete ? HUGE_VAL : 2.0 * c.dp;
    for (;;) {
        auto& cands = scratch.candidates;
        cands.clear();
        for (const Solid* s : list)
            s->candidates(p, radius, c.dimension, scratch.ids, cands);
        sort_by_distance(cands, scratch.order, scratch.sorted);
        const double r2 = radius * radius;
        if (check_surface && !cands.empty() && cands.front().d2 <= r2 && cands.front().d2 < eps2)
            return Search::on_surface;
        for (const Candidate& k : cands) {
            if (k.d2 > r2)
                break;
            if (k.d2 >= eps2 && solids.open(2.0 * k.s - p)) {
                result = k;
                return Search::found;
            }
        }
        if (complete || radius > reach)
            return Search::none;
        radius *= 2.0;
    }
}

WallGhost ghost_of(const Solids& solids, const Vector3d& p, Scratch& scratch) {
    WallGhost g;
    const Solid* own = solids.owner(p);
    if (!own)
        return g;
    Candidate k;
    const Solid* const one[1] = {own};
    Search r = nearest_open(solids, one, p, true, scratch, k);
    if (r == Search::on_surface)
        return g;
    if (r == Search::none) {
        r = nearest_open(solids, solids.every(), p, false, scratch, k);
        if (r != Search::found)
            return g;
    }
    g.found = true;
    g.normal = (k.s - p).normalized();
    g.ghost = 2.0 * k.s - p;
    return g;
}

} // namespace

std::vector<WallGhost> wall_ghosts(const Case& c,
                                   const std::vector<Eigen::Vector3d>& boundary_positions) {
    const Solids solids(c);
    std::vector<WallGhost> out(boundary_positions.size());
    const long n = static_cast<long>(boundary_positions.size());
#pragma omp parallel if (n > 4096)
    {
        Scratch scratch;
#pragma omp for schedule(dynamic, 1024)
        for (long i = 0; i < n; ++i)
            out[static_cast<std::size_t>(i)] =
                ghost_of(solids, boundary_positions[static_cast<std::size_t>(i)], scratch);
    }
    return out;
}

std::optional<Eigen::Vector3d> wall_surface_normal(const Case& c, const Eigen::Vector3d& point) {
    const Solids solids(c);
    Scratch scratch;
    auto& cands = scratch.candidates;
    for (const Solid& s : solids.all())
        s.candidates(point, c.dp, c.dimension, scratch.ids, cands);
    sort_by_distance(cands, scratch.order, scratch.sorted);
    const Candidate* nearest = nullptr;
    for (const Candidate& k : cands) {
        if (k.d2 > c.dp * c.dp)
            break;
        if (k.n.squaredNorm() == 0.0)
            continue; // a degenerate mesh triangle
        if (solids.open(k.s + 1e-6 * c.dp * k.n))
            return k.n;
        if (!nearest)
            nearest = &k;
    }
    if (nearest)
        return nearest->n;
    return std::nullopt;
}

} // namespace sluice
