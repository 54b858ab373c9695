#pragma once
/// \file list_build_kernels.cuh
/// The kept lists' build (CudaOptions::list_skin; construction.cu launches it after each build):
/// per particle, the candidates within R + skin in the walk's order (an mDBC wall particle: its
/// ghost node's, GhostNodeLists), and nothing else. Every
/// interaction pass then reads the lists in the one interaction kernel (interaction_kernels.cuh,
/// ListMode::read), the pair terms running over them with the lanes of a warp in step rather
/// than whenever any lane's walk accepts a candidate.

#include "backends/cuda/neighbour_lists.cuh"
#include "backends/cuda/step_kernels.cuh"

namespace sluice::gpu {

/// A visitor over the build's walk widened to R + skin + list_slack: lists every candidate (a
/// wall particle only its fluid ones: wall-wall pairs add nothing, physics.h), those within R
/// in the list's core, the others in its shell (ListExtent); counts go on past the capacity.
template <int D>
struct KeptListWriter {
    ListAppender core, shell;
    const Float4* motions;
    bool fluid_i;
    float radius2; ///< R² (m²)

    __device__ __forceinline__ void operator()(std::uint32_t j, const Vec<D>&, float r2) {
        if (!fluid_i && decode_type(motion_signed_density<D>(detail::load_motion(motions + j))) !=
                            ParticleType::fluid)
            return;
        const bool within = r2 < radius2;
        core.push_if(j, within);
        shell.push_if(j, !within);
    }
};

/// mDBC with kept lists and walls at rest: the wall particles whose ghost node (physics/mdbc.h)
/// gets the list that the wall particle itself does not need (it takes no sums in the
/// interaction pass). A ghost node stays where it was at the build, so its list of fluid
/// candidates within R + skin holds while the particles' largest move since is within the
/// skin (lists_hold asks for half of it: both ends of a pair may move). `ids` null: none.
template <int D>
struct GhostNodeLists {
    const std::uint32_t* ids = nullptr; ///< per particle of the build's order: its id
    const Vec<D>* offsets = nullptr;    ///< per wall id: x_g − x_b (m; zero: never near fluid)
    std::uint32_t wall_ids = 0;         ///< ids below it are wall particles with an offset
    /// The mDBC pass's dry certificates (boundary_condition_kernels.cuh; null: none) and the
    /// fluid's travel: a ghost node certified dry gets no list (the mDBC pass skips it, and
    /// walks the structure if it becomes wet before the next build).
    const float* dry_until = nullptr;
    const double* travel = nullptr;

    /// Whether wall particle i (binned, owned) lists its ghost node's neighbours, and the node.
    __device__ __forceinline__ bool node_of(std::uint32_t i, const Vec<D>& x, Vec<D>& node) const {
        if (ids == nullptr)
            return false;
        const std::uint32_t id = ids[i];
        if (id >= wall_ids)
            return false;
        const Vec<D> to_ghost = offsets[id];
        if (norm2(to_ghost) == 0.0f)
            return false;
        if (dry_until != nullptr && static_cast<float>(*travel) < dry_until[i])
            return false;
        node = plain_position(x) + to_ghost;
        return true;
    }
};

/// The kept lists of the particles of a build (reorder layout, a traversal in bin order; `view`
/// holds the build's positions): particle i's candidates within R + lists.skin + list_slack
/// (the slack covers the rounding of the positions and distances, as the corrector's lists'),
/// split into core and shell (ListExtent), and their counts, or no_list when they overflow it
/// (that particle then walks the structure in every pass). `walls_take_sums` false (mDBC): a wall
/// particle takes no sums in the interaction pass: it gets its ghost node's list (`ghosts`,
/// GhostNodeLists: the node's fluid candidates, the core those within R of the node), or none.
/// `tags` (several GPUs, else null): a halo copy takes no sums either (its owner's lists serve
/// it) and gets an empty list.
template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    build_lists_kernel(ViewT view, const Float4* __restrict__ motions, std::uint32_t n,
                       NeighbourLists lists, bool walls_take_sums,
                       const std::uint32_t* __restrict__ tags, GhostNodeLists<D> ghosts) {
    const std::uint32_t i = blockIdx.x * interaction_block + threadIdx.x;
    Vec<D> x{};
    std::uint32_t count = no_list;
    if (load_if_binned(view, i, n, x)) {
        const bool fluid =
            decode_type(motion_signed_density<D>(detail::load_motion(motions + i))) ==
            ParticleType::fluid;
        const bool halo = tags != nullptr && is_halo(tags[i]);
        count = 0;
        Vec<D> origin = x; // the particle, or its ghost node
        const bool takes_sums = (fluid || walls_take_sums) && !halo;
        const bool mdbc_wall = !takes_sums && !fluid && !halo;
        const bool ghost = mdbc_wall && ghosts.node_of(i, x, origin);
        if (mdbc_wall)
            count = no_list; // its ghost node's list, if it gets one; else the mDBC pass walks
        if (takes_sums || ghost) {
            ViewT wide = view;
            wide.radius = view.radius + lists.skin + list_slack(view.radius, origin);
            wide.radius2 = wide.radius * wide.radius;
            uint4* const groups = list_groups(lists, i);
            KeptListWriter<D> writer{
                ListAppender{groups, lists.capacity},
                ListAppender{groups + (lists.capacity / 4 - 1) * 32, lists.capacity, -32}, motions,
                fluid, view.radius2};
            for_each_neighbour<QueryT>(wide, origin, writer);
            writer.core.finish();
            writer.shell.finish();
            count = pack_list_extent(writer.core.count, writer.shell.count, lists.capacity);
        }
    }
    lists.counts[i] = count; // every thread of the grid: the array covers whole blocks
}

} // namespace sluice::gpu
