#include "case/particles.h"

#include "case/constants.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace sluice {

namespace {

using Eigen::Vector3d;

/// Axes a case uses: x, z in 2D; x, y, z in 3D (a range for range-for, no allocation).
struct UsedAxes {
    int count;
    const int* begin() const { return axes + (count == 2 ? 3 : 0); }
    const int* end() const { return begin() + count; }
    static constexpr int axes[5] = {0, 1, 2, 0, 2};
};
UsedAxes used_axes(int dimension) {
    return UsedAxes{dimension == 2 ? 2 : 3};
}

/// Lattice coordinates lo + (i + ½)·dp whose centre lies inside (lo, hi). The tolerance keeps a
/// box whose extent is a whole number of dp from losing its last point to rounding.
std::vector<double> axis_lattice(double lo, double hi, double dp) {
    const double n = std::ceil((hi - lo) / dp - 0.5 - 1e-6);
    std::vector<double> out;
    for (long i = 0; i < static_cast<long>(n); ++i)
        out.push_back(lo + (static_cast<double>(i) + 0.5) * dp);
    return out;
}

bool inside(const Box& box, const Vector3d& p, int dimension) {
    for (int k : used_axes(dimension))
        if (p[k] < box.min[k] || p[k] > box.max[k])
            return false;
    return true;
}

/// Calls emit(point) for every lattice point of the product of per-axis coordinate lists
/// (x fastest, z slowest); in 2D the y list is {0}.
template <class EmitT>
void for_each_product(const std::vector<double> (&axes)[3], EmitT&& emit) {
    for (double z : axes[2])
        for (double y : axes[1])
            for (double x : axes[0])
                emit(Vector3d(x, y, z));
}

/// Points of a filled box on min + (i + ½)·dp (fluid boxes, obstacles), skipping those inside
/// an earlier box of the same list.
void fill_boxes(const std::vector<Box>& boxes, const Case& c, ParticleType type, ParticleSet& out) {
    for (std::size_t b = 0; b < boxes.size(); ++b) {
        std::vector<double> axes[3] = {{0.0}, {0.0}, {0.0}};
        for (int k : used_axes(c.dimension))
            axes[k] = axis_lattice(boxes[b].min[k], boxes[b].max[k], c.dp);
        for_each_product(axes, [&](const Vector3d& p) {
            for (std::size_t e = 0; e < b; ++e)
                if (inside(boxes[e], p, c.dimension))
                    return;
            out.position.push_back(p);
            out.type.push_back(type);
        });
    }
}

void fill_tank(const TankWalls& tank, const Case& c, ParticleSet& out) {
    // Faces per axis: {low, high}.
    const unsigned faces[3][2] = {
        {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
    std::vector<double> axes[3] = {{0.0}, {0.0}, {0.0}};
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}; // interior (no wall coordinate inside)
    for (int k : used_axes(c.dimension)) {
        const double a = tank.box.min[k], b = tank.box.max[k];
        lo[k] = a;
        hi[k] = b;
        std::vector<double>& axis = axes[k];
        axis.clear();
        if (tank.faces & faces[k][0])
            for (int layer = tank.layers - 1; layer >= 0; --layer)
                axis.push_back(a - (layer + 0.5) * c.dp);
        const std::vector<double> interior = axis_lattice(a, b, c.dp);
        axis.insert(axis.end(), interior.begin(), interior.end());
        if (tank.faces & faces[k][1])
            for (int layer = 0; layer < tank.layers; ++layer)
                axis.push_back(b + (layer + 0.5) * c.dp);
    }
    for_each_product(axes, [&](const Vector3d& p) {
        bool wall = false;
        for (int k : used_axes(c.dimension))
            wall = wall || p[k] < lo[k] || p[k] > hi[k];
        if (wall) {
            out.position.push_back(p);
            out.type.push_back(ParticleType::boundary);
        }
    });
}

/// Hydrostatic initial densities (rules in particles.h).
void set_hydrostatic_density(const Case& c, ParticleSet& s) {
    const double g = c.constants.gravity, rho0 = c.constants.rho0, gamma = c.constants.gamma;
    const double b = s.constants.b, dp = c.dp, support = s.constants.support;
    auto density_at_depth = [&](double depth) {
        return static_cast<float>(rho0 *
                                  std::pow(1.0 + rho0 * g * std::max(depth, 0.0) / b, 1.0 / gamma));
    };

    // Free surface per fluid column, columns keyed on a half-dp raster of (x, y).
    using Key = std::pair<long long, long long>;
    auto column_of = [&](const Vector3d& p) {
        return Key(std::llround(2.0 * p.x() / dp), std::llround(2.0 * p.y() / dp));
    };
    std::map<Key, double> surface;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.type[i] != ParticleType::fluid)
            continue;
        const double top = s.position[i].z() + 0.5 * dp;
        auto [it, fresh] = surface.emplace(column_of(s.position[i]), top);
        if (!fresh)
            it->second = std::max(it->second, top);
    }
    // Columns bucketed by 2h horizontally for the boundary particles' nearest-column search.
    struct Column {
        double x, y, surface;
    };
    std::map<Key, std::vector<Column>> buckets;
    auto bucket_of = [&](double x, double y) {
        return Key(static_cast<long long>(std::floor(x / support)),
                   static_cast<long long>(std::floor(y / support)));
    };
    for (const auto& [key, top] : surface) {
        const double x = 0.5 * dp * static_cast<double>(key.first);
        const double y = 0.5 * dp * static_cast<double>(key.second);
        buckets[bucket_of(x, y)].push_back({x, y, top});
    }

