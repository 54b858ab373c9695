// The shared start of a run over several processes (slab_start.h).

#include "parallel/slab_start.h"

#include "case/constants.h"
#include "case/domain_grid.h"
#include "case/state_conversion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sluice {

template <int D>
std::vector<float> interaction_weights(const std::vector<Vec<D>>& x, const GridSpec<D>& grid) {
    auto bin_of = [&](const Vec<D>& p, int(&b)[D]) {
        for (int k = 0; k < D; ++k)
            b[k] = grid.axis_bin(p[k], k);
    };
    auto index = [&](const int(&b)[D]) {
        std::size_t i = 0;
        for (int k = D - 1; k >= 0; --k)
            i = i * static_cast<std::size_t>(grid.dims[k]) + static_cast<std::size_t>(b[k]);
        return i;
    };
    std::vector<std::uint32_t> count(grid.bin_count(), 0);
    for (const Vec<D>& p : x) {
        int b[D];
        bin_of(p, b);
        ++count[index(b)];
    }
    std::vector<float> weight(x.size(), 0.0f);
    const std::int64_t n = static_cast<std::int64_t>(x.size());
#pragma omp parallel for schedule(static) if (n >= 50000)
    for (std::int64_t i = 0; i < n; ++i) {
        int b[D];
        bin_of(x[i], b);
        std::uint64_t around = 0;
        for (int offset = 0; offset < (D == 2 ? 9 : 27); ++offset) {
            int c[D];
            bool inside = true;
            for (int k = 0, o = offset; k < D; ++k, o /= 3) {
                c[k] = b[k] + o % 3 - 1;
                inside = inside && c[k] >= 0 && c[k] < grid.dims[k];
            }
            if (inside)
                around += count[index(c)];
        }
        weight[i] = static_cast<float>(around);
    }
    return weight;
}

template <int D>
GridSpec<D> work_grid(const Case& c, double search_radius) {
    return domain_grid<D>(c, search_radius, 1.0);
}

template <int D>
GridSpec<D> covering_grid(const GridSpec<D>& grid, const std::array<double, D>& lo,
                          const std::array<double, D>& hi) {
    GridSpec<D> out = grid;
    const double bin = grid.bin_size;
    for (int axis = 0; axis < D; ++axis) {
        const double origin = grid.origin[axis];
        std::int64_t first = 0, last = grid.dims[axis];
        // Clamped in double before the conversion: a box far outside the grid stays in range.
        const double dims = grid.dims[axis];
        if (lo[axis] > -HUGE_VAL)
            first = std::max<std::int64_t>(
                first, static_cast<std::int64_t>(
                           std::clamp(std::floor((lo[axis] - origin) / bin), -1.0, dims)) -
                           1);
        if (hi[axis] < HUGE_VAL)
            last = std::min<std::int64_t>(
                last, static_cast<std::int64_t>(
                          std::clamp(std::ceil((hi[axis] - origin) / bin), 0.0, dims + 1.0)) +
                          1);
        if (last <= first) { // nothing of the box in the grid: one bin (a build holds nothing)
            first = std::min<std::int64_t>(first, grid.dims[axis] - 1);
            last = first + 1;
        }
        out.origin[axis] = static_cast<float>(origin + static_cast<double>(first) * bin);
        out.dims[axis] = static_cast<int>(last - first);
    }
    return out;
}

std::pair<double, double> slab_reach(const SlabDecomposition& slabs, int rank) {
    const double reach = slabs.halo_width + 2.0 * slabs.max_step_move;
    return {slabs.lower(rank) - reach, slabs.upper(rank) + reach};
}

template std::vector<float> interaction_weights<2>(const std::vector<Vec<2>>&, const GridSpec<2>&);
template std::vector<float> interaction_weights<3>(const std::vector<Vec<3>>&, const GridSpec<3>&);
template GridSpec<2> work_grid<2>(const Case&, double);
template GridSpec<3> work_grid<3>(const Case&, double);
template GridSpec<2> covering_grid<2>(const GridSpec<2>&, const std::array<double, 2>&,
                                      const std::array<double, 2>&);
