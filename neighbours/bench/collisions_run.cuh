#pragma once
/// \file collisions_run.cuh
/// Barbieri, Cardellini & Filippone's benchmark (papers/004 §3, Fig. 2 and 3): particles of one
/// diameter d fall under gravity in a closed box of 64 × 64 × 64 cells of edge d, from the left
/// half (x < 32 d) with a little random offset, and collide by the spring–dashpot–shear model of
/// Green, "Particle Simulation using CUDA" (NVIDIA, 2010; the paper's ref. [3]): for particles
/// i, j closer than d, with n = (x_j − x_i)/|x_j − x_i| and v_ij = v_j − v_i,
///     F_i += −k (d − |x_j − x_i|) n + c v_ij + s (v_ij − (v_ij · n) n),
/// k = 0.5, c = 0.02, s = 0.1, added to the velocity each step; then v += g Δt, x += v Δt, and a
/// wall reflects a particle's velocity with factor −0.5. Green's constants, in his world of
/// edge 2 with d = 1/32, scaled to d = 1 (lengths × 32: gravity 0.0003 → 0.0096 per unit time²;
/// the spring and dashpot terms are velocities in those units already; Δt = 0.5). The search
/// radius is d, the bins are d wide (binWidth 1): the paper's "cell size equal to the particle
/// diameter". A time step is the construction, the collision kernel (the query, one thread per
/// particle) and the integration, and its rate is reported as the paper does, in million
/// particle updates per second (MPUPS), averaged over the run; the construction's own time is
/// reported too, mean and slowest step (the paper's Fig. 3): for the reorder layout it includes
/// the gather of the velocities into bin order (Green's sort moves the particle data with it),
/// for the lists only their clear and link.
///
/// Range: at 2^20 particles no module finished its 2000 steps in 170 s on an H200 (at 2^19 the
/// slowest took 2.6 s). The column above each floor cell is then 256 particles deep, twice
/// 2^19's; the likely cause is that the soft springs (k = 0.5) no longer hold the bottom layers
/// apart under that weight, so that bins fill with hundreds of particles (not investigated
/// further). The default sizes stop at 2^19.

#include "csv_row.h"
#include "cuda_builder.h"
#include "cuda_gather.cuh"
#include "device_memory.cuh"
#include "grid.h"
#include "module.h"
#include "options.h"
#include "query.h"
#include "timing.cuh"
#include "workloads.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sluice::bench {

/// Green's collision model, in units of the particle diameter (see the file comment).
struct CollisionConstants {
    static constexpr int cells = 64;                 ///< the box's edge, in diameters
    static constexpr float diameter = 1.0f;          ///< d = search radius = bin edge
    static constexpr float spring = 0.5f;            ///< k
    static constexpr float damping = 0.02f;          ///< c
    static constexpr float shear = 0.1f;             ///< s
    static constexpr float gravity = 0.0096f;        ///< 0.0003 × 32, along −z
    static constexpr float dt = 0.5f;                ///< Δt
    static constexpr float wall_restitution = -0.5f; ///< Green's boundaryDamping
};

/// The collision force on particle i (velocity vi) from its neighbours; reads the neighbours'
/// velocities in the view's order.
struct CollisionVisitor {
    const Vec<3>* velocities;
    Vec<3> vi{};
    Vec<3> force{};
    __device__ void operator()(std::uint32_t j, const Vec<3>& rij, float r2) {
        using C = CollisionConstants;
        if (!(r2 > 0.0f)) // itself (or a particle on the same spot: no direction)
            return;
        const float distance = sqrtf(r2);
        const Vec<3> normal = (-1.0f / distance) * rij; // towards j
        const Vec<3> vj = detail::load_position(velocities + j);
        const Vec<3> relative = vj - vi;
        const float along = dot(relative, normal);
        const Vec<3> tangential = relative - along * normal;
        force += (-C::spring * (C::diameter - distance)) * normal + C::damping * relative +
                 C::shear * tangential;
    }
};

/// new_velocities[k] = velocities[k] + the collision force on the k-th particle of the view.
template <class QueryT, class ViewT>
__global__ void __launch_bounds__(128)
    collide_kernel(ViewT view, const Vec<3>* __restrict__ velocities, std::uint32_t n,
                   Vec<3>* __restrict__ new_velocities) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    CollisionVisitor visit{velocities};
    visit.vi = detail::load_position(velocities + k);
    for_each_neighbour<QueryT>(view, detail::load_position(view.positions + k), visit);
    new_velocities[k] = visit.vi + visit.force;
}

