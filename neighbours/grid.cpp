#include "grid.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sluice {

template <int D>
GridSpec<D> make_grid(const Vec<D>& lo, const Vec<D>& hi, float radius, float bin_width,
                      std::uint64_t max_bins) {
    if (!(radius > 0.0f) || !std::isfinite(radius))
        throw std::invalid_argument("search radius must be positive and finite");
    if (!(bin_width > 0.0f && bin_width <= 1.0f))
        throw std::invalid_argument("binWidth must be in (0, 1]");
    GridSpec<D> grid;
    grid.origin = lo;
    grid.bin_size = bin_width * radius;
    grid.inv_bin_size = 1.0f / grid.bin_size;
    std::uint64_t total = 1;
    for (int k = 0; k < D; ++k) {
        if (!(hi[k] >= lo[k]) || !std::isfinite(lo[k]) || !std::isfinite(hi[k]))
            throw std::invalid_argument("grid box is empty, inverted or not finite");
        // Round up to whole bins and make sure the upper corner itself is inside the box.
        const double extent = static_cast<double>(hi[k]) - static_cast<double>(lo[k]);
        double bins = std::floor(extent / grid.bin_size) + 1.0;
        if (bins > static_cast<double>(max_bins)) {
            std::ostringstream msg;
            msg << "grid needs more than " << max_bins << " bins";
            throw std::invalid_argument(msg.str());
        }
        grid.dims[k] = static_cast<int>(bins);
        // Float rounding of axis_coordinate must still place hi inside: grow until it is.
        while (!(grid.axis_coordinate(hi[k], k) < static_cast<float>(grid.dims[k])))
            ++grid.dims[k];
        total *= static_cast<std::uint64_t>(grid.dims[k]);
        if (total > max_bins) {
            std::ostringstream msg;
            msg << "grid needs " << total << "+ bins, more than the limit of " << max_bins
                << " (domain too large for this radius and binWidth)";
            throw std::invalid_argument(msg.str());
        }
    }
    return grid;
}

template GridSpec<2> make_grid<2>(const Vec<2>&, const Vec<2>&, float, float, std::uint64_t);
template GridSpec<3> make_grid<3>(const Vec<3>&, const Vec<3>&, float, float, std::uint64_t);

} // namespace sluice
