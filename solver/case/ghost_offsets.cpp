#include "case/ghost_offsets.h"

#include "case/particles.h"
#include "case/state_conversion.h"
#include "case/wall_normals.h"

#include <cmath>

namespace sluice {

template <int D>
std::vector<Vec<D>> ghost_offsets(const Case& c, double search_radius, std::size_t* missing) {
    const std::vector<Eigen::Vector3d> positions = boundary_positions(c);
    const std::vector<WallGhost> ghosts = wall_ghosts(c, positions);
    std::vector<Vec<D>> out(positions.size(), Vec<D>{});
    std::size_t without = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (!ghosts[i].found) {
            ++without;
            continue;
        }
        const Eigen::Vector3d offset = ghosts[i].ghost - positions[i];
        if (offset.norm() < 2.0 * search_radius)
            out[i] = to_vec<D>(offset);
    }
    if (missing)
        *missing = without;
    return out;
}

template <int D>
std::vector<std::array<float, 3>> wall_normals_of(const std::vector<Vec<D>>& offsets,
                                                  const std::vector<std::uint32_t>& ids) {
    std::vector<std::array<float, 3>> out(ids.size(), std::array<float, 3>{});
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= offsets.size())
            continue;
        const Vec<D>& g = offsets[ids[i]];
        double length2 = 0.0;
        for (int d = 0; d < D; ++d)
            length2 += static_cast<double>(g[d]) * g[d];
        if (length2 == 0.0)
            continue;
        Vec<D> unit{};
        for (int d = 0; d < D; ++d)
            unit[d] = static_cast<float>(g[d] / std::sqrt(length2));
        out[i] = to_array3<D>(unit);
    }
    return out;
}

template std::vector<Vec<2>> ghost_offsets<2>(const Case&, double, std::size_t*);
template std::vector<Vec<3>> ghost_offsets<3>(const Case&, double, std::size_t*);
template std::vector<std::array<float, 3>> wall_normals_of<2>(const std::vector<Vec<2>>&,
                                                              const std::vector<std::uint32_t>&);
template std::vector<std::array<float, 3>> wall_normals_of<3>(const std::vector<Vec<3>>&,
                                                              const std::vector<std::uint32_t>&);

} // namespace sluice
