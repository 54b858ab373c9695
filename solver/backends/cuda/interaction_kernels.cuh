#pragma once
/// \file interaction_kernels.cuh
/// The interaction pass's kernel (interaction.cu launches it): one thread per particle over the
/// neighbour query, the pair terms of physics.h, and the fused block reductions of the pass's
/// maxima; the queued and in-step walks, the dry wall particles' certificates and the neighbour
/// lists (the corrector's of the step, or kept over several steps and read by both passes).
///
/// interaction_kernel is about 150 lines, over the project's ~120 for a function, on purpose: it
/// is the one kernel every module, layout and scheme runs (DESIGN.md: one interaction code path),
/// and its parts (the walk, NeighbourQueue, ListWriter, certify_dry_wall, read_list) are already
/// functions of their own; what remains is their choice by template argument and the block
/// reductions that every thread must reach. Moving those into further __device__ functions
/// changes no work but puts the step's speed at the mercy of inlining decisions
/// (solver/BENCHMARK.md: the interaction passes are 72 % of a 6 s run at 10^6 particles).

#include "backends/cuda/neighbour_lists.cuh"
#include "backends/cuda/step_kernels.cuh"
#include "neighbours/warp_query.cuh"

namespace sluice::gpu {
/// Shared-memory queue capacity per thread of the queued interaction (entries of 4 bytes): above
/// the 81 (3D, h = 1.3 dp) and 25 (2D, h = 1.41 dp) neighbours of a lattice particle. A particle
/// with more neighbours still comes out right: its queue is drained whenever it fills.
template <int D>
constexpr int queue_capacity = D == 3 ? 96 : 48;

/// A visitor for for_each_neighbour that only records the neighbour's index in this thread's
/// column of a shared-memory queue; drain() then runs the pair terms over the queue. Between the
/// two, the query's divergent loops have ended, so the warp's lanes run the pair terms together
/// instead of whenever any one lane finds a neighbour. The pair sees the same (j, r_ij, r²), in
/// the same order, as the direct visitor would (r_ij and r² are recomputed the same way).
template <int D, class PairT, int CapacityT>
struct NeighbourQueue {
    std::uint32_t* slots; ///< entry k at slots[k · interaction_block]
    Vec<D> x;
    const Vec<D>* positions;
    PairT pair;
    int count = 0;

    __device__ __forceinline__ void operator()(std::uint32_t j, const Vec<D>&, float) {
        if (count == CapacityT)
            drain();
        slots[count * interaction_block] = j;
        ++count;
    }

    __device__ __forceinline__ void drain() {
        for (int k = 0; k < count; ++k) {
            const std::uint32_t j = slots[k * interaction_block];
            const Vec<D> rij = x - detail::load_position(positions + j);
            pair(j, rij, neighbour_distance2(rij));
        }
        count = 0;
    }
};

/// What the interaction pass needs to skip dry wall particles (CudaOptions::skip_dry_walls);
/// `until` null: skip none. A wall particle (DBC: at rest, as every other wall particle) has zero
/// derivatives when no fluid particle lies within R: every pair term holds v_ij = 0. The fluid
/// moved at most `travel` − (travel when it was looked at) since, √3 × the largest move along
/// an axis per step bounding each step's move in space; in the corrector's pass, √3 × the
/// predictor's largest move more (`pass_skin`).
struct DryWalls {
    /// Per particle: the travel below which it is dry; 0: look for fluid up to R + margin; −1:
    /// wet, or dry by less than a quarter of the margin, at the last look.
    float* until = nullptr;
    const double* travel = nullptr;    ///< m, the fluid's accumulated largest move
    const float* pass_skin = nullptr;  ///< the corrector's pass: the predictor's largest move
    float margin = 0.0f;               ///< m: the build pass looks for fluid up to R + margin
    float reach = 0.0f, reach2 = 0.0f; ///< R + margin and its square
    /// The build pass looks wider at wet particles too (every few steps: a wall the splash
    /// wetted for a while becomes dry again).
    bool retry_wet = false;
    /// How far a wall and a fluid particle can approach per unit of the largest move: 1 with
    /// walls at rest, 2 with moving walls (both move; `travel` counts the larger move of the
    /// two twice, finish_step_kernel).
    float relative = 1.0f;
};

/// The fluid travel now: the build pass's, or the corrector pass's.
__device__ __forceinline__ float dry_travel_now(const DryWalls& dry) {
    const float travel = static_cast<float>(*dry.travel);
    return dry.pass_skin ? travel + dry.relative * root3_up * *dry.pass_skin : travel;
}

/// A visitor for the build pass of a wall particle, over the query widened to R + margin: the
/// pair terms for the candidates within R (the same test, order and sums as the plain query),
/// and the nearest fluid candidate's r².
template <int D, class PairT>
struct NearestFluid {
    PairT& pair;
    const PackedParticlesView<D>& particles;
    float radius2; ///< R², the plain query's
    float nearest2 = 3.0e38f;

