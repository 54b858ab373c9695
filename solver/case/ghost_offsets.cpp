#include "case/ghost_offsets.h"

#include "case/particles.h"
#include "case/state_conversion.h"
#include "case/wall_normals.h"

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

template std::vector<Vec<2>> ghost_offsets<2>(const Case&, double, std::size_t*);
template std::vector<Vec<3>> ghost_offsets<3>(const Case&, double, std::size_t*);

} // namespace sluice
