#pragma once
/// \file state_difference.h
/// The largest difference between two states of the same particles (the agreement checks of
/// GPU vs CPU and of a run over several processes vs one).

#include "io/snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace sluice::test {

struct Difference {
    double dx = 0.0, dv = 0.0, drho = 0.0; ///< max over particles (m, m/s, kg/m³)
};

/// Expects the same particles (ids, in order) and types; the largest differences of position,
/// velocity and density (every component infinite when the particles differ or a position is
/// not finite).
inline Difference difference(const Snapshot& a, const Snapshot& b) {
    Difference d;
    EXPECT_EQ(a.id, b.id) << "not the same particles";
    if (a.id != b.id)
        return {HUGE_VAL, HUGE_VAL, HUGE_VAL};
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a.type[i], b.type[i]);
        for (int k = 0; k < 3; ++k) {
            d.dx = std::max<double>(d.dx, std::fabs(a.position[i][k] - b.position[i][k]));
            d.dv = std::max<double>(d.dv, std::fabs(a.velocity[i][k] - b.velocity[i][k]));
        }
        d.drho = std::max<double>(d.drho, std::fabs(a.density[i] - b.density[i]));
        if (!std::isfinite(a.position[i][0]) || !std::isfinite(b.position[i][0]))
            d.dx = HUGE_VAL;
    }
    return d;
}

} // namespace sluice::test
