#pragma once
/// \file decomposition_support.h
/// What the decomposition tests (tests/mpi/test_decomposition*.cpp, one executable run under
/// mpirun) share: the world communicator, the whole run gathered from the pieces, the particle
/// counts summed over the processes, the split-against-single agreement check and its
/// tolerances, the skip macros, and the cases they split (a small 3D dam break, the fluid thrown
/// across the faces).

#include "backends/cuda/cuda_backend.h"
#include "backends/simulation.h"
#include "case/case_model.h"
#include "case/gauge_plan.h"
#include "io/checkpoint.h"
#include "neighbours/module.h"
#include "parallel/communicator.h"
#include "parallel/slab_start.h"
#include "parallel/slabs.h"
#include "support/cases.h"
#include "support/state_difference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace sluice::decomposition_test {

using sluice::test::box;
using sluice::test::Difference;
using sluice::test::difference;

inline constexpr double g = 9.81;

/// A small 3D dam break (0.15 × 0.2 × 0.2 m of water in a 0.4 × 0.2 × 0.3 m tank).
inline Case dambreak_3d(double dp) {
    Case c = test::tank_case_3d(dp, {0.4, 0.2, 0.3}, {0.15, 0.2, 0.2}, {-0.2, -0.2, -0.2},
                                {0.6, 0.4, 0.5});
    c.name = "dambreak3d-small";
    c.constants.coefh = 0.75;
    return c;
}

inline std::unique_ptr<Communicator> world() {
    return Communicator::world();
}

#define SKIP_WITHOUT_PROCESSES(comm)                                                               \
    do {                                                                                           \
        if (!(comm))                                                                               \
            GTEST_SKIP() << "not started by mpirun with several processes";                        \
    } while (0)

