// Neighbour lists over several GPUs (DESIGN.md, Scale-out; CudaOptions::corrector, list_skin):
// the corrector's lists of a step and the lists kept from one build to the next against walking
// the structure, the in-step kernel beside halo copies; run under mpirun as the other
// decomposition tests (test_decomposition.cpp), each process on a GPU of its own or one it
// shares (tests/mpi/share_gpus).

#include "decomposition_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

using namespace sluice;
using namespace sluice::decomposition_test;

namespace {

/// Two runs over the same fixed faces (no balancing, so that both split alike), each
/// `steps` long, gathered: how far apart they end.
Difference split_runs_differ(const Communicator& comm, GpuSimulation& a, GpuSimulation& b,
                             int steps) {
    for (int k = 0; k < steps; ++k) {
        a.step();
        b.step();
    }
    return difference(gather_snapshot(comm, a.snapshot()), gather_snapshot(comm, b.snapshot()));
}

/// The 3D dam break with each of these modules, on fixed faces, and the steps to run it.
std::vector<std::pair<Case, int>> fixed_face_dambreaks(std::initializer_list<const char*> modules) {
    std::vector<std::pair<Case, int>> cases;
    for (const char* module : modules) {
        Case c = dambreak_3d(0.02);
        c.neighbours = parse_neighbour_module(module);
        c.run.balance_interval = 0;
        cases.emplace_back(c, 150);
    }
    return cases;
}

} // namespace

/// The corrector's neighbour lists of a step on several GPUs (list_skin 0) against the corrector
/// walking the predictor's structure: a halo copy keeps its index between the passes and the
/// lists' bound takes every GPU's largest speed, so the same neighbours in the same order, the
/// sums to the one-GPU test's tolerance (CudaBackend.CorrectorListsEqualTheWalk). Every step's
/// corrector read lists. The dam break, and the fluid thrown across the faces and out of the
/// domain (strips/1).
TEST(DecompositionCuda, CorrectorListsEqualTheWalk) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    auto cases = fixed_face_dambreaks({"counting-sort/strips/0.3333333", "radix-sort/moore/1"});
    Case thrown = thrown_fluid_case();
    thrown.run.balance_interval = 0;
    cases.emplace_back(thrown, 300);
    for (const auto& [c, steps] : cases) {
        const std::string what = c.name + ", " + c.neighbours.name();
        CudaOptions walk, lists;
        walk.corrector = CorrectorNeighbours::reuse;
        lists.list_skin = 0.0f; // the step's lists
        auto a = make_cuda_simulation(c, *comm, walk);
        auto b = make_cuda_simulation(c, *comm, lists);
        const Difference d = split_runs_differ(*comm, *a, *b, steps);
        if (comm->is_root())
            std::printf("GPUs, %d processes, %s, %d steps to t = %.3f s, correctors over lists "
                        "(this process) %llu; against the walk: max |dx| %g, |dv| %g, |drho| %g\n",
                        comm->size(), what.c_str(), steps, a->time(),
                        static_cast<unsigned long long>(b->counters().corrector_list_steps), d.dx,
                        d.dv, d.drho);
        EXPECT_LT(d.dx, 1e-4 * c.dp) << what;
        EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << what;
        EXPECT_NEAR(a->time(), b->time(), 1e-6 * a->time()) << what;
        EXPECT_EQ(a->counters().corrector_list_steps, 0u) << what;
        EXPECT_EQ(b->counters().corrector_list_steps, static_cast<std::uint64_t>(steps)) << what;
    }
}