    __device__ __forceinline__ void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        if (r2 < radius2)
            pair(j, rij, r2);
        if (r2 < nearest2 && particles.motion(j).fluid)
            nearest2 = r2;
    }
};

/// The travel below which a wall particle at x, looked at now with its nearest fluid candidate
/// at nearest2 (≥ reach2: none within R + margin), stays dry, less a slack for the float
/// rounding of positions, distances and the travel; −1 (wet) when the fluid is within R, or so
/// little beyond it that the particle would be looked at again within a few steps.
template <int D>
__device__ __forceinline__ float dry_until(const DryWalls& dry, float radius, float radius2,
                                           float nearest2, float now, const Vec<D>& x) {
    if (!(nearest2 >= radius2))
        return -1.0f;
    const float margin = nearest2 >= dry.reach2 ? dry.margin : sqrtf(nearest2) - radius;
    float scale = now + dry.reach;
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        scale += fabsf(x[k]);
    const float slack = 64.0f * 1.1920929e-7f * scale; // 64 FLT_EPSILON of the magnitudes
    return margin - slack > 0.25f * dry.margin ? now + (margin - slack) : -1.0f;
}

/// The build pass's look at wall particle i of a warp whose certificate ran out: the pair terms
/// of its neighbours within R into `pair` (the plain query's test, order and sums) over the query
/// widened to R + margin, and its new certificate from the nearest fluid candidate.
template <class QueryT, class ViewT, class PairT, int D = ViewT::dimension>
__device__ __forceinline__ void
certify_dry_wall(const ViewT& view, const Vec<D>& x, const PackedParticlesView<D>& particles,
                 const DryWalls& dry, float now, std::uint32_t i, PairT& pair) {
    ViewT wide = view;
    wide.radius = dry.reach;
    wide.radius2 = dry.reach2;
    NearestFluid<D, PairT> nearest{pair, particles, view.radius2};
    for_each_neighbour<QueryT>(wide, x, nearest);
    dry.until[i] = dry_until<D>(dry, view.radius, view.radius2, nearest.nearest2, now, x);
}

/// A visitor over the build pass's query widened to R + dt_bound/2 · (|v_i| + speed_max) +
/// slack: lists each candidate within its pair's reach R + dt_bound/2 · (|v_i| + |v_j|) + slack
/// (the first `capacity`; count goes on; a wall particle with `walls_list_fluid` only its fluid
/// ones) and runs the pair terms for those within R (the plain query's test, order and sums).
/// A wall's |v| is the walls' speed bound (its stored velocity may be mDBC's, not its own).
template <int D, class PairT>
struct ListWriter {
    PairT& pair;
    ListAppender list;
    float radius, radius2; ///< R, R² (the plain query's)
    float base_reach;      ///< R + dt_bound/2 · |v_i| + slack (m)
    float half_dt_bound;   ///< s
    bool walls_list_fluid;
    float wall_speed; ///< m/s (NeighbourLists::wall_speed)

    __device__ __forceinline__ void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        const bool within = r2 < radius2;
        bool listed = within && (pair.fluid_i || !walls_list_fluid);
        if (!listed) {
            const NeighbourMotion<D> mj = pair.particles.motion(j);
            if (mj.fluid || pair.fluid_i || !walls_list_fluid) {
                const float reach =
                    base_reach +
                    half_dt_bound * (mj.fluid ? sqrtf(norm2(mj.velocity)) : wall_speed);
                listed = within || r2 < reach * reach;
            }
        }
        if (listed)
            list.push(j);
        if (within)
            pair(j, rij, r2);
    }
};

