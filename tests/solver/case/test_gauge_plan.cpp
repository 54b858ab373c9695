// GaugePlan (case/gauge_plan.h): how a height gauge turns the fluid fraction sampled on its
// vertical line into a level. Synthetic fractions, so each rule is checked on its own.

#include "case/gauge_plan.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace sluice;

namespace {

/// A plan with one height gauge on the 2D still-water tank, and the heights of its samples.
struct HeightLine {
    HeightLine() : c(with_height_gauge(test::still_water_case(0.02))), plan(c, 2.0 * 0.02) {}
    static Case with_height_gauge(Case c) {
        Gauge g;
        g.kind = GaugeKind::height;
        g.name = "H";
        g.point = {0.5, 0.0, 0.0};
        c.gauges.interval = 0.01;
        c.gauges.gauges = {g};
        return c;
    }
    /// The level from a fraction profile φ(z).
    double level(const std::function<double(double)>& phi) const {
        GaugeResponse r;
        for (const auto& p : plan.request().points)
            r.sums.push_back({static_cast<float>(phi(p[2])), 0, 0, 0, 0, 0});
        return plan.evaluate(r).at(0);
    }
    Case c;
    GaugePlan plan;
};

} // namespace

TEST(GaugePlanHeight, SprayAboveTheColumnDoesNotCount) {
    HeightLine line;
    ASSERT_GT(line.plan.request().points.size(), 100u);
    // Water from the floor (z = 0) to 0.5 m, falling linearly through ½ at 0.5; a sheet of spray
    // (φ = 1) between 0.62 and 0.64 m: the level is the column's, not the sheet's top.
    auto column = [](double z) {
        return z < 0.0 ? 0.0 : std::clamp(0.5 + (0.5 - z) / 0.02, 0.0, 1.0);
    };
    EXPECT_NEAR(line.level(column), 0.5, 1e-6);
    auto splashed = [&](double z) { return z > 0.62 && z < 0.64 ? 1.0 : column(z); };
    EXPECT_NEAR(line.level(splashed), 0.5, 1e-6);
}

TEST(GaugePlanHeight, DryLineIsEmptyAndAFullOneReadsItsTop) {
    HeightLine line;
    EXPECT_TRUE(std::isnan(line.level([](double) { return 0.0; })));
    const auto& points = line.plan.request().points;
    EXPECT_NEAR(line.level([](double) { return 1.0; }), points.back()[2], 1e-6); // float points
}

TEST(GaugePlanHeight, WaterStartingAboveTheFloorIsFoundWhereItIs) {
    HeightLine line;
    // Nothing below 0.1 m (a dry stretch, or a wall), water 0.1 .. 0.3 m, spray at 0.5 m.
    auto profile = [](double z) {
        if (z > 0.49 && z < 0.51)
            return 1.0;
        return z < 0.1 ? 0.0 : std::clamp(0.5 + (0.3 - z) / 0.02, 0.0, 1.0);
    };
    EXPECT_NEAR(line.level(profile), 0.3, 1e-6);
}

/// The level gauges' one-sample drops (issue 41): a fluid particle caught in the floor's wall
/// layers under the line, or a thin gap in the fraction just above the floor, made a stretch
/// of water below the column that the first-stretch scan took for the column, reading a level
/// near the floor for one sample. The column is the thickest stretch.
TEST(GaugePlanHeight, AStretchBelowTheColumnIsNotItsTop) {
    HeightLine line;
    auto column = [](double z) {
        return z < 0.0 ? 0.0 : std::clamp(0.5 + (0.5 - z) / 0.02, 0.0, 1.0);
    };
    // A particle in the floor's layers: φ ≥ ½ over a sample or two at z ≈ −0.03 m.
    auto particle_in_floor = [&](double z) { return z > -0.032 && z < -0.026 ? 0.7 : column(z); };
    EXPECT_NEAR(line.level(particle_in_floor), 0.5, 1e-6);
    // The fraction dipping below ½ for one sample at the floor (the half-space fraction sits at
    // ½ on the wall's face): the stretch below the dip is one sample thick.
    auto dip_at_floor = [&](double z) { return z > 0.004 && z < 0.009 ? 0.45 : column(z); };
    EXPECT_NEAR(line.level(dip_at_floor), 0.5, 1e-6);
    // A crest is part of the column: the level follows it.
    auto crest = [](double z) {
        return z < 0.0 ? 0.0 : std::clamp(0.5 + (0.58 - z) / 0.02, 0.0, 1.0);
    };
    EXPECT_NEAR(line.level(crest), 0.58, 1e-6);
    // A sheet of spray thicker than a drop but thinner than the column still does not count.
    auto sheet = [&](double z) { return z > 0.6 && z < 0.7 ? 1.0 : column(z); };
    EXPECT_NEAR(line.level(sheet), 0.5, 1e-6);
}