/// Gravity, the move and the walls of the box [d/2, 64 d − d/2]^3 (particle centres). `from`
/// may be `positions` (index layouts move the particles in place).
__global__ void __launch_bounds__(256)
    fall_kernel(const Vec<3>* from, Vec<3>* positions, Vec<3>* __restrict__ velocities,
                std::uint32_t n) {
    using C = CollisionConstants;
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    Vec<3> x = from[k], v = velocities[k];
    v[2] -= C::gravity * C::dt;
    x = x + C::dt * v;
    const float low = 0.5f * C::diameter, high = C::cells * C::diameter - low;
    for (int a = 0; a < 3; ++a) {
        if (x[a] > high) {
            x[a] = high;
            v[a] *= C::wall_restitution;
        } else if (x[a] < low) {
            x[a] = low;
            v[a] *= C::wall_restitution;
        }
    }
    positions[k] = x;
    velocities[k] = v;
}

/// The paper's start: n particles on a lattice filling the left half of the box (x < 32 d),
/// spacing about (32 · 64 · 64 / n)^(1/3) d (shrunk until the whole layers fit below the lid),
/// each moved by up to a tenth of the spacing at random, at rest.
inline std::vector<Vec<3>> collision_start(std::uint32_t n, unsigned seed) {
    using C = CollisionConstants;
    const double half_volume = 0.5 * C::cells * C::cells * C::cells;
    double spacing = std::cbrt(half_volume / n);
    const auto per_axis = [&](double edge) {
        return std::max(1, static_cast<int>(std::floor(edge / spacing)));
    };
    while (static_cast<double>(per_axis(0.5 * C::cells)) * per_axis(C::cells) * per_axis(C::cells) <
           n)
        spacing *= 0.99;
    const int nx = per_axis(0.5 * C::cells), ny = per_axis(C::cells);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(static_cast<float>(-0.1 * spacing),
                                                 static_cast<float>(0.1 * spacing));
    std::vector<Vec<3>> x(n);
    const float low = 0.5f * C::diameter, high = C::cells * C::diameter - low;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t ix = i % nx, iy = (i / nx) % ny, iz = i / (nx * ny);
        const double p[3] = {(ix + 0.5) * spacing, (iy + 0.5) * spacing, (iz + 0.5) * spacing};
        for (int a = 0; a < 3; ++a)
            x[i][a] = std::clamp(static_cast<float>(p[a]) + jitter(rng), low, high);
    }
    return x;
}

/// One module's run: mean and median step time, mean and slowest construction.
struct CollisionResult {
    NeighbourModule module;
    std::uint32_t n = 0;
    int steps = 0;
    double step_mean_ms = 0, step_median_ms = 0, build_mean_ms = 0, build_max_ms = 0;
    double mean_neighbours_end = 0; ///< colliding pairs per particle at the last step
    double mpups() const { return n / (step_mean_ms * 1e-3) * 1e-6; }
};