/// walk(view, pair), or when Writing walk(view widened as ListWriter says, a ListWriter of
/// particle i around pair); returns the entries listed (no_list when none are).
template <bool Writing, class ViewT, class PairT, class WalkT, int D = ViewT::dimension>
__device__ __forceinline__ std::uint32_t
walk_writing_list(const ViewT& view, const NeighbourLists& lists, std::uint32_t i, const Vec<D>& x,
                  PairT& pair, const WalkT& walk) {
    if constexpr (!Writing) {
        walk(view, pair);
        return no_list;
    } else {
        const float half_dt_bound = 0.5f * lists.dt_bound;
        const float wall_speed = lists.wall_speed_now != nullptr
                                     ? fmaxf(lists.wall_speed, *lists.wall_speed_now)
                                     : lists.wall_speed;
        const float speed_i = pair.fluid_i ? sqrtf(norm2(pair.vel_i)) : wall_speed;
        const float base_reach = view.radius + half_dt_bound * speed_i + list_slack(view.radius, x);
        ViewT wide = view;
        wide.radius = base_reach + half_dt_bound * fmaxf(lists.speed_max, wall_speed);
        wide.radius2 = wide.radius * wide.radius;
        ListWriter<D, PairT> writer{pair,
                                    ListAppender{list_groups(lists, i), lists.capacity},
                                    view.radius,
                                    view.radius2,
                                    base_reach,
                                    half_dt_bound,
                                    lists.walls_list_fluid,
                                    wall_speed};
        walk(wide, writer);
        writer.list.finish();
        return writer.list.count;
    }
}

/// The group of four entries q that starts at entry k of a part of `count` entries, with the
/// entries past its end replaced by the group's first (loaded again, a cache hit, and skipped
/// by the caller: what lies there was never written).
__device__ __forceinline__ uint4 group_within(uint4 q, std::uint32_t k, std::uint32_t count) {
    return {q.x, k + 1 < count ? q.y : q.x, k + 2 < count ? q.z : q.x, k + 3 < count ? q.w : q.x};
}

/// A reading pass over particle i's list (`extent`: its core and shell, ListExtent): the pair
/// terms of those entries within R now. The core, in the list's order a group of four entries
/// at a time: one 16-byte load of their indices, then their positions and motions before any
/// distance is known (a warp's latency to memory then overlaps for the whole group; an entry
/// beyond R wastes one cached load), and the pair reads p_j/ρ_j² from the position it has
/// (packed_particles.h). The shell (kept lists: a quarter of a list on the developed flow, most
/// of it still beyond R) only by position: the first 64 entries found within R are marked in a
/// bit mask and run after the shell, so that a warp does not run the pair terms whenever one
/// lane's shell entry came within R (the few past 64 run at once). No shared memory: it would
/// take from the L1 cache that the neighbours' loads hit.
template <int D, class PairT>
__device__ __forceinline__ void visit_listed(const uint4* groups, const ListExtent& extent,
                                             std::uint32_t capacity, const Vec<D>* positions,
                                             const Float4* motions, const Vec<D>& x, float radius2,
                                             PairT& pair) {
    constexpr int batch = 4;
    const auto visit = [&](std::uint32_t j, const Vec<D>& position_j, const Float4& motion_j) {
        const Vec<D> rij = x - position_j;
        pair.visit(j, rij, neighbour_distance2(rij), unpack_motion<D>(motion_j),
                   [&](float) { return packed_p_rho2(position_j, motion_j); });
    };
    const std::uint32_t count = extent.core;
    for (std::uint32_t k = 0; k < count; k += batch) {
        const uint4 q = group_within(__ldg(groups + (k / batch) * 32), k, count);
        const std::uint32_t j[batch] = {q.x, q.y, q.z, q.w};
        Vec<D> xj[batch];
        Float4 mj[batch];
        SLUICE_UNROLL
        for (int u = 0; u < batch; ++u) {
            xj[u] = detail::load_position(positions + j[u]);
            mj[u] = detail::load_motion(motions + j[u]);
        }
        SLUICE_UNROLL
        for (int u = 0; u < batch; ++u)
            if (k + u < count && neighbour_distance2(x - xj[u]) < radius2)
                visit(j[u], xj[u], mj[u]);
    }
    // The shell: entry k in group k/4 counted from the list's last group back.
    const uint4* const last = groups + static_cast<int>(capacity / batch - 1) * 32;
    const std::uint32_t shell = extent.shell;
    unsigned long long within = 0; // bit k: shell entry k < 64 lies within R
    for (std::uint32_t k = 0; k < shell; k += batch) {
        const uint4 q = group_within(__ldg(last - static_cast<int>(k / batch) * 32), k, shell);
        const std::uint32_t j[batch] = {q.x, q.y, q.z, q.w};
        Vec<D> xj[batch];
        SLUICE_UNROLL
        for (int u = 0; u < batch; ++u)
            xj[u] = detail::load_position(positions + j[u]);
        SLUICE_UNROLL
        for (int u = 0; u < batch; ++u) {
            if (k + u < shell && neighbour_distance2(x - xj[u]) < radius2) {
                if (k + u < 64)
                    within |= 1ull << (k + u);
                else
                    visit(j[u], xj[u], detail::load_motion(motions + j[u]));
            }
        }
    }
    while (within != 0) {
        const std::uint32_t k = static_cast<std::uint32_t>(__ffsll(within) - 1);
        within &= within - 1;
        const std::uint32_t j =
            __ldg(reinterpret_cast<const std::uint32_t*>(last - static_cast<int>(k / batch) * 32) +
                  k % batch);
        visit(j, detail::load_position(positions + j), detail::load_motion(motions + j));
    }
}