/// Kept lists over several GPUs (the default): between builds every particle keeps its place
/// and its owner (even a little past its slab's face), the halo copies are refreshed in place,
/// and the halo is the skin wider, so that the lists of a build hold every pair until the next
/// one; every GPU plans the next build from every particle's move. Against a build every step
/// (list_skin 0) on the same processes: within 10⁻⁴ dp, or 4 × what another exact module's
/// order makes of the same case where that is more (CudaBackend.KeptListsEqualABuildEveryStep),
/// ρ within 10⁻⁵ ρ0, the same particle counts. Cases: the 3D dam break with DBC and with mDBC
/// (its wall state refreshed in the halo between builds), balanced every 20 steps (a face that
/// moves forces a build), and the fluid thrown across the faces and out of the domain at 8 m/s
/// (a particle that leaves forces a build; the fluid moves so fast that almost every step builds,
/// and a skin of 0.02 R is used up within a step, where the passes walk); the default skin and
/// one of 0.02 R.
TEST(DecompositionCuda, KeptListsEqualABuildEveryStep) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case dbc = dambreak_3d(0.02);
    dbc.run.balance_interval = 20;
    Case mdbc = dbc;
    mdbc.physics.boundary = BoundaryKind::mdbc;
    const std::pair<Case, int> cases[] = {{dbc, 150}, {mdbc, 150}, {thrown_fluid_case(), 300}};
    for (const auto& [base, steps] : cases) {
        // What the order of the sums alone makes of the case: two exact modules, a build every
        // step each.
        Difference order_only;
        {
            Case strips = base, moore = base;
            strips.neighbours = parse_neighbour_module("counting-sort/strips/0.3333333");
            moore.neighbours = parse_neighbour_module("radix-sort/moore/1");
            strips.run.balance_interval = moore.run.balance_interval = 0;
            CudaOptions o;
            o.list_skin = 0.0f;
            auto p = make_cuda_simulation(strips, *comm, o);
            auto q = make_cuda_simulation(moore, *comm, o);
            order_only = split_runs_differ(*comm, *p, *q, steps);
        }
        const double dx_bound = std::max(1e-4 * base.dp, 4.0 * order_only.dx);
        for (const char* module : {"counting-sort/strips/0.3333333", "radix-sort/moore/1"})
            for (const float skin : {default_list_skin, 0.02f}) {
                Case c = base;
                c.neighbours = parse_neighbour_module(module);
                const std::string what = c.name + ", " + to_string(c.physics.boundary) + ", " +
                                         module + ", skin " + std::to_string(skin) + " R";
                CudaOptions every_step, kept;
                every_step.list_skin = 0.0f;
                kept.list_skin = skin;
                auto a = make_cuda_simulation(c, *comm, every_step);
                auto b = make_cuda_simulation(c, *comm, kept);
                for (int k = 0; k < steps; ++k) {
                    a->step();
                    b->step();
                    const ParticleCounts n = total_counts(*comm, *b);
                    ASSERT_EQ(n.fluid + n.boundary + n.excluded, test_particle_count(*comm, *a))
                        << what << ", step " << k + 1;
                }
                const Difference d = difference(gather_snapshot(*comm, a->snapshot()),
                                                gather_snapshot(*comm, b->snapshot()));
                const BackendCounters n = b->counters();
                if (comm->is_root())
                    std::printf("GPUs, %d processes, %s: %d steps to t = %.3f s, %llu on an "
                                "earlier build, %llu with a walk, %zu face move(s); against a "
                                "build every step: max |dx| %g (bound %g), |dv| %g, |drho| %g\n",
                                comm->size(), what.c_str(), steps, a->time(),
                                static_cast<unsigned long long>(n.kept_list_steps),
                                static_cast<unsigned long long>(n.list_walks),
                                b->decomposition()->history.size(), d.dx, dx_bound, d.dv, d.drho);
                EXPECT_LT(d.dx, dx_bound) << what;
                EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << what;
                EXPECT_NEAR(a->time(), b->time(), 1e-6 * a->time()) << what;
                EXPECT_EQ(total_counts(*comm, *a).excluded, total_counts(*comm, *b).excluded)
                    << what;
                EXPECT_EQ(a->counters().kept_list_steps, 0u) << what;
                if (c.dimension == 2) { // thrown at 8 m/s: a build nearly every step
                    if (skin == default_list_skin) {
                        EXPECT_GT(n.kept_list_steps, 0u) << what;
                    }
                    continue;
                }
                // In the collapse most steps run on an earlier build (one in ten builds on the
                // lists' age; a thin skin and faces that move build more often), and no pass
                // finds the skin used up.
                EXPECT_EQ(n.list_walks, 0u) << what;
                EXPECT_GE(n.kept_list_steps, static_cast<std::uint64_t>(steps) * 8 / 10) << what;
            }
    }
}

/// The in-step interaction kernel beside halo copies (they walk with their warps and query
/// nothing) against the direct one, lists not kept (kept lists read lists in every pass): the
/// same sums, to the one-GPU test's tolerance (CudaBackend.InStepInteractionEqualsDirect); the
/// corrector's lists and dry walls as by default. A traversal that visits a row bin by bin
/// (moore) never runs in step.
TEST(DecompositionCuda, InStepKernelEqualsTheDirectOne) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    for (const auto& [c, steps] :
         fixed_face_dambreaks({"counting-sort/strips/0.3333333", "counting-sort/chords/0.5",
                               "radix-sort/moore/1"})) {
        const std::string what = c.name + ", " + c.neighbours.name();
        const bool bin_by_bin = what.find("moore") != std::string::npos;
        CudaOptions direct, in_step;
        direct.interaction = CudaInteraction::direct;
        in_step.interaction = CudaInteraction::in_step;
        direct.list_skin = in_step.list_skin = 0.0f;
        auto a = make_cuda_simulation(c, *comm, direct);
        auto b = make_cuda_simulation(c, *comm, in_step);
        const Difference d = split_runs_differ(*comm, *a, *b, steps);
        if (comm->is_root())
            std::printf("GPUs, %d processes, %s, %d steps to t = %.3f s, in step (this process) "
                        "%llu; against direct: max |dx| %g, |dv| %g, |drho| %g\n",
                        comm->size(), what.c_str(), steps, a->time(),
                        static_cast<unsigned long long>(b->counters().in_step_steps), d.dx, d.dv,
                        d.drho);
        EXPECT_LT(d.dx, 1e-4 * c.dp) << what;
        EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << what;
        EXPECT_EQ(a->counters().in_step_steps, 0u) << what;
        EXPECT_EQ(b->counters().in_step_steps, bin_by_bin ? 0u : static_cast<std::uint64_t>(steps))
            << what;
    }
}