template GridSpec<3> covering_grid<3>(const GridSpec<3>&, const std::array<double, 3>&,
                                      const std::array<double, 3>&);

double ghost_node_reach(const Case& c, double search_radius) {
    double reach = 0.0;
    if (c.physics.boundary == BoundaryKind::mdbc)
        reach = 2.0 * search_radius;
    if (c.physics.diffusion == DensityDiffusionKind::antuono)
        reach = std::max(reach, search_radius);
    return reach;
}

namespace {

/// The cut of `all` (the whole run's particles) into comm.size() slabs of equal estimated work,
/// and this process's slab's particles. `support`: the search radius R (m).
template <int D>
SlabStart split_in(const Case& c, const SimulationState& all, double support,
                   const Communicator& comm, double list_reach) {
    SlabStart out;
    const float radius = static_cast<float>(support);
    const GridSpec<D> grid = domain_grid<D>(c, radius);
    int axis = 0;
    for (int k = 1; k < D; ++k)
        if (grid.dims[k] > grid.dims[axis])
            axis = k;
    std::vector<float> coordinates(all.size());
    std::vector<Vec<D>> positions(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        positions[i] = from_array3<D>(all.position[i]);
        coordinates[i] = positions[i][axis];
    }
    // Equal estimated work per slab: by particle count alone, slabs of walls far from the fluid
    // (a third of the neighbours) would wait for the others.
    const std::vector<float> weights = interaction_weights<D>(positions, work_grid<D>(c, support));
    const double start = grid.origin[axis];
    out.slabs = balanced_slabs(coordinates, weights, D, axis, start,
                               start + grid.dims[axis] * double(grid.bin_size), grid.bin_size,
                               radius, comm.size(), ghost_node_reach(c, support) + list_reach);
    out.state = select_particles(
        all, [&](std::size_t i) { return out.slabs.rank_of(coordinates[i]) == comm.rank(); });
    out.total_particles = all.size();
    return out;
}

} // namespace

SlabStart initial_slab(const Case& c, const ParticleSet& particles, const Communicator& comm,
                       double list_reach) {
    const SimulationState all = initial_state(particles);
    const double support = particles.constants.support;
    return c.dimension == 2 ? split_in<2>(c, all, support, comm, list_reach)
                            : split_in<3>(c, all, support, comm, list_reach);
}

SlabStart split_state(const Case& c, const SimulationState& whole, const Communicator& comm) {
    if (whole.dimension != c.dimension)
        throw std::invalid_argument("the saved state does not fit the case: it is " +
                                    std::to_string(whole.dimension) + "D, the case " +
                                    std::to_string(c.dimension) + "D");
    const double support = derive_constants(c, whole.fluid_height).support;
    SlabStart out = c.dimension == 2 ? split_in<2>(c, whole, support, comm, 0.0)
                                     : split_in<3>(c, whole, support, comm, 0.0);
    // The exclusions already reported of the particles this process now owns.
    std::vector<std::uint32_t> mine = out.state.id;
    std::sort(mine.begin(), mine.end());
    for (const std::uint32_t id : whole.excluded)
        if (std::binary_search(mine.begin(), mine.end(), id))
            out.state.excluded.push_back(id);
    return out;
}

SlabResume resume_slab(const Case& c, const SimulationState& piece, const SlabDecomposition& saved,
                       double list_reach) {
    if (piece.dimension != c.dimension)
        throw std::invalid_argument("the saved state does not fit the case: it is " +
                                    std::to_string(piece.dimension) + "D, the case " +
                                    std::to_string(c.dimension) + "D");
    const DerivedConstants derived = derive_constants(c, piece.fluid_height);
    const float radius = static_cast<float>(derived.support);
    const float bin =
        c.dimension == 2 ? domain_grid<2>(c, radius).bin_size : domain_grid<3>(c, radius).bin_size;
    return {derived, slabs_with_faces(saved.axis, saved.faces, bin, radius,
                                      ghost_node_reach(c, derived.support) + list_reach)};
}