/// The collision benchmark for one module (its construction, traversal and layout at binWidth
/// 1): `steps` steps from collision_start, every step timed by events (construction, then the
/// collision and the fall), after `warmup` untimed steps from the same start.
inline CollisionResult run_collisions(const NeighbourModule& module, std::uint32_t n, int steps,
                                      int warmup, cudaStream_t s) {
    using C = CollisionConstants;
    const std::vector<Vec<3>> start = collision_start(n, 4004u + n);
    const std::vector<Vec<3>> at_rest(n, Vec<3>{});
    gpu::DeviceMemoryAccount account;
    gpu::DeviceArray<Vec<3>> d_pos, d_vel, d_vel_sorted, d_vel_new;
    for (gpu::DeviceArray<Vec<3>>* a : {&d_pos, &d_vel, &d_vel_sorted, &d_vel_new})
        a->allocate(n, account);
    const GridSpec<3> grid =
        make_grid<3>(Vec<3>{}, Vec<3>{{64.0f, 64.0f, 64.0f, 0.0f}}, C::diameter, module.bin_width);
    CudaNeighbourBuilder<3> builder(module.construction);
    builder.reserve(n, grid.bin_count());
    const bool sorted = module.layout == Layout::reorder;
    const unsigned blocks = grid_for(n, 128), fall_blocks = grid_for(n, 256);
    Vec<3>* vel = d_vel.get();         // the state's velocities (the view's order)
    Vec<3>* vel_new = d_vel_new.get(); // the collision kernel's

    // One step; events (optional) before the construction, after it, after the step.
    const auto step = [&](cudaEvent_t before, cudaEvent_t built, cudaEvent_t done) {
        if (before)
            SLUICE_CUDA_CHECK(cudaEventRecord(before, s));
        const AnyNeighbourView<3> any = builder.build_view(d_pos.get(), n, grid, C::diameter,
                                                           OutsidePolicy::clamp, module.layout, s);
        const Vec<3>* velocities = vel;
        if (sorted) { // Green's method: the velocities follow the positions into bin order
            gather(s, builder.d_permutation(), n, GatherPair<Vec<3>>{vel, d_vel_sorted.get()});
            velocities = d_vel_sorted.get();
        }
        if (built)
            SLUICE_CUDA_CHECK(cudaEventRecord(built, s));
        const Vec<3>* from = nullptr;
        dispatch_neighbour_query<3>(module.query, any, [&](auto query, const auto& view) {
            collide_kernel<decltype(query)><<<blocks, 128, 0, s>>>(view, velocities, n, vel_new);
            from = view.positions;
        });
        SLUICE_CUDA_CHECK_LAUNCH();
        // The new state, in the view's order (bin order for reorder): d_pos, d_vel.
        fall_kernel<<<fall_blocks, 256, 0, s>>>(sorted ? builder.d_sorted_positions() : from,
                                                d_pos.get(), vel_new, n);
        SLUICE_CUDA_CHECK_LAUNCH();
        std::swap(vel, vel_new);
        if (done)
            SLUICE_CUDA_CHECK(cudaEventRecord(done, s));
    };
    const auto reset = [&] {
        gpu::upload(d_pos.get(), start, s);
        gpu::upload(vel, at_rest, s);
    };
    reset();
    for (int k = 0; k < warmup; ++k)
        step(nullptr, nullptr, nullptr);
    reset();
    std::vector<Event> events(3 * static_cast<std::size_t>(steps));
    for (int k = 0; k < steps; ++k)
        step(events[3 * k].get(), events[3 * k + 1].get(), events[3 * k + 2].get());
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(s));
    CollisionResult r;
    r.module = module;
    r.n = n;
    r.steps = steps;
    std::vector<double> step_ms, build_ms;
    for (int k = 0; k < steps; ++k) {
        build_ms.push_back(elapsed_ms(events[3 * k].get(), events[3 * k + 1].get()));
        step_ms.push_back(elapsed_ms(events[3 * k].get(), events[3 * k + 2].get()));
    }
    for (int k = 0; k < steps; ++k) {
        r.step_mean_ms += step_ms[k] / steps;
        r.build_mean_ms += build_ms[k] / steps;
        r.build_max_ms = std::max(r.build_max_ms, build_ms[k]);
    }
    r.step_median_ms = median(step_ms);
    // Colliding neighbours per particle in the final state (the paper's "3.5 × 27" context).
    CudaNeighbourBuilder<3> counter(Construction::counting_sort);
    const NeighbourView<3> view =
        counter.build(d_pos.get(), n, grid, C::diameter, OutsidePolicy::clamp, s);
    gpu::DeviceArray<std::uint32_t> d_counts;
    d_counts.allocate(n, account);
    count_kernel<MooreQuery><<<blocks, 128, 0, s>>>(view, n, d_counts.get());
    SLUICE_CUDA_CHECK_LAUNCH();
    const std::vector<std::uint32_t> counts = gpu::download(d_counts.get(), n, s);
    double total = 0;
    for (std::uint32_t c : counts)
        total += c;
    r.mean_neighbours_end = total / n - 1.0; // less itself
    return r;
}

} // namespace sluice::bench

namespace sluice::bench {

/// The collision benchmark over the selected sizes, constructions and layouts (moore at binWidth
/// 1, the paper's 27-cell walk; 8 cells for the tight grid): a markdown table per size on `out`
/// and one CSV row per module and size in `csv_path`, rewritten after every size.
inline void run_collision_benchmark(const Options& o, cudaStream_t s, std::ostream& out) {
    std::vector<CollisionResult> results;
    for (std::uint32_t n : o.collision_sizes) {
        out << "\n### Collisions (Barbieri et al. Fig. 2), n = " << n << ", " << o.collision_steps
            << " steps, 64^3 cells of one diameter\n\n"
            << "| module | MPUPS | step mean / median (ms) | construction mean / slowest (ms) | "
               "colliding neighbours at the end |\n|---|---|---|---|---|\n";
        for (Construction c : o.constructions)
            for (Layout layout : o.layouts) {
                if (!module_exists(c, MooreQuery{}, layout))
                    continue;
                const NeighbourModule module{c, MooreQuery{}, 1.0f, layout};
                const CollisionResult r =
                    run_collisions(module, n, o.collision_steps, o.timing.warmup, s);
                results.push_back(r);
                out << "| " << module.name() << " | " << std::fixed << std::setprecision(1)
                    << r.mpups() << " | " << std::setprecision(4) << r.step_mean_ms << " / "
                    << r.step_median_ms << " | " << r.build_mean_ms << " / " << r.build_max_ms
                    << " | " << std::setprecision(2) << r.mean_neighbours_end << " |\n"
                    << std::flush;
            }
        std::vector<CsvRow> rows;
        for (const CollisionResult& r : results) {
            CsvRow row;
            row.integer(r.n).text(r.module.name()).integer(r.steps).number(r.mpups());
            row.number(r.step_mean_ms).number(r.step_median_ms).number(r.build_mean_ms);
            row.number(r.build_max_ms).number(r.mean_neighbours_end);
            rows.push_back(row);
        }
        write_csv_file(o.csv,
                       {"n", "module", "steps", "mpups", "step_mean_ms", "step_median_ms",
                        "build_mean_ms", "build_max_ms", "neighbours_end"},
                       rows);
    }
}

} // namespace sluice::bench