/// δ-SPH (diffusion antuono2010): each binned fluid particle's renormalised density gradient
/// (physics/delta_sph.h) into `gradient` (zero for the others), launched by the interaction
/// pass before the pair terms that read it.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    density_gradient_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                            float mass, std::uint32_t n, Vec<D>* __restrict__ gradient) {
    const std::uint32_t i = blockIdx.x * interaction_block + threadIdx.x;
    if (i >= n)
        return;
    Vec<D> x{};
    const bool binned = load_if_binned(view, i, n, x);
    const float signed_rho = motion_signed_density<D>(detail::load_motion(particles.motions + i));
    if (!binned || decode_type(signed_rho) != ParticleType::fluid) {
        gradient[i] = Vec<D>{};
        return;
    }
    DensityGradientVisitor<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, mass,
                                                                       decode_density(signed_rho)};
    for_each_neighbour<QueryT>(view, x, visitor);
    gradient[i] = visitor.sums.renormalised();
}

/// With shifting (a pass given `shift` whose model can shift): particle i's shifting velocity. A
/// fixed model without shifting (physics.h) holds no such store.
template <class ModelT, int D>
__device__ __forceinline__ void store_shift(Vec<D>* shift, std::uint32_t i, const Vec<D>& u) {
    if constexpr (ModelT::can_shift) {
        if (shift != nullptr)
            shift[i] = u;
    }
}