std::string move_beyond_halo(const SlabDecomposition& slabs, std::uint64_t step, double time,
                             double dt, double speed, float& previous_speed, double acceleration) {
    const double fastest = std::max<double>(speed, previous_speed);
    previous_speed = static_cast<float>(speed);
    const double move = dt * fastest + dt * dt * acceleration;
    if (move <= slabs.max_step_move)
        return {};
    std::ostringstream msg;
    msg << "simulation failed at step " << step << ", t = " << time
        << " s: a particle may have moved up to " << move << " m in one step (dt = " << dt
        << " s, speed up to " << fastest << " m/s), more than the " << slabs.max_step_move
        << " m that the halo between processes allows (R/16); lower the case's cfl";
    return msg.str();
}

std::vector<double> work_since_balance(const Communicator& comm, double work,
                                       double& balanced_seconds) {
    std::vector<double> seconds(static_cast<std::size_t>(comm.size()), 0.0);
    seconds[static_cast<std::size_t>(comm.rank())] = work - balanced_seconds;
    balanced_seconds = work;
    comm.sum(seconds.data(), comm.size());
    return seconds;
}

void combine_gauges(const Communicator& comm, const SlabDecomposition& slabs, int dimension,
                    const GaugeRequest& request, GaugeResponse& out) {
    std::vector<double> values;
    for (std::size_t k = 0; k < request.points.size(); ++k) {
        const std::array<float, 3>& p = request.points[k];
        const double x = dimension == 2 ? (slabs.axis == 0 ? p[0] : p[2]) : p[slabs.axis];
        const bool mine = slabs.rank_of(x) == comm.rank();
        for (const float v : out.sums[k])
            values.push_back(mine ? v : 0.0);
    }
    if (!values.empty())
        comm.sum(values.data(), static_cast<int>(values.size()));
    for (std::size_t k = 0; k < request.points.size(); ++k)
        for (std::size_t c = 0; c < 6; ++c)
            out.sums[k][c] = static_cast<float>(values[6 * k + c]);
    // Wall points the same way: the owner's sums (its halo covers the point's support).
    values.clear();
    for (std::size_t k = 0; k < request.wall_points.size(); ++k) {
        const std::array<float, 3>& p = request.wall_points[k];
        const double x = dimension == 2 ? (slabs.axis == 0 ? p[0] : p[2]) : p[slabs.axis];
        const bool mine = slabs.rank_of(x) == comm.rank();
        for (const float v : out.wall[k])
            values.push_back(mine ? v : 0.0);
    }
    if (!values.empty())
        comm.sum(values.data(), static_cast<int>(values.size()));
    const std::size_t width = std::tuple_size<WallSums>::value;
    for (std::size_t k = 0; k < request.wall_points.size(); ++k)
        for (std::size_t c = 0; c < width; ++c)
            out.wall[k][c] = static_cast<float>(values[width * k + c]);
    // A front is the largest of sign·coordinate over the processes; none (NaN) is −∞ here.
    std::vector<double> fronts;
    for (std::size_t f = 0; f < request.fronts.size(); ++f)
        fronts.push_back(std::isnan(out.fronts[f])
                             ? -std::numeric_limits<double>::infinity()
                             : request.fronts[f].sign * static_cast<double>(out.fronts[f]));
    if (!fronts.empty())
        comm.max(fronts.data(), static_cast<int>(fronts.size()));
    for (std::size_t f = 0; f < request.fronts.size(); ++f)
        out.fronts[f] = std::isinf(fronts[f])
                            ? std::numeric_limits<float>::quiet_NaN()
                            : static_cast<float>(request.fronts[f].sign * fronts[f]);
}

} // namespace sluice
