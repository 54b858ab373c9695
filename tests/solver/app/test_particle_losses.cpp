// ParticleLosses (app/particle_losses.h): which exclusions are named, the counts per output
// interval, the totals and the limit on the share of the fluid lost.

#include "app/particle_losses.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace sluice;

namespace {

std::vector<Exclusion> exclusions(std::uint32_t first_id, std::uint32_t count,
                                  ParticleType type = ParticleType::fluid, double time = 0.25) {
    std::vector<Exclusion> out;
    for (std::uint32_t k = 0; k < count; ++k)
        out.push_back({first_id + k, 100, time, {1.5f, 0.0f, 0.25f}, type});
    return out;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(ParticleLosses, NamesTheFirstFiveThenCountsPerOutputInterval) {
    ParticleLosses losses(1000, 0, 0, 1.0);
    const std::vector<std::string> first = losses.add(exclusions(10, 3));
    ASSERT_EQ(first.size(), 3u);
    EXPECT_EQ(first[0], "t = 0.25 s (step 100): fluid particle 10 left the domain at (1.5, 0, "
                        "0.25) m and is excluded (1 in all)");
    EXPECT_TRUE(losses.unreported_lines(0.3).empty()); // every one so far was named

    const std::vector<std::string> second = losses.add(exclusions(20, 4));
    ASSERT_EQ(second.size(), 2u); // the 4th and 5th; the 6th and 7th are only counted
    EXPECT_TRUE(contains(second[1], "(5 in all; further ones are counted at each output time)"))
        << second[1];
    losses.add(exclusions(30, 5));
    const std::vector<std::string> interval = losses.unreported_lines(0.5);
    ASSERT_EQ(interval.size(), 1u);
    EXPECT_EQ(interval[0], "t = 0.5 s: 7 more fluid particles excluded (total 12, 1.2 % of the "
                           "fluid)");
    EXPECT_TRUE(losses.unreported_lines(0.55).empty()); // each reported once

    losses.add(exclusions(40, 1));
    EXPECT_EQ(losses.unreported_lines(0.6),
              std::vector<std::string>{
                  "t = 0.6 s: 1 more fluid particle excluded (total 13, 1.3 % of the fluid)"});
    EXPECT_EQ(losses.total_lines(),
              std::vector<std::string>{
                  "13 of 1000 fluid particles (1.3 %) left the domain and were excluded"});
}

TEST(ParticleLosses, BoundaryParticlesAreCountedApartFromTheFluid) {
    ParticleLosses losses(200, 0, 0, 1.0);
    const std::vector<std::string> lines = losses.add(exclusions(3, 7, ParticleType::boundary));
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_TRUE(contains(lines[0], "boundary particle 3 left the domain")) << lines[0];
    const std::vector<std::string> interval = losses.unreported_lines(1.0);
    ASSERT_EQ(interval.size(), 1u);
    EXPECT_EQ(interval[0], "t = 1 s: 2 more boundary particles excluded (total 7)");
    EXPECT_FALSE(losses.exceeded()); // no fluid lost
    EXPECT_EQ(losses.total_lines(),
              std::vector<std::string>{
                  "7 boundary particles left the domain with their object and were excluded"});
    const LossSummary s = losses.summary();
    EXPECT_EQ(s.fluid, 0u);
    EXPECT_EQ(s.boundary, 7u);
    EXPECT_EQ(s.fluid_at_start, 200u);
}

TEST(ParticleLosses, TheLimitIsAShareOfTheFluidAtTheStart) {
    // 10 of 1000 is exactly 1 %: not more than the limit.
    ParticleLosses at_limit(1000, 0, 0, 1.0);
    at_limit.add(exclusions(0, 10));
    EXPECT_FALSE(at_limit.exceeded());
    at_limit.add(exclusions(10, 1));
    EXPECT_TRUE(at_limit.exceeded());
    EXPECT_EQ(at_limit.limit_message(),
              "11 of 1000 fluid particles (1.1 %) left the domain, more than the 1 % a run may "
              "lose (--max-loss, <run maxLoss>)");
    const LossSummary s = at_limit.summary();
    EXPECT_TRUE(s.exceeded);
    EXPECT_DOUBLE_EQ(s.fluid_percent, 1.1);
    EXPECT_DOUBLE_EQ(s.max_fluid_percent, 1.0);

    // 0 %: any loss is too much; 100 %: none is.
    ParticleLosses none_allowed(1000, 0, 0, 0.0);
    EXPECT_FALSE(none_allowed.exceeded());
    none_allowed.add(exclusions(0, 1));
    EXPECT_TRUE(none_allowed.exceeded());
    ParticleLosses no_limit(10, 0, 0, 100.0);
    no_limit.add(exclusions(0, 10));
    EXPECT_FALSE(no_limit.exceeded());
    EXPECT_TRUE(no_limit.total_lines().size() == 1 &&
                contains(no_limit.total_lines()[0], "10 of 10 fluid particles (100.0 %)"));
    // No fluid at all: nothing to lose.
    EXPECT_FALSE(ParticleLosses(0, 0, 0, 0.0).exceeded());
}

TEST(ParticleLosses, ARestartCountsTheLossesBeforeIt) {
    // 900 fluid in the domain + 100 lost before the checkpoint.
    ParticleLosses losses(1000, 100, 2, 20.0);
    const std::vector<std::string> lines = losses.add(exclusions(5000, 1));
    ASSERT_EQ(lines.size(), 1u); // this run names its own first five
    EXPECT_TRUE(contains(lines[0], "(101 in all)")) << lines[0];
    EXPECT_EQ(losses.summary().fluid, 101u);
    EXPECT_EQ(losses.summary().boundary, 2u);
    EXPECT_FALSE(losses.exceeded());

    SimulationState state;
    state.id = {0, 1, 2, 3, 4, 5};
    state.type = {ParticleType::boundary, ParticleType::boundary, ParticleType::fluid,
                  ParticleType::fluid,    ParticleType::fluid,    ParticleType::fluid};
    state.excluded = {1, 3, 5};
    const std::array<std::uint64_t, 2> before = excluded_by_type(state);
    EXPECT_EQ(before[0], 2u); // fluid 3 and 5
    EXPECT_EQ(before[1], 1u); // boundary 1
}

TEST(ParticleLosses, SharesKeepTheirFirstDigits) {
    EXPECT_EQ(ParticleLosses::format_percent(0.0), "0.0");
    EXPECT_EQ(ParticleLosses::format_percent(9.0613), "9.1");
    EXPECT_EQ(ParticleLosses::format_percent(100.0), "100.0");
    EXPECT_EQ(ParticleLosses::format_percent(100.0 / 4602.0), "0.022"); // 1 of 4602
}

} // namespace
