#include "case/particles.h"

#include "case/case_reader.h"
#include "case/constants.h"

#include <algorithm>
#include <array>
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

/// Calls emit(point) for every lattice point of the product of per-axis coordinate lists
/// (x fastest, z slowest); in 2D the y list is {0}.
template <class EmitT>
void for_each_product(const std::vector<double> (&axes)[3], EmitT&& emit) {
    for (double z : axes[2])
        for (double y : axes[1])
            for (double x : axes[0])
                emit(Vector3d(x, y, z));
}

/// A region to fill: its lattice box, shape and (obstacles) shell thickness in layers.
struct Region {
    const Box* box;
    const Shape* shape;
    int layers; ///< 0: filled
};

/// Offsets (in lattice steps, used axes only) within `layers` spacings, nearest first: the
/// neighbourhood a shell point must see the outside in.
std::vector<std::array<int, 3>> shell_offsets(int layers, int dimension) {
    std::vector<std::array<int, 3>> out;
    const int ly = dimension == 3 ? layers : 0;
    for (int k = -layers; k <= layers; ++k)
        for (int j = -ly; j <= ly; ++j)
            for (int i = -layers; i <= layers; ++i)
                if ((i || j || k) && i * i + j * j + k * k <= layers * layers)
                    out.push_back({i, j, k});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a[0] * a[0] + a[1] * a[1] + a[2] * a[2] < b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    });
    return out;
}

