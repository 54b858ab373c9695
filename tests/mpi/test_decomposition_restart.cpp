// Checkpoints over several processes (DESIGN.md, Scale-out): each process's own checkpoint
// continues as the run that never stopped, and a restart under another number of processes
// (regrouped) continues within the agreement tolerance; on the CPU and on the GPUs. Part of
// solver_mpi_tests (tests/mpi/main.cpp); started without mpirun, the tests skip.

#include "decomposition_support.h"
#include "io/checkpoint.h"
#include "parallel/slab_start.h"
#include "parallel/slabs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>

using namespace sluice;
using namespace sluice::decomposition_test;

namespace {

/// Each process writes its own checkpoint file; read back, they continue exactly as the run
/// that never stopped (balancing off: the faces do not depend on timing then).
TEST(Decomposition, CheckpointOfEveryProcessContinuesBitForBit) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = test::dambreak_case(0.04);
    c.run.balance_interval = 0;
    const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "sluice_mpi_ck";
    if (comm->is_root())
        std::filesystem::remove_all(dir);
    comm->barrier();
    std::filesystem::create_directories(dir);
    auto run = make_simulation(c, Backend::cpu, *comm);
    for (int k = 0; k < 80; ++k)
        run->step();
    Checkpoint k;
    k.case_name = c.name;
    k.dp = c.dp;
    k.integrator = "symplectic";
    k.state = run->save_state();
    k.process = static_cast<std::uint32_t>(comm->rank());
    k.processes = static_cast<std::uint32_t>(comm->size());
    k.total_particles = test_particle_count(*comm, *run);
    k.slab_axis = run->decomposition()->axis;
    k.slab_faces = run->decomposition()->faces;
    const std::filesystem::path path = write_checkpoint(dir, k);
    EXPECT_EQ(path, checkpoint_path(dir, c.name, 80, k.process));
    comm->barrier();
    const Checkpoint back = read_checkpoint(path);
    EXPECT_EQ(back.processes, k.processes);
    EXPECT_EQ(back.slab_faces, k.slab_faces);
    auto continued = make_simulation(c, Backend::cpu, *comm, back.state,
                                     slabs_with_faces(back.slab_axis, back.slab_faces, 0.0, 0.0),
                                     back.total_particles);
    for (int s = 0; s < 80; ++s) {
        run->step();
        continued->step();
    }
    const Snapshot a = gather_snapshot(*comm, run->snapshot());
    const Snapshot b = gather_snapshot(*comm, continued->snapshot());
    const Difference d = difference(a, b);
    EXPECT_EQ(d.dx, 0.0);
    EXPECT_EQ(d.dv, 0.0);
    EXPECT_EQ(d.drho, 0.0);
    EXPECT_EQ(continued->time(), run->time());
    comm->barrier();
    if (comm->is_root())
        std::filesystem::remove_all(dir);
}

