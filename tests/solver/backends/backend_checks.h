#pragma once
/// \file backend_checks.h
/// Checks every backend must pass, written once: test_simulation.cpp runs them on the CPU,
/// test_cuda_backend.cpp on the GPU.

#include "backends/simulation.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>

namespace sluice::test {

/// A run that goes unstable throws SimulationFailure naming step, time and particles, and the
/// failing state stays readable.
inline void expect_failure(const Case& c, int max_steps, Backend backend) {
    auto sim = make_simulation(c, backend);
    try {
        for (int k = 0; k < max_steps; ++k)
            sim->step();
        FAIL() << "no SimulationFailure within " << max_steps << " steps";
    } catch (const SimulationFailure& e) {
        const std::string what = e.what();
        std::printf("failure message: %s\n", what.c_str());
        EXPECT_NE(what.find("simulation failed at step " + std::to_string(sim->steps())),
                  std::string::npos);
        EXPECT_NE(what.find("t = "), std::string::npos);
        EXPECT_NE(what.find("id "), std::string::npos);
        // The snapshot holds the failing state: some particle is non-finite or out of range.
        const Snapshot s = sim->snapshot();
        EXPECT_EQ(s.step, sim->steps());
        bool bad = false;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const float rho = s.density[i];
            bad = bad || !std::isfinite(rho) || rho < 500.0f || rho > 2000.0f ||
                  !std::isfinite(s.position[i][0]) || !std::isfinite(s.velocity[i][0]) ||
                  !std::isfinite(s.position[i][2]) || !std::isfinite(s.velocity[i][2]);
        }
        EXPECT_TRUE(bad);
    }
}

/// Water flowing off the end of an open floor leaves the domain: those particles are excluded,
/// counted, reported once each, and left out of snapshots.
inline void check_exclusions(Backend backend) {
    Case c = tank_case_2d(0.02, 0.6, 0.6, box(0.0, 0.0, 0.3, 0.3));
    c.tank->faces = face_bottom | face_left;
    c.domain = box(-0.2, -0.3, 0.8, 0.8);
    auto sim = make_simulation(c, backend);
    const std::uint64_t fluid = sim->counts().fluid;
    std::set<std::uint32_t> reported;
    while (sim->time() < 0.8) {
        sim->step();
        for (const Exclusion& e : sim->take_exclusions()) {
            EXPECT_TRUE(reported.insert(e.id).second) << "id " << e.id << " reported twice";
            EXPECT_EQ(e.step, sim->steps());
            const bool outside = e.position[0] < -0.2f || e.position[0] > 0.8f ||
                                 e.position[2] < -0.3f || e.position[2] > 0.8f;
            EXPECT_TRUE(outside) << "id " << e.id;
        }
    }
    const ParticleCounts counts = sim->counts();
    EXPECT_GT(counts.excluded, 20u);
    EXPECT_EQ(counts.excluded, reported.size());
    EXPECT_EQ(counts.fluid + counts.excluded, fluid);
    const Snapshot s = sim->snapshot();
    EXPECT_EQ(s.size(), counts.fluid + counts.boundary);
    EXPECT_TRUE(std::is_sorted(s.id.begin(), s.id.end()));
    for (std::uint32_t id : s.id)
        EXPECT_EQ(reported.count(id), 0u);
}

/// t = 0: particles in id order at rest; after one step: the stage clocks, dt and time.
inline void check_initial_state_and_bookkeeping(Backend backend, const std::string& name) {
    const Case c = still_water_case(0.04);
    auto sim = make_simulation(c, backend);
    EXPECT_EQ(sim->backend_name(), name);
    EXPECT_EQ(sim->steps(), 0u);
    const Snapshot s = sim->snapshot();
    EXPECT_EQ(s.size(), sim->counts().fluid + sim->counts().boundary);
    for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_EQ(s.id[i], i);
        ASSERT_EQ(s.velocity[i][0], 0.0f);
    }
    sim->step();
    std::set<std::string> stages;
    double total = 0.0;
    for (const auto& [stage, seconds] : sim->stage_times()) {
        stages.insert(stage);
        EXPECT_GE(seconds, 0.0);
        total += seconds;
    }
    EXPECT_GT(total, 0.0);
    EXPECT_EQ(stages, (std::set<std::string>{"construction", "reorder", "interaction",
                                             "integration", "checks"}));
    EXPECT_GT(sim->last_dt(), 0.0);
    EXPECT_NEAR(sim->time(), sim->last_dt(), 1e-15);
}

/// A domain that does not hold every particle at t = 0 is an error, not a silent exclusion.
inline void expect_particles_outside_domain_rejected(Backend backend) {
    Case c = still_water_case(0.04);
    c.domain = box(-0.01, -0.01, 1.2, 1.0); // cuts off the wall layers
    EXPECT_THROW(make_simulation(c, backend), std::invalid_argument);
}

} // namespace sluice::test
