#include "data_sets.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

namespace sluice::bench {

namespace {
constexpr double pi = 3.14159265358979323846;
} // namespace

double ball_volume(int dim) {
    return dim == 2 ? pi : 4.0 * pi / 3.0;
}

template <int D>
Dataset<D> circles_start(std::uint32_t n, int neighbours, unsigned seed) {
    Dataset<D> d;
    d.name = "circles-0";
    const double w =
        std::floor(std::pow(n * ball_volume(D) * std::pow(search_radius, D) / neighbours, 1.0 / D));
    d.env_max = static_cast<float>(w);
    for (int a = 0; a < D; ++a)
        d.lo[a] = 0.0f, d.hi[a] = d.env_max;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, d.env_max);
    d.positions.resize(n);
    for (Vec<D>& x : d.positions) {
        x = Vec<D>{};
        for (int a = 0; a < D; ++a)
            x[a] = std::min(u(rng), std::nextafter(d.env_max, 0.0f));
    }
    std::ostringstream note;
    note << "W = " << w << ", expected " << std::setprecision(4)
         << n * ball_volume(D) / std::pow(w, D) << " neighbours";
    d.note = note.str();
    return d;
}

template <int D>
Dataset<D> jittered_lattice(std::uint32_t n, int neighbours, unsigned seed) {
    Dataset<D> d;
    d.name = "lattice";
    const double dp = search_radius * std::pow(ball_volume(D) / neighbours, 1.0 / D);
    const int m = static_cast<int>(std::lround(std::pow(static_cast<double>(n), 1.0 / D)));
    std::uint64_t total = 1;
    for (int a = 0; a < D; ++a)
        total *= m;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.1, 0.1);
    d.positions.resize(total);
    for (std::uint64_t i = 0; i < total; ++i) {
        std::uint64_t rest = i;
        Vec<D> x{};
        for (int a = 0; a < D; ++a) {
            x[a] = static_cast<float>((static_cast<double>(rest % m) + 0.5 + jitter(rng)) * dp);
            rest /= m;
        }
        d.positions[i] = x;
    }
    for (int a = 0; a < D; ++a)
        d.lo[a] = 0.0f, d.hi[a] = static_cast<float>(m * dp);
    d.env_max = d.hi[0];
    std::ostringstream note;
    note << m << "^" << D << " particles, dp = " << std::setprecision(4) << dp << " R";
    d.note = note.str();
    return d;
}

template Dataset<2> circles_start<2>(std::uint32_t, int, unsigned);
template Dataset<3> circles_start<3>(std::uint32_t, int, unsigned);
template Dataset<2> jittered_lattice<2>(std::uint32_t, int, unsigned);
template Dataset<3> jittered_lattice<3>(std::uint32_t, int, unsigned);

} // namespace sluice::bench