    s.density.resize(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Vector3d& p = s.position[i];
        if (s.type[i] == ParticleType::fluid) {
            s.density[i] = density_at_depth(surface.at(column_of(p)) - p.z());
            continue;
        }
        // Nearest column within 2h; on a tie the higher surface.
        double best_d2 = support * support, top = -HUGE_VAL;
        const Key home = bucket_of(p.x(), p.y());
        for (long long bx = home.first - 1; bx <= home.first + 1; ++bx)
            for (long long by = home.second - 1; by <= home.second + 1; ++by) {
                const auto it = buckets.find(Key(bx, by));
                if (it == buckets.end())
                    continue;
                for (const Column& col : it->second) {
                    const double d2 =
                        (col.x - p.x()) * (col.x - p.x()) + (col.y - p.y()) * (col.y - p.y());
                    if (d2 < best_d2 || (d2 == best_d2 && col.surface > top)) {
                        best_d2 = d2;
                        top = col.surface;
                    }
                }
            }
        s.density[i] = density_at_depth(top - p.z()); // no column: depth −∞ → ρ0
    }
}

} // namespace

ParticleSet generate_particles(const Case& c) {
    ParticleSet s;
    s.dimension = c.dimension;
    if (c.tank)
        fill_tank(*c.tank, c, s);
    std::vector<Box> boxes;
    for (const Obstacle& o : c.obstacles)
        boxes.push_back(o.box);
    fill_boxes(boxes, c, ParticleType::boundary, s);
    s.boundary_count = s.size();
    boxes.clear();
    for (const FluidRegion& f : c.fluids)
        boxes.push_back(f.box);
    fill_boxes(boxes, c, ParticleType::fluid, s);
    s.fluid_count = s.size() - s.boundary_count;

    if (s.fluid_count > 0) {
        double z_lo = HUGE_VAL, z_hi = -HUGE_VAL;
        for (std::size_t i = s.boundary_count; i < s.size(); ++i) {
            z_lo = std::min(z_lo, s.position[i].z());
            z_hi = std::max(z_hi, s.position[i].z());
        }
        s.fluid_height = z_hi - z_lo + c.dp;
    }
    s.constants = derive_constants(c, s.fluid_height);
    set_hydrostatic_density(c, s);
    return s;
}

} // namespace sluice
