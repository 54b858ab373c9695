#include "case/geometry_checks.h"

#include "case/case_reader.h"
#include "case/motion_table.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {

namespace {

/// The axes that exist: x, z in 2D; x, y, z in 3D.
std::vector<int> axes(const Case& c) {
    return c.dimension == 2 ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2};
}

/// Geometric comparisons allow dp·1e-6 of rounding.
double tolerance(const Case& c) {
    return 1e-6 * c.dp;
}

bool overlaps(const Case& c, const Box& a, const Box& b) {
    for (const int k : axes(c))
        if (std::min(a.max[k], b.max[k]) - std::max(a.min[k], b.min[k]) <= tolerance(c))
            return false;
    return true;
}

bool contains(const Case& c, const Box& outer, const Box& inner) {
    const double tol = tolerance(c);
    for (const int k : axes(c))
        if (inner.min[k] < outer.min[k] - tol || inner.max[k] > outer.max[k] + tol)
            return false;
    return true;
}

void grow_to(Box& b, const Box& other) {
    b.min = b.min.cwiseMin(other.min);
    b.max = b.max.cwiseMax(other.max);
}

std::string line_ref(const SourceLocation& where) {
    return "line " + std::to_string(where.line);
}

} // namespace

std::string describe_box(const Case& c, const Box& b) {
    std::ostringstream lo, hi;
    for (const int k : axes(c)) {
        lo << (k == 0 ? "" : " ") << b.min[k];
        hi << (k == 0 ? "" : " ") << b.max[k];
    }
    return "[" + lo.str() + "] .. [" + hi.str() + "]";
}

namespace {

bool is_box(const Shape& s) {
    return std::holds_alternative<BoxShape>(s);
}

/// "box [..] .. [..]" or "surface 'f.stl' spanning [..] .. [..]" (so unit mistakes show).
std::string describe_region(const Case& c, const Shape& shape, const Box& box) {
    return is_box(shape) ? describe_box(c, box)
                         : describe(shape) + " spanning " + describe_box(c, box);
}

} // namespace

Box tank_with_walls(const TankWalls& t, double dp) {
    Box b = t.box;
    const double w = t.layers * dp;
    const unsigned lo_faces[3] = {face_left, face_front, face_bottom};
    const unsigned hi_faces[3] = {face_right, face_back, face_top};
    for (int k = 0; k < 3; ++k) {
        if (t.faces & lo_faces[k])
            b.min[k] -= w;
        if (t.faces & hi_faces[k])
            b.max[k] += w;
    }
    return b;
}

void check_fluid_placement(const Case& c) {
    for (std::size_t i = 0; i < c.fluids.size(); ++i) {
        const FluidRegion& f = c.fluids[i];
        auto fail = [&](const std::string& message) {
            throw CaseError(f.where.file, f.where.line, message);
        };
        if (c.tank && !contains(c, c.tank->box, f.box))
            fail("<fluid> " + describe_region(c, f.shape, f.box) +
                 " reaches outside the tank interior " + describe_box(c, c.tank->box) +
                 " (<tank> at " + line_ref(c.tank->where) + ")");
        // Boxes must not overlap (a mistake in a box layout); other shapes may: their lattice
        // points inside an earlier fluid or any obstacle are left out (particles.h).
        if (!is_box(f.shape))
            continue;
        for (std::size_t j = 0; j < i; ++j)
            if (is_box(c.fluids[j].shape) && overlaps(c, f.box, c.fluids[j].box))
                fail("<fluid> overlaps the <fluid> at " + line_ref(c.fluids[j].where));
        for (const Obstacle& o : c.obstacles)
            if (is_box(o.shape) && overlaps(c, f.box, o.box))
                fail("<fluid> overlaps the <obstacle> at " + line_ref(o.where));
    }
}

void check_domain(const Case& c, const SourceLocation& domain_where) {
    auto fail = [&](const std::string& message) {
        throw CaseError(domain_where.file, domain_where.line, message);
    };
    const std::string domain = "<domain> " + describe_box(c, c.domain);
    for (const FluidRegion& f : c.fluids)
        if (!contains(c, c.domain, f.box))
            fail(domain + " does not contain the <fluid> " + describe_region(c, f.shape, f.box) +
                 " at " + line_ref(f.where));
    if (c.tank) {
        const Box walls = tank_with_walls(*c.tank, c.dp);
        if (!contains(c, c.domain, walls))
            fail(domain + " does not contain the tank walls " + describe_box(c, walls) +
                 " (<tank> at " + line_ref(c.tank->where) + ", " + std::to_string(c.tank->layers) +
                 " layers of dp outside each face)");
    }
    for (const Obstacle& o : c.obstacles)
        if (!contains(c, c.domain, o.box))
            fail(domain + " does not contain the <obstacle> " + describe_region(c, o.shape, o.box) +
                 " at " + line_ref(o.where));
}

Box default_domain(const Case& c) {
    Box b = c.fluids.front().box;
    for (const FluidRegion& f : c.fluids)
        grow_to(b, f.box);
    if (c.tank)
        grow_to(b, tank_with_walls(*c.tank, c.dp));
    for (const Obstacle& o : c.obstacles)
        grow_to(b, o.box);
    if (has_motion(c)) { // what moving objects sweep over the run
        const MotionTables tables = make_motion_tables(c, c.run.end_time);
        const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
        for (std::uint32_t k = 0; k < tables.objects(); ++k)
            if (tables.moves[k])
                grow_to(b, swept_box(tables, k, objects[k].box, c.run.end_time));
        if (c.dimension == 2)
            b.min.y() = b.max.y() = 0.0;
    }
    double largest = 0.0;
    for (const int k : axes(c))
        largest = std::max(largest, b.max[k] - b.min[k]);
    for (const int k : axes(c)) {
        b.min[k] -= 0.1 * largest;
        b.max[k] += 0.1 * largest;
    }
    return b;
}

} // namespace sluice
