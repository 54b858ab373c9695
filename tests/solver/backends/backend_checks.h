#pragma once
/// \file backend_checks.h
/// Checks every backend must pass, written once: test_backend_checks.cpp runs them on each backend
/// (typed tests over backend_tags.h); the CPU's and the CUDA backend's own tests use them with
/// their own parameters (check_restart: bit for bit on the CPU, within a tolerance on the GPU).

#include "backends/simulation.h"
#include "io/checkpoint.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

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
inline void check_exclusions(Backend backend, const char* module = "counting-sort/strips/1") {
    Case c = tank_case_2d(0.02, 0.6, 0.6, box(0.0, 0.0, 0.3, 0.3));
    c.tank->faces = face_bottom | face_left;
    c.domain = box(-0.2, -0.3, 0.8, 0.8);
    c.neighbours = parse_neighbour_module(module);
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
                                             "integration", "checks", "gauges"}));
    EXPECT_GT(sim->last_dt(), 0.0);
    EXPECT_NEAR(sim->time(), sim->last_dt(), 1e-15);
}

/// A domain that does not hold every particle at t = 0 is an error, not a silent exclusion.
inline void expect_particles_outside_domain_rejected(Backend backend) {
    Case c = still_water_case(0.04);
    c.domain = box(-0.01, -0.01, 1.2, 1.0); // cuts off the wall layers
    EXPECT_THROW(make_simulation(c, backend), std::invalid_argument);
}

/// Largest differences between two snapshots of the same particles (m, m/s, kg/m³).
struct StateDifference {
    double dx = 0.0, dv = 0.0, drho = 0.0;
};

inline StateDifference snapshot_difference(const Snapshot& a, const Snapshot& b) {
    StateDifference d;
    EXPECT_EQ(a.id, b.id);
    if (a.id != b.id)
        return {HUGE_VAL, HUGE_VAL, HUGE_VAL};
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            d.dx = std::max<double>(d.dx, std::fabs(a.position[i][k] - b.position[i][k]));
            d.dv = std::max<double>(d.dv, std::fabs(a.velocity[i][k] - b.velocity[i][k]));
        }
        d.drho = std::max<double>(d.drho, std::fabs(a.density[i] - b.density[i]));
    }
    return d;
}

/// A run saved after `split` steps and continued from its state (through a checkpoint file)
/// for `total − split` more ends where an uninterrupted run of `total` steps ends: exactly
/// (`exact`, the CPU backend: same particle order, same arithmetic) or within `tolerance`·dp in
/// position (the GPU: the atomic construction orders a bin's particles differently after the
/// restart, so sums round differently). Exclusions reported before the save are not reported
/// again; those after it are.
/// \returns the exclusions reported before the save and in all.
inline std::pair<std::size_t, std::size_t> check_restart(const Case& c, Backend backend, int split,
                                                         int total, bool exact, double tolerance,
                                                         const std::filesystem::path& dir) {
    auto whole = make_simulation(c, backend);
    for (int k = 0; k < total; ++k)
        whole->step();

    auto first = make_simulation(c, backend);
    std::size_t reported_before = 0;
    for (int k = 0; k < split; ++k) {
        first->step();
        reported_before += first->take_exclusions().size();
    }
    Checkpoint saved;
    saved.case_name = c.name;
    saved.dp = c.dp;
    saved.integrator = to_string(c.physics.integrator);
    saved.state = first->save_state();
    std::filesystem::create_directories(dir);
    const Checkpoint loaded = read_checkpoint(write_checkpoint(dir, saved));
    auto second = make_simulation(c, backend, loaded.state);
    EXPECT_EQ(second->time(), first->time());
    EXPECT_EQ(second->steps(), first->steps());
    EXPECT_EQ(second->counts().fluid, first->counts().fluid);
    EXPECT_EQ(second->counts().excluded, first->counts().excluded);
    std::size_t reported_after_steps = 0;
    for (int k = split; k < total; ++k) {
        second->step();
        reported_after_steps += second->take_exclusions().size();
    }
    EXPECT_EQ(second->steps(), whole->steps());
    const Snapshot a = whole->snapshot(), b = second->snapshot();
    if (exact) {
        EXPECT_EQ(second->time(), whole->time());
        EXPECT_EQ(a.position, b.position);
        EXPECT_EQ(a.velocity, b.velocity);
        EXPECT_EQ(a.density, b.density);
        const SimulationState sa = whole->save_state(), sb = second->save_state();
        EXPECT_EQ(sa.id, sb.id) << "the particle order continues exactly";
        EXPECT_EQ(sa.previous_velocity, sb.previous_velocity);
        EXPECT_EQ(sa.excluded, sb.excluded);
    } else {
        const StateDifference d = snapshot_difference(a, b);
        std::printf("restart vs uninterrupted after %d steps: |dx| %.3g dp, |drho| %.3g rho0\n",
                    total, d.dx / c.dp, d.drho / c.constants.rho0);
        EXPECT_LT(d.dx, tolerance * c.dp);
        EXPECT_NEAR(second->time(), whole->time(), 1e-6 * whole->time());
    }
    EXPECT_EQ(second->counts().excluded, whole->counts().excluded);
    // Reported exactly once: before the save by the first run, after it by the second.
    const std::size_t reported_after = reported_after_steps + second->take_exclusions().size();
    EXPECT_EQ(reported_before + reported_after, whole->counts().excluded);
    return {reported_before, static_cast<std::size_t>(whole->counts().excluded)};
}

} // namespace sluice::test