/// Lattice points box.min + (i + ½)·dp of each region that lie inside its shape, skipping those
/// inside an earlier region of the list and those `excluded` says no to (fluid inside an
/// obstacle). With layers = L > 0 a point is kept only if a lattice point within L·dp of it is
/// outside the shape (outside the box counts as outside): L layers under a face that lies on the
/// lattice's half-spacing, like the tank's walls.
/// `from`: the first region to fill (the earlier ones only exclude points).
template <class ExcludedT>
void fill_regions(const std::vector<Region>& regions, const Case& c, ParticleType type,
                  const std::vector<Eigen::Vector3d>& velocities, ExcludedT excluded,
                  ParticleSet& out, std::size_t from = 0) {
    const int d = c.dimension;
    for (std::size_t r = from; r < regions.size(); ++r) {
        const Box& box = *regions[r].box;
        std::vector<double> axes[3] = {{0.0}, {0.0}, {0.0}};
        for (int k : used_axes(d))
            axes[k] = axis_lattice(box.min[k], box.max[k], c.dp);
        const long nx = static_cast<long>(axes[0].size()), ny = static_cast<long>(axes[1].size()),
                   nz = static_cast<long>(axes[2].size());
        auto at = [&](long i, long j, long k) {
            return Vector3d(axes[0][i], axes[1][j], axes[2][k]);
        };
        // Inside mask over the region's lattice (the shape test can be costly: a mesh).
        std::vector<char> inside(static_cast<std::size_t>(nx * ny * nz));
        auto index = [&](long i, long j, long k) {
            return static_cast<std::size_t>((k * ny + j) * nx + i);
        };
#pragma omp parallel for schedule(dynamic, 1) if (nz > 1 && nx * ny * nz > 20000)
        for (long k = 0; k < nz; ++k)
            for (long j = 0; j < ny; ++j)
                for (long i = 0; i < nx; ++i)
                    inside[index(i, j, k)] =
                        shape_contains(*regions[r].shape, box.min, box.max, at(i, j, k), d);
        const int layers = regions[r].layers;
        const auto offsets =
            layers > 0 ? shell_offsets(layers, d) : std::vector<std::array<int, 3>>{};
        auto in_shell = [&](long i, long j, long k) {
            for (const auto& o : offsets) {
                const long a = i + o[0], b = j + o[1], e = k + o[2]; // 2D: o[1] = 0
                if (a < 0 || b < 0 || e < 0 || a >= nx || b >= ny || e >= nz ||
                    !inside[index(a, b, e)])
                    return true;
            }
            return false;
        };
        for (long k = 0; k < nz; ++k)
            for (long j = 0; j < ny; ++j)
                for (long i = 0; i < nx; ++i) {
                    if (!inside[index(i, j, k)] || (layers > 0 && !in_shell(i, j, k)))
                        continue;
                    const Vector3d p = at(i, j, k);
                    bool skip = excluded(p);
                    for (std::size_t e = 0; e < r && !skip; ++e)
                        skip = shape_contains(*regions[e].shape, regions[e].box->min,
                                              regions[e].box->max, p, d);
                    if (skip)
                        continue;
                    out.position.push_back(p);
                    out.type.push_back(type);
                    out.velocity.push_back(velocities.empty() ? Vector3d::Zero() : velocities[r]);
                }
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
            out.velocity.push_back(Vector3d::Zero());
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

ParticleCountEstimate estimate_particle_count(const Case& c) {
    // Points of axis_lattice(lo, hi, dp), without building it.
    auto axis_count = [&](double lo, double hi) {
        return std::max(0.0, std::ceil((hi - lo) / c.dp - 0.5 - 1e-6));
    };
    auto region_count = [&](const Box& box, const Shape& shape) {
        if (!std::holds_alternative<BoxShape>(shape))
            return shape_volume(shape, box.min, box.max, c.dimension) / std::pow(c.dp, c.dimension);
        double n = 1.0;
        for (int k : used_axes(c.dimension))
            n *= axis_count(box.min[k], box.max[k]);
        return n;
    };
    ParticleCountEstimate e;
    for (const FluidRegion& f : c.fluids)
        e.fluid += region_count(f.box, f.shape);
    for (const Obstacle& o : c.obstacles)
        e.boundary += region_count(o.box, o.shape);
    if (c.tank) {
        // fill_tank: the product of the walled axes less the interior's.
        const unsigned faces[3][2] = {
            {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
        double all = 1.0, interior = 1.0;
        for (int k : used_axes(c.dimension)) {
            const double inside = axis_count(c.tank->box.min[k], c.tank->box.max[k]);
            const int walls =
                ((c.tank->faces & faces[k][0]) ? 1 : 0) + ((c.tank->faces & faces[k][1]) ? 1 : 0);
            interior *= inside;
            all *= inside + walls * c.tank->layers;
        }
        e.boundary += all - interior;
    }
    return e;
}

namespace {

/// The boundary particles: tank walls, then obstacles in case order (each obstacle's after the
/// earlier ones', fill_regions), and each object's ids.
void fill_boundary(const Case& c, ParticleSet& s) {
    auto since = [&](std::size_t first) {
        s.objects.push_back(
            {static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(s.size() - first)});
    };
    if (c.tank) {
        fill_tank(*c.tank, c, s);
        since(0);
    }
    for (const Obstacle& o : c.obstacles) {
        const std::size_t first = s.size();
        std::vector<Region> solids;
        for (const Obstacle& earlier : c.obstacles) {
            solids.push_back({&earlier.box, &earlier.shape, earlier.layers});
            if (&earlier == &o)
                break;
        }
        // Only the last region is filled: the earlier ones are what its points must not repeat.
        fill_regions(
            solids, c, ParticleType::boundary, {}, [](const Vector3d&) { return false; }, s,
            solids.size() - 1);
        since(first);
    }
}

} // namespace

std::vector<Eigen::Vector3d> boundary_positions(const Case& c, std::vector<ObjectIds>* objects) {
    ParticleSet s;
    s.dimension = c.dimension;
    fill_boundary(c, s);
    if (objects)
        *objects = std::move(s.objects);
    return std::move(s.position);
}

ParticleSet generate_particles(const Case& c) {
    ParticleSet s;
    s.dimension = c.dimension;
    fill_boundary(c, s);
    s.boundary_count = s.size();
    std::vector<Region> fluids;
    std::vector<Vector3d> velocities;
    for (const FluidRegion& f : c.fluids) {
        fluids.push_back({&f.box, &f.shape, 0});
        Vector3d v = f.velocity;
        if (c.dimension == 2)
            v.y() = 0.0;
        velocities.push_back(v);
    }
    // Fluid never fills an obstacle's solid (shell obstacles included).
    auto in_obstacle = [&](const Vector3d& p) {
        for (const Obstacle& o : c.obstacles)
            if (shape_contains(o.shape, o.box.min, o.box.max, p, c.dimension))
                return true;
        return false;
    };
    fill_regions(fluids, c, ParticleType::fluid, velocities, in_obstacle, s);
    s.fluid_count = s.size() - s.boundary_count;
    // A shape may leave out the lattice points inside obstacles: one that covers all the fluid
    // leaves a case without water (and without a speed of sound to derive from its height).
    if (s.fluid_count == 0)
        throw CaseError(c.fluids.front().where.file, c.fluids.front().where.line,
                        "<fluid> holds no particle at dp = " + std::to_string(c.dp) +
                            " m: every lattice point of the fluid regions lies inside an "
                            "obstacle");

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