/// A restart under another number of processes (`sluice run --restart`, regrouped): every
/// process's checkpoint piece read back and merged into the whole run
/// (read_latest_whole_checkpoint), continued in one process, and cut afresh over these processes
/// (split_state); both continue within the agreement tolerance of the run that never stopped
/// (other cuts sum in other orders) and lose no particle. The fluid thrown across the faces and
/// out of the domain: exclusions already reported carry over to whoever owns the particle now.
void expect_regrouped_restart_continues(const Communicator& comm, Backend backend) {
    Case c = thrown_fluid_case();
    c.run.balance_interval = 0;
    const std::filesystem::path dir =
        std::filesystem::path(testing::TempDir()) /
        (backend == Backend::cuda ? "sluice_regroup_gpu" : "sluice_regroup");
    if (comm.is_root())
        std::filesystem::remove_all(dir);
    comm.barrier();
    std::filesystem::create_directories(dir);
    auto run = make_simulation(c, backend, comm);
    for (int k = 0; k < 400; ++k) // until the first particles have left
        run->step();
    const int steps = 150;
    Checkpoint k;
    k.case_name = c.name;
    k.dp = c.dp;
    k.integrator = "symplectic";
    k.state = run->save_state();
    k.process = static_cast<std::uint32_t>(comm.rank());
    k.processes = static_cast<std::uint32_t>(comm.size());
    k.total_particles = test_particle_count(comm, *run);
    k.slab_axis = run->decomposition()->axis;
    k.slab_faces = run->decomposition()->faces;
    write_checkpoint(dir, k);
    comm.barrier();
    std::vector<std::string> warnings;
    const Checkpoint whole = read_latest_whole_checkpoint(dir, c.name, warnings);
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(whole.processes, k.processes);
    ASSERT_EQ(whole.state.size(), k.total_particles);
    const ParticleCounts before = total_counts(comm, *run);
    EXPECT_GT(before.excluded, 0u) << "the case should have thrown fluid out by now";
    EXPECT_EQ(whole.state.excluded.size(), before.excluded);

    auto one = make_simulation(c, backend, whole.state);
    SlabStart piece = split_state(c, whole.state, comm);
    std::uint64_t held = piece.state.size();
    comm.sum(&held, 1);
    EXPECT_EQ(held, whole.state.size()); // every particle in exactly one slab
    auto regrouped = make_simulation(
        c, backend, comm, piece.state,
        slabs_with_faces(piece.slabs.axis, piece.slabs.faces, 0.0, 0.0), piece.total_particles);
    EXPECT_EQ(total_counts(comm, *regrouped).excluded, before.excluded);
    for (int s = 0; s < steps; ++s) {
        run->step();
        one->step();
        regrouped->step();
    }
    const Snapshot a = gather_snapshot(comm, run->snapshot());
    const double fluid_height = 0.6;
    for (const auto& [what, d] :
         {std::pair{"one process", difference(a, one->snapshot())},
          std::pair{"a fresh cut", difference(a, gather_snapshot(comm, regrouped->snapshot()))}}) {
        if (comm.is_root())
            std::printf("%sregrouped restart after 400 steps, %s, %d steps on: max |dx| = %.3g dp, "
                        "|dv| = %.3g sqrt(gH), |drho| = %.3g rho0\n",
                        backend == Backend::cuda ? "GPUs, " : "", what, steps, d.dx / c.dp,
                        d.dv / std::sqrt(g * fluid_height), d.drho / c.constants.rho0);
        EXPECT_LT(d.dx, 1e-3 * c.dp) << what;
        EXPECT_LT(d.dv, 1e-4 * std::sqrt(g * fluid_height)) << what;
        EXPECT_LT(d.drho, 1e-4 * c.constants.rho0) << what;
    }
    const ParticleCounts after = total_counts(comm, *run);
    EXPECT_EQ(one->counts().excluded, after.excluded);
    EXPECT_EQ(total_counts(comm, *regrouped).excluded, after.excluded);
    EXPECT_EQ(total_counts(comm, *regrouped).fluid, after.fluid);
    comm.barrier();
    if (comm.is_root())
        std::filesystem::remove_all(dir);
}

TEST(Decomposition, CheckpointContinuesUnderAnotherProcessCount) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    expect_regrouped_restart_continues(*comm, Backend::cpu);
}

/// A checkpoint per GPU continues within the GPU/CPU tolerance of the run that never stopped
/// (the atomic construction orders a bin's particles differently after a restart).
/// The regrouped restart on the GPUs (Decomposition.CheckpointContinuesUnderAnotherProcessCount).
TEST(DecompositionCuda, CheckpointContinuesUnderAnotherProcessCount) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    expect_regrouped_restart_continues(*comm, Backend::cuda);
}

TEST(DecompositionCuda, CheckpointOfEveryProcessContinues) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case c = test::dambreak_case(0.04);
    c.run.balance_interval = 0;
    auto run = make_simulation(c, Backend::cuda, *comm);
    for (int k = 0; k < 80; ++k)
        run->step();
    const SimulationState piece = run->save_state();
    const std::uint64_t total = test_particle_count(*comm, *run);
    auto continued = make_simulation(
        c, Backend::cuda, *comm, piece,
        slabs_with_faces(run->decomposition()->axis, run->decomposition()->faces, 0.0, 0.0), total);
    for (int k = 0; k < 80; ++k) {
        run->step();
        continued->step();
    }
    const Difference d = difference(gather_snapshot(*comm, run->snapshot()),
                                    gather_snapshot(*comm, continued->snapshot()));
    EXPECT_LT(d.dx, 1e-3 * c.dp);
    EXPECT_LT(d.dv, 1e-4 * std::sqrt(g * 2.0));
    EXPECT_LT(d.drho, 1e-4 * c.constants.rho0);
}

} // namespace