/// One interaction pass over the binned particles (load_if_binned): derivatives
/// (packed) and, with shifting, the shifting velocities (`shift`, null: none), and the block's
/// max |a|² (fluid) and max μ folded into the step's scalars by atomic
/// max on their bit patterns (non-negative floats order like their bits).
/// QueueT = 0: direct visitor; else the queued one with QueueT entries per thread in dynamic
/// shared memory. `halo` (several GPUs, else null): per particle, nonzero for a halo copy, which
/// gets no derivatives (its owner computes them) and stays out of the maxima. ModelT: the pair
/// terms' viscosity and diffusion (physics.h), RuntimeModel or a FixedModel matching c. `dry`:
/// dry wall particles (DryWalls), taken only by the default physics' direct pass over a reorder
/// layout (the instantiations the backend enables it for). InStepT (QueueT = 0, reorder layout,
/// a traversal whose rows are one range each): the lanes walk their neighbours in step
/// (warp_query.cuh), the same sums as the direct visitor. `lists`: the corrector's neighbour
/// lists (NeighbourLists), written by the build pass (direct or in step) and read by the
/// corrector's pass (direct), over a reorder layout and a traversal in bin order; kept lists
/// (NeighbourLists::skin) are read by every pass (direct).
template <class QueryT, class ViewT, class KernelT, int QueueT, class ModelT, bool InStepT = false,
          ListMode ListT = ListMode::none, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    interaction_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                       FluidConstants c, std::uint32_t n, Float4* __restrict__ derivatives,
                       Vec<D>* __restrict__ shift, StepScalars* __restrict__ scalars,
                       const std::uint32_t* __restrict__ tags, DryWalls dry, NeighbourLists lists) {
    // Traversals in bin order only: a widened block then visits the neighbours within R in the
    // same order (a label order would change with the block's width), so the sums are the same.
    constexpr bool dry_capable = QueueT == 0 && std::is_same_v<ModelT, MonaghanMolteniModel> &&
                                 std::is_same_v<ViewT, NeighbourView<D>> &&
                                 !detail::in_label_order<QueryT>;
    static_assert(!InStepT || (QueueT == 0 && std::is_same_v<ViewT, NeighbourView<D>> &&
                               !detail::bin_by_bin<QueryT>),
                  "the in-step walk takes a reorder layout's rows as one range each");
    // Lists keep the walk's order: a traversal in bin order over a reorder layout.
    static_assert(ListT == ListMode::none ||
                      (QueueT == 0 && std::is_same_v<ViewT, NeighbourView<D>> &&
                       !detail::in_label_order<QueryT> && !(InStepT && ListT == ListMode::read)),
                  "lists keep the walk's order: a traversal in bin order over a reorder layout; "
                  "the corrector's pass reads them directly");
    constexpr bool writing_lists = ListT == ListMode::write;
    std::uint32_t listed = no_list; // what this lane wrote to its list
    using BlockReduce = cub::BlockReduce<float, interaction_block>;
    __shared__ typename BlockReduce::TempStorage reduce_storage;
    extern __shared__ std::uint32_t queue_storage[];
    // The in-step walk's queues: slot k of thread t at in_step_queue[k][t] (no bank conflicts).
    __shared__ std::uint32_t in_step_queue[InStepT ? in_step_capacity : 1][interaction_block];

    const std::uint32_t i = blockIdx.x * interaction_block + threadIdx.x;
    float acceleration2 = 0.0f, mu = 0.0f;
    Vec<D> x{};
    const bool binned = load_if_binned(view, i, n, x);
    // A halo copy (its owner computes its sums) or an mDBC wall particle (its density is the
    // BoundaryCondition pass's): no query, zero derivatives.
    const bool halo =
        binned && ((tags != nullptr && is_halo(tags[i])) ||
                   (!c.wall_continuity && decode_type(motion_signed_density<D>(detail::load_motion(
                                              particles.motions + i))) == ParticleType::boundary));
    // Dry walls, decided per warp (a warp runs as long as its slowest lane): a warp of wall
    // particles (and idle lanes) skips when all of them are certified dry; else, in the build
    // pass, when one of them was dry but its certificate ran out (or when retry_wet), all of
    // them look up to R + margin and are certified anew (their expiries then coincide); any
    // other warp runs the plain query.
    int dry_case = 0; // 1: skip; 2: look wider and certify
    float now = 0.0f;
    if constexpr (dry_capable) {
        if (dry.until != nullptr) { // the same for the whole grid
            bool wall = false, certified = false, expired = false;
            if (binned && !halo) {
                wall = decode_type(motion_signed_density<D>(
                           detail::load_motion(particles.motions + i))) == ParticleType::boundary;
                if (wall) {
                    now = dry_travel_now(dry);
                    const float until = dry.until[i];
                    certified = now < until;
                    expired = !certified && (until >= 0.0f || dry.retry_wet);
                }
            }
            // Every lane of the warp votes (the grid has whole warps; none has left).
            const bool any_fluid = __any_sync(0xffffffffu, binned && !halo && !wall);
            const bool any_uncertified = __any_sync(0xffffffffu, wall && !certified);
            const bool any_expired = __any_sync(0xffffffffu, expired);
            if (wall && !any_fluid) {
                if (!any_uncertified)
                    dry_case = 1;
                else if (dry.pass_skin == nullptr && any_expired)
                    dry_case = 2;
            }
        }
    }
    using Visitor = PackedInteractionVisitor<D, KernelT, ModelT>;
    // The plain walk, for walk_writing_list (which may widen the view).
    const auto walk_directly = [&](const auto& v, auto& visitor) {
        for_each_neighbour<QueryT>(v, x, visitor);
    };
    if constexpr (InStepT) {
        // Every lane takes part in the walk, so it runs outside the branches below; a lane with
        // no query of its own (not binned, a halo copy, a dry wall) builds its visitor from
        // particle 0 and discards it.
        const bool queries = binned && !halo;
        Visitor pair = make_packed_visitor<D, KernelT, ModelT>(
            particles, kernel, c, x, detail::load_motion(particles.motions + (queries ? i : 0)),
            queries ? i : 0);
        if constexpr (dry_capable) {
            if (queries && dry_case == 2)
                certify_dry_wall<QueryT>(view, x, particles, dry, now, i, pair);
        }
        // Warps of wall particles only stay direct: walls do not move, so their lanes' rows and
        // neighbours differ little and the queue's bookkeeping would cost more than it saves.
        const bool walks = queries && dry_case == 0;
        if (__any_sync(0xffffffffu, queries && pair.fluid_i)) {
            const std::uint32_t count = walk_writing_list<writing_lists>(
                view, lists, i, x, pair, [&](const auto& v, auto& visitor) {
                    for_each_neighbour_in_step<QueryT, in_step_capacity>(
                        v, x, walks, &in_step_queue[0][threadIdx.x], interaction_block, visitor);
                });
            if (walks)
                listed = count;
        } else if (walks) {
            listed = walk_writing_list<writing_lists>(view, lists, i, x, pair, walk_directly);
        }
        if (halo) {
            derivatives[i] = Float4{};
            store_shift<ModelT>(shift, i, Vec<D>{});
        } else if (binned) {
            const Derivatives<D> d = dry_case == 1 ? Derivatives<D>{} : pair.result();
            derivatives[i] = pack_derivatives<D>(d.acceleration, d.density_rate);
            store_shift<ModelT>(shift, i, d.shift_velocity);
            mu = d.mu_max;
            if (pair.fluid_i)
                acceleration2 = norm2(d.acceleration);
        }
    } else if (halo) {
        derivatives[i] = Float4{};
        store_shift<ModelT>(shift, i, Vec<D>{});
    } else if (binned) {
        Visitor pair = make_packed_visitor<D, KernelT, ModelT>(
            particles, kernel, c, x, detail::load_motion(particles.motions + i), i);
        Derivatives<D> d;
        if constexpr (dry_capable) {
            if (dry_case == 2)
                certify_dry_wall<QueryT>(view, x, particles, dry, now, i, pair);
        }
        if (dry_case == 1) {
            d = Derivatives<D>{}; // what the query would sum: +0 everywhere
        } else if (dry_case == 2) {
            d = pair.result();
        } else if constexpr (QueueT == 0) {
            bool walked = false;
            if constexpr (writing_lists) {
                listed = walk_writing_list<true>(view, lists, i, x, pair, walk_directly);
                walked = true;
            } else if constexpr (ListT == ListMode::read) {
                ListExtent extent;
                if (lists_hold(lists) && unpack_list_extent(detail::load_pbm(lists.counts + i),
                                                            lists.capacity, extent)) {
                    visit_listed(list_groups(lists, i), extent, lists.capacity, view.positions,
                                 particles.motions, x, view.radius2, pair);
                    walked = true;
                }
            }
            if (!walked)
                for_each_neighbour<QueryT>(view, x, pair);
            d = pair.result();
        } else {
            NeighbourQueue<D, Visitor, QueueT> queue{queue_storage + threadIdx.x, x, view.positions,
                                                     pair};
            for_each_neighbour<QueryT>(view, x, queue);
            queue.drain();
            d = queue.pair.result();
        }
        derivatives[i] = pack_derivatives<D>(d.acceleration, d.density_rate);
        store_shift<ModelT>(shift, i, d.shift_velocity);
        mu = d.mu_max;
        if (pair.fluid_i)
            acceleration2 = norm2(d.acceleration);
    }
    if constexpr (writing_lists) // every thread of the grid: the array covers whole blocks
        lists.counts[i] = pack_list_extent(listed, 0u, lists.capacity); // all core
    if constexpr (ListT == ListMode::read) { // the same for every thread: the pass walked
        if (i == 0 && lists.walked != nullptr && !lists_hold(lists))
            *lists.walked = 1u;
    }
    const float block_acceleration2 = BlockReduce(reduce_storage).Reduce(acceleration2, MaxOp{});
    __syncthreads(); // reduce_storage is reused
    const float block_mu = BlockReduce(reduce_storage).Reduce(mu, MaxOp{});
    if (threadIdx.x == 0) {
        atomicMax(&scalars->acceleration_max2_bits, __float_as_uint(block_acceleration2));
        atomicMax(&scalars->mu_max_bits, __float_as_uint(block_mu));
    }
}
} // namespace sluice::gpu