/// The whole run's state from every process's piece, in id order, on every process.
inline Snapshot gather_snapshot(const Communicator& comm, const Snapshot& piece) {
    std::vector<std::byte> mine;
    ByteWriter out(mine);
    for (std::size_t i = 0; i < piece.size(); ++i) {
        out.put(piece.id[i]);
        out.put(piece.type[i]);
        out.put(piece.position[i]);
        out.put(piece.velocity[i]);
        out.put(piece.density[i]);
    }
    struct Row {
        std::uint32_t id;
        ParticleType type;
        std::array<float, 3> position, velocity;
        float density;
    };
    std::vector<Row> rows;
    for (const std::vector<std::byte>& b : comm.all_gather(mine)) {
        ByteReader in(b);
        while (!in.done()) {
            Row r;
            r.id = in.get<std::uint32_t>();
            r.type = in.get<ParticleType>();
            r.position = in.get<std::array<float, 3>>();
            r.velocity = in.get<std::array<float, 3>>();
            r.density = in.get<float>();
            rows.push_back(r);
        }
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
    Snapshot s = piece;
    s.id.clear();
    s.type.clear();
    s.position.clear();
    s.velocity.clear();
    s.density.clear();
    s.pressure.clear();
    for (const Row& r : rows) {
        s.id.push_back(r.id);
        s.type.push_back(r.type);
        s.position.push_back(r.position);
        s.velocity.push_back(r.velocity);
        s.density.push_back(r.density);
    }
    return s;
}

inline ParticleCounts total_counts(const Communicator& comm, const Simulation& sim) {
    const ParticleCounts c = sim.counts();
    std::uint64_t v[3] = {c.fluid, c.boundary, c.excluded};
    comm.sum(v, 3);
    return {v[0], v[1], v[2]};
}

inline std::uint64_t test_particle_count(const Communicator& comm, const Simulation& sim) {
    const ParticleCounts n = total_counts(comm, sim);
    return n.fluid + n.boundary + n.excluded;
}

/// Runs `steps` steps of the case in one process and split over the processes, and checks that
/// they agree within the GPU/CPU agreement tolerance
/// (tests/solver/backends/test_backend_agreement.cpp): |dx| < 10⁻³ dp, |dv| < 10⁻⁴ U,
/// |dρ| < 10⁻⁴ ρ0 with U = sqrt(g·fluid_height), and dt within 10⁻⁴ of the single run's
/// (relative), every step, each bound times `looser`: the split
/// run differs only in the order of each particle's neighbour sums (migrated particles join a
/// bin's list at its end).
/// \returns the face moves of load balancing.
inline std::size_t expect_split_run_agrees(const Communicator& comm, const Case& c, int steps,
                                           double fluid_height, const std::string& what,
                                           double looser = 1.0, Backend backend = Backend::cpu) {
    auto single = make_simulation(c, Backend::cpu);
    auto split = make_simulation(c, backend, comm);
    const std::uint64_t particles = single->snapshot().size();
    for (int k = 0; k < steps; ++k) {
        single->step();
        split->step();
        // dt follows the largest acceleration, as sensitive to rounding as the velocities.
        EXPECT_NEAR(split->last_dt(), single->last_dt(), looser * 1e-4 * single->last_dt())
            << what << ", step " << k + 1;
        // Every particle is owned by exactly one process, through every migration.
        const ParticleCounts n = total_counts(comm, *split);
        EXPECT_EQ(n.fluid + n.boundary + n.excluded, particles) << what << ", step " << k + 1;
    }
    const Snapshot a = single->snapshot();
    const Snapshot b = gather_snapshot(comm, split->snapshot());
    const Difference d = difference(a, b);
    const SlabDecomposition slabs = *split->decomposition();
    if (comm.is_root())
        std::printf("%s%s: %d processes vs one after %d steps (t = %.4f s): max |dx| = %.3g dp, "
                    "max |dv| = %.3g sqrt(gH), max |drho| = %.3g rho0; %zu face move(s)\n",
                    backend == Backend::cuda ? "GPUs, " : "", what.c_str(), comm.size(), steps,
                    single->time(), d.dx / c.dp, d.dv / std::sqrt(g * fluid_height),
                    d.drho / c.constants.rho0, slabs.history.size());
    EXPECT_LT(d.dx, looser * 1e-3 * c.dp) << what;
    EXPECT_LT(d.dv, looser * 1e-4 * std::sqrt(g * fluid_height)) << what;
    EXPECT_LT(d.drho, looser * 1e-4 * c.constants.rho0) << what;
    EXPECT_NEAR(split->time(), single->time(), 1e-5 * single->time()) << what;
    const ParticleCounts n = total_counts(comm, *split), one = single->counts();
    EXPECT_EQ(n.fluid, one.fluid) << what;
    EXPECT_EQ(n.boundary, one.boundary) << what;
    EXPECT_EQ(n.excluded, one.excluded) << what;
    return slabs.history.size();
}

/// Fluid thrown across the slab faces and out of the domain through its open right side, the
/// faces moving under it (balancing every 10 steps).
inline Case thrown_fluid_case() {
    Case c = test::tank_case_2d(0.04, 1.2, 1.0, box(0.0, 0.0, 0.8, 0.6));
    c.tank->faces = face_bottom | face_left;
    c.fluids[0].velocity = Eigen::Vector3d(8.0, 0.0, 0.0);
    c.name = "fluid-thrown-out";
    c.run.balance_interval = 10;
    return c;
}

/// Whether every process has a GPU (the same answer on every process): one of its own, or one
/// it shares under tests/mpi/share_gpus.
inline bool every_process_has_a_gpu(const Communicator& comm) {
    return comm.min(cuda_device_of_process(comm.local_rank()) >= 0 ? 1.0 : 0.0) > 0.0;
}

#define SKIP_WITHOUT_A_GPU_EACH(comm)                                                              \
    do {                                                                                           \
        SKIP_WITHOUT_PROCESSES(comm);                                                              \
        if (!every_process_has_a_gpu(*(comm)))                                                     \
            GTEST_SKIP() << "not a GPU for every process";                                         \
    } while (0)

} // namespace sluice::decomposition_test
