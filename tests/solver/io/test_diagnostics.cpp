/// diagnostics.h: a row of diagnostics.csv from a small snapshot against values worked out by
/// hand, the empty fluid columns of a snapshot without fluid, and the row of several processes
/// combined from their pieces' rows.

#include "io/diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

using namespace sluice;

namespace {

void add(Snapshot& s, ParticleType type, std::array<float, 3> x, std::array<float, 3> v,
         float density) {
    s.id.push_back(static_cast<std::uint32_t>(s.id.size()));
    s.type.push_back(type);
    s.position.push_back(x);
    s.velocity.push_back(v);
    s.density.push_back(density);
    s.pressure.push_back(0.0f);
}

/// Three fluid particles and one boundary particle (fast and dense: it must count only as a
/// boundary particle), in 3D.
///   fluid  x           v          |v|²  density
///   a      (0, 0, 2)   (3, 0, 4)  25    1000
///   b      (1, 1, −1)  (0, 0, 0)   0     990
///   c      (2, 0, 0.5) (1, 2, 2)   9    1010.5
Snapshot small_snapshot() {
    Snapshot s;
    s.dimension = 3;
    s.time = 0.25;
    s.step = 7;
    s.dt = 1.5e-4;
    add(s, ParticleType::fluid, {0, 0, 2}, {3, 0, 4}, 1000.0f);
    add(s, ParticleType::boundary, {5, 5, 50}, {100, 0, 0}, 5000.0f);
    add(s, ParticleType::fluid, {1, 1, -1}, {0, 0, 0}, 990.0f);
    add(s, ParticleType::fluid, {2, 0, 0.5f}, {1, 2, 2}, 1010.5f);
    return s;
}

/// m = 0.5 kg, g = 9.81 m/s², 6 particles in the run (so 2 excluded).
DiagnosticsConstants small_constants() {
    DiagnosticsConstants k;
    k.mass = 0.5;
    k.gravity = 9.81;
    k.particles = 6;
    return k;
}

enum Column {
    kinetic,
    potential,
    max_speed,
    min_density,
    max_density,
    fluid,
    boundary,
    excluded,
    dt
};

void expect_rows_equal(const std::vector<double>& actual, const std::vector<double>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t c = 0; c < expected.size(); ++c) {
        SCOPED_TRACE(diagnostics_columns()[c]);
        if (std::isnan(expected[c]))
            EXPECT_TRUE(std::isnan(actual[c])) << actual[c];
        else
            EXPECT_NEAR(actual[c], expected[c], 1e-12 * std::max(1.0, std::fabs(expected[c])));
    }
}

const double none = std::nan("");

// ---------------------------------------------------------------------------------------------

TEST(Diagnostics, ColumnsAndCommentsNameTheQuantitiesAndUnits) {
    EXPECT_EQ(
        diagnostics_columns(),
        (std::vector<std::string>{"kinetic_energy", "potential_energy", "max_speed", "min_density",
                                  "max_density", "fluid", "boundary", "excluded", "dt"}));
    std::string comments;
    for (const std::string& c : diagnostics_comments())
        comments += c + "\n";
    for (const char* unit : {"t: s", "J", "m/s", "kg/m3", "dt: s"})
        EXPECT_NE(comments.find(unit), std::string::npos) << unit;
}

TEST(Diagnostics, RowOfASmallSnapshotMatchesTheHandSums) {
    const std::vector<double> row = diagnostics_row(small_snapshot(), small_constants());
    // kinetic: ½·0.5·(25 + 0 + 9) = 8.5 J; potential: 0.5·9.81·(2 − 1 + 0.5) = 7.3575 J.
    expect_rows_equal(row, {8.5, 7.3575, 5.0, 990.0, 1010.5, 3, 1, 2, 1.5e-4});
}

TEST(Diagnostics, PotentialEnergyIsMeasuredFromZAndScalesWithGravity) {
    Snapshot s;
    add(s, ParticleType::fluid, {0, 0, -2}, {0, 0, 0}, 1000.0f);
    DiagnosticsConstants k = small_constants();
    k.particles = 1;
    EXPECT_DOUBLE_EQ(diagnostics_row(s, k)[potential], 0.5 * 9.81 * -2.0);
    k.gravity = 0.0;
    EXPECT_EQ(diagnostics_row(s, k)[potential], 0.0);
}

TEST(Diagnostics, WithoutFluidTheFluidColumnsAreEmpty) {
    Snapshot s;
    s.dt = 2e-3;
    add(s, ParticleType::boundary, {0, 0, 0}, {1, 0, 0}, 1000.0f);
    add(s, ParticleType::boundary, {1, 0, 0}, {0, 0, 0}, 1001.0f);
    expect_rows_equal(diagnostics_row(s, small_constants()),
                      {none, none, none, none, none, 0, 2, 4, 2e-3});

    // Nothing left at all: every particle of the run is excluded; t = 0 has dt = 0.
    expect_rows_equal(diagnostics_row(Snapshot{}, small_constants()),
                      {none, none, none, none, none, 0, 0, 6, 0.0});
}

TEST(Diagnostics, PiecesCombineToTheWholeRow) {
    // The small snapshot cut in two pieces (a, the boundary particle, b | c) and a third piece
    // without fluid, as three processes would hold it.
    const Snapshot whole = small_snapshot();
    Snapshot first, second, third;
    first.dt = second.dt = third.dt = whole.dt;
    for (std::size_t i = 0; i < 3; ++i)
        add(first, whole.type[i], whole.position[i], whole.velocity[i], whole.density[i]);
    add(second, whole.type[3], whole.position[3], whole.velocity[3], whole.density[3]);
    add(third, ParticleType::boundary, {9, 9, 9}, {0, 0, 0}, 999.0f);
    const DiagnosticsConstants k = small_constants();
    const std::vector<std::vector<double>> rows = {
        diagnostics_row(first, k), diagnostics_row(third, k), diagnostics_row(second, k)};
    ASSERT_TRUE(std::isnan(rows[1][kinetic])); // the fluid-free piece's empty columns are skipped

    // Counts summed (boundary 1 + 1 now), excluded from the run's total, not from the pieces'.
    expect_rows_equal(combine_diagnostics_rows(rows, k),
                      {8.5, 7.3575, 5.0, 990.0, 1010.5, 3, 2, 1, 1.5e-4});
}

TEST(Diagnostics, CombiningNoFluidOrNoRowsGivesEmptyFluidColumns) {
    const DiagnosticsConstants k = small_constants();
    Snapshot dry;
    dry.dt = 1e-3;
    add(dry, ParticleType::boundary, {0, 0, 0}, {0, 0, 0}, 1000.0f);
    const std::vector<double> piece = diagnostics_row(dry, k);
    expect_rows_equal(combine_diagnostics_rows({piece, piece}, k),
                      {none, none, none, none, none, 0, 2, 4, 1e-3});
    expect_rows_equal(combine_diagnostics_rows({}, k),
                      {none, none, none, none, none, 0, 0, 6, none});
}

} // namespace
