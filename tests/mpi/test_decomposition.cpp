// A run over several processes (DESIGN.md, Scale-out) against the same case in one process:
// run by ctest under `mpirun -np 2` and `-np 3` (tests/CMakeLists.txt). Every process runs the
// single-process simulation too (the cases are small), gathers the pieces of the split one and
// compares them, so every process reaches the same verdict and the collectives stay in step.
// Started without mpirun, the tests skip. The checkpoints' tests are in
// test_decomposition_restart.cpp, what they share in decomposition_support.h, main() in main.cpp.

#include "decomposition_support.h"

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

using namespace sluice;
using sluice::test::box;
using sluice::test::Difference;
using sluice::test::difference;
using namespace sluice::decomposition_test;

namespace {

/// Gauge points along the dam break's floor, across every face, wall sensors' points on the
/// floor and the walls, and three fronts.
GaugeRequest gauges_across_faces(const Case& c) {
    GaugeRequest request;
    for (double x = 0.05; x < 4.0; x += 0.1) {
        request.points.push_back({static_cast<float>(x), 0.0f, 0.1f});
        request.wall_points.push_back({static_cast<float>(x), 0.0f, 0.0f});
    }
    request.wall_points.push_back({0.0f, 0.0f, 0.5f});
    request.wall_points.push_back({4.0f, 0.0f, 0.1f});
    request.fronts = {{0, 1}, {2, 1}, {0, -1}};
    request.front_neighbour_distance = static_cast<float>(2.0 * c.dp);
    return request;
}

TEST(Decomposition, DamBreak2DMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = test::dambreak_case(0.04);
    c.run.balance_interval = 0;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, symplectic");
}

TEST(Decomposition, DamBreak3DMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = dambreak_3d(0.02);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_split_run_agrees(*comm, c, 100, 0.2, "dam break 3D, strips/0.5");
}

TEST(Decomposition, VerletAndIndexLayoutsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    for (const char* module : {"counting-sort/strips/0.5/index", "linked-list/modular/1"}) {
        Case c = test::dambreak_case(0.04);
        c.neighbours = parse_neighbour_module(module);
        expect_split_run_agrees(*comm, c, 150, 2.0, std::string("symplectic, ") + module);
        c.physics.integrator = IntegratorKind::verlet;
        expect_split_run_agrees(*comm, c, 150, 2.0, std::string("Verlet, ") + module);
    }
}

/// mDBC: a wall particle near a slab face queries at its ghost node, up to 2R into the fluid,
/// so the halo is 2R wider (ghost_node_reach) and the halo's walls are refreshed after the
/// BoundaryCondition pass; the faces move every 20 steps, so wall particles migrate too.
TEST(Decomposition, ModifiedWallsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = test::dambreak_case(0.04);
    c.physics.boundary = BoundaryKind::mdbc;
    c.run.balance_interval = 20;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, mDBC");
    if (comm->size() > 2)
        return; // the small 3D tank's 0.8 m hold two slabs of twice the mDBC halo (0.16 m)
    Case c3 = dambreak_3d(0.02);
    c3.physics.boundary = BoundaryKind::mdbc;
    c3.physics.slip = SlipKind::free_slip;
    c3.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_split_run_agrees(*comm, c3, 100, 0.2, "dam break 3D, mDBC free-slip");
}

/// Moving walls (the Motion pass): a block inside the dam-break water, straddling the first
/// slab face (found from a probe decomposition), pushed along the cut's axis at 1 m/s while it
/// turns: its wall particles migrate across the face and its halo copies are placed where the
/// owner's are, with DBC and with mDBC (ghost nodes turning with it), and a damping zone.
Case moving_block_case(const Communicator& comm, BoundaryKind boundary) {
    double face = 0.0;
    {
        Case probe_case = test::dambreak_case(0.04);
        probe_case.physics.boundary = boundary;
        Obstacle block;
        block.box = box(0.4, 0.4, 0.56, 0.56);
        probe_case.obstacles.push_back(block);
        const auto probe = make_simulation(probe_case, Backend::cpu, comm);
        face = probe->decomposition()->faces[1];
    }
    Case c = test::moving_block_dambreak(0.04, box(face - 0.08, 0.4, face + 0.08, 0.56),
                                         Eigen::Vector3d(face + 0.01, 0.0, 0.48));
    c.physics.boundary = boundary;
    return c;
}

TEST(Decomposition, MovingWallsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    for (BoundaryKind boundary : {BoundaryKind::dbc, BoundaryKind::mdbc})
        expect_split_run_agrees(*comm, moving_block_case(*comm, boundary), 200, 2.0,
                                std::string("dam break 2D, a moving block, ") +
                                    to_string(boundary));
}

/// Floating bodies (the BodyLoads pass): a block of density 700 in the dam-break water,
/// straddling the first slab face, that the water moves: its loads are summed over the
/// processes, every one integrates the same body, and its particles on both sides of the face
/// follow it, with DBC and mDBC.
Case floating_block_case(const Communicator& comm, BoundaryKind boundary) {
    Case c = moving_block_case(comm, boundary);
    c.damping.clear();
    Obstacle& block = c.obstacles.back();
    block.object.motion.reset();
    Floating f;
    f.density = 700.0;
    block.object.floating = f;
    return c;
}

TEST(Decomposition, FloatingBodyMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    for (BoundaryKind boundary : {BoundaryKind::dbc, BoundaryKind::mdbc})
        expect_split_run_agrees(*comm, floating_block_case(*comm, boundary), 200, 2.0,
                                std::string("dam break 2D, a floating block, ") +
                                    to_string(boundary));
}

/// Shifting: a particle's shift sums over its neighbours like the pair terms (the halo covers
/// them) and moves it further in a step (the halo check counts |u_s|). The 2D dam break with
/// mDBC walls and shifting, the faces moving every 20 steps.
Case shifting_dambreak() {
    Case c = test::dambreak_case(0.04);
    c.physics.shifting = ShiftingKind::fickian;
    c.physics.boundary = BoundaryKind::mdbc;
    c.run.balance_interval = 20;
    return c;
}

TEST(Decomposition, ShiftingMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = shifting_dambreak();
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, shifting, mDBC");
    c.physics.integrator = IntegratorKind::verlet;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, shifting, mDBC, Verlet");
}

/// The Riemann formulation (physics/riemann.h): pair terms of the same neighbours, with mDBC
/// (mirrored wall states) and with DBC.
TEST(Decomposition, RiemannMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = shifting_dambreak();
    c.physics.formulation = FormulationKind::riemann;
    c.physics.viscosity_value = 0.0;
    c.physics.diffusion = DensityDiffusionKind::none;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, Riemann, shifting, mDBC");
    c.physics.boundary = BoundaryKind::dbc;
    c.physics.shifting = ShiftingKind::none;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, Riemann, DBC");
    // A block moving across a slab face: the mirrored wall state of a moving mDBC wall.
    Case moving = moving_block_case(*comm, BoundaryKind::mdbc);
    set_formulation(moving.physics, FormulationKind::riemann);
    expect_split_run_agrees(*comm, moving, 200, 2.0, "dam break 2D, Riemann, a moving block");
}

/// δ⁺-SPH (physics/delta_sph.h): each pair reads its neighbour's density gradient, which a halo
/// copy sums over its own neighbours in a halo R wider (ghost_node_reach): the same as one
/// process. mDBC, shifting, the faces moving every 20 steps.
TEST(Decomposition, AntuonoDiffusionMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    Case c = shifting_dambreak();
    c.physics.diffusion = DensityDiffusionKind::antuono;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, delta+-SPH, mDBC");
    c.physics.boundary = BoundaryKind::dbc;
    c.physics.shifting = ShiftingKind::none;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, delta-SPH, DBC");
}

/// Fluid thrown across the slab faces and out of the domain: particles migrate every few
/// steps and leave; every one stays owned by exactly one process (checked each step), and the
/// same ones are excluded as in one process.
TEST(Decomposition, FluidCrossingFacesAndLeavingIsConserved) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    const Case c = thrown_fluid_case();
    // This test is about conservation; the dam breaks check agreement tightly. A free jet
    // amplifies rounding, most of all at the domain's edge, where a particle may leave a step
    // earlier or later and its neighbours then differ: two runs in one process whose sums differ
    // only in order (reorder vs index layout) differed by 8·10⁻⁴ sqrt(gH) after 800 steps of a
    // longer version of this case, split runs by up to 2.6·10⁻³ sqrt(gH) here. Bounds: 50× the
    // usual ones.
    constexpr int steps = 450;
    const std::size_t moves =
        expect_split_run_agrees(*comm, c, steps, 0.6, "fluid thrown out", 50.0);
    auto single = make_simulation(c, Backend::cpu);
    for (int k = 0; k < steps; ++k)
        single->step();
    EXPECT_GT(single->counts().excluded, 0u) << "the case should throw fluid out";
    if (comm->is_root())
        std::printf("load balancing moved the faces %zu time(s); %llu particles left the domain\n",
                    moves, static_cast<unsigned long long>(single->counts().excluded));
}

TEST(Decomposition, GaugesMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    const Case c = test::dambreak_case(0.04);
    auto single = make_simulation(c, Backend::cpu);
    auto split = make_simulation(c, Backend::cpu, *comm);
    const GaugeRequest request = gauges_across_faces(c);
    // At t = 0 (the halo exists before the first step) and after 120 steps.
    for (int k = 0; k < 120; ++k) {
        if (k == 0) {
            const GaugeResponse a0 = single->sample_gauges(request);
            const GaugeResponse b0 = split->sample_gauges(request);
            for (std::size_t p = 0; p < a0.sums.size(); ++p)
                EXPECT_NEAR(b0.sums[p][0], a0.sums[p][0], 1e-4 + 1e-4 * std::fabs(a0.sums[p][0]))
                    << "t = 0, point " << p;
        }
        single->step();
        split->step();
    }
    const GaugeResponse a = single->sample_gauges(request);
    const GaugeResponse b = split->sample_gauges(request);
    ASSERT_EQ(a.sums.size(), b.sums.size());
    for (std::size_t p = 0; p < a.sums.size(); ++p)
        for (std::size_t k = 0; k < 6; ++k) {
            const double scale = k == 0 ? 1.0 : k == 1 ? 1000.0 : k == 2 ? 1000.0 * g : 1.0;
            EXPECT_NEAR(b.sums[p][k], a.sums[p][k], 1e-4 * scale + 1e-4 * std::fabs(a.sums[p][k]))
                << "point " << p << " value " << k;
        }
    ASSERT_EQ(a.fronts.size(), b.fronts.size());
    for (std::size_t f = 0; f < a.fronts.size(); ++f)
        EXPECT_NEAR(b.fronts[f], a.fronts[f], 1e-3 * c.dp) << "front " << f;
    // Wall sensors' readings (their corrected interpolation of the owner's sums): 10 Pa is
    // c0²·10⁻⁴ kg/m³ of the wall's density at this case's c0 (about 90 m/s).
    ASSERT_EQ(a.wall.size(), b.wall.size());
    for (std::size_t p = 0; p < a.wall.size(); ++p) {
        const double pa = wall_pressure(a.wall[p], 2), pb = wall_pressure(b.wall[p], 2);
        EXPECT_NEAR(pb, pa, 10.0 + 1e-3 * std::fabs(pa)) << "wall point " << p;
    }
}

// On several GPUs (one per process, NCCL between them) against one process on the CPU: the
// GPU/CPU agreement tolerance.

TEST(DecompositionCuda, DamBreak2DMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case c = test::dambreak_case(0.04);
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, symplectic", 1.0, Backend::cuda);
}

/// The 3D dam break the GPU tests split: strips/0.5, the slabs balanced every 20 steps.
Case balanced_dambreak_3d() {
    Case c = dambreak_3d(0.02);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    c.run.balance_interval = 20;
    return c;
}

TEST(DecompositionCuda, DamBreak3DMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    const Case c = balanced_dambreak_3d();
    expect_split_run_agrees(*comm, c, 100, 0.2, "dam break 3D, strips/0.5", 1.0, Backend::cuda);
}

TEST(DecompositionCuda, ModifiedWallsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case c = test::dambreak_case(0.04);
    c.physics.boundary = BoundaryKind::mdbc;
    c.run.balance_interval = 20;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, mDBC", 1.0, Backend::cuda);
    Case c3 = balanced_dambreak_3d();
    c3.physics.boundary = BoundaryKind::mdbc;
    expect_split_run_agrees(*comm, c3, 100, 0.2, "dam break 3D, mDBC", 1.0, Backend::cuda);
}

TEST(DecompositionCuda, MovingWallsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    for (BoundaryKind boundary : {BoundaryKind::dbc, BoundaryKind::mdbc})
        expect_split_run_agrees(*comm, moving_block_case(*comm, boundary), 200, 2.0,
                                std::string("dam break 2D, a moving block, ") + to_string(boundary),
                                1.0, Backend::cuda);
}

TEST(DecompositionCuda, FloatingBodyMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    for (BoundaryKind boundary : {BoundaryKind::dbc, BoundaryKind::mdbc})
        expect_split_run_agrees(*comm, floating_block_case(*comm, boundary), 200, 2.0,
                                std::string("dam break 2D, a floating block, ") +
                                    to_string(boundary),
                                1.0, Backend::cuda);
}

TEST(DecompositionCuda, ShiftingMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    expect_split_run_agrees(*comm, shifting_dambreak(), 200, 2.0, "dam break 2D, shifting, mDBC",
                            1.0, Backend::cuda);
}

TEST(DecompositionCuda, RiemannMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case c = shifting_dambreak();
    c.physics.formulation = FormulationKind::riemann;
    c.physics.viscosity_value = 0.0;
    c.physics.diffusion = DensityDiffusionKind::none;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, Riemann, shifting, mDBC", 1.0,
                            Backend::cuda);
}

TEST(DecompositionCuda, AntuonoDiffusionMatchesOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    Case c = shifting_dambreak();
    c.physics.diffusion = DensityDiffusionKind::antuono;
    expect_split_run_agrees(*comm, c, 200, 2.0, "dam break 2D, delta+-SPH, mDBC", 1.0,
                            Backend::cuda);
}

TEST(DecompositionCuda, VerletAndIndexLayoutsMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    for (const char* module : {"counting-sort/strips/0.5/index", "linked-list/modular/1"}) {
        Case c = test::dambreak_case(0.04);
        c.neighbours = parse_neighbour_module(module);
        expect_split_run_agrees(*comm, c, 150, 2.0, std::string("symplectic, ") + module, 1.0,
                                Backend::cuda);
        c.physics.integrator = IntegratorKind::verlet;
        expect_split_run_agrees(*comm, c, 150, 2.0, std::string("Verlet, ") + module, 1.0,
                                Backend::cuda);
    }
}

/// Dry wall particles skipped on several GPUs (CudaOptions::skip_dry_walls, lists not kept): the
/// certificates cover the neighbour slabs' fluid (a margin within the halo, the skins' maxima
/// over the GPUs), so the state equals the one with every wall particle computed, to the rounding
/// of the certifying pass (the one-GPU test's tolerance), while many were skipped; the faces move
/// (balancing every 20 steps), so walls change owner and are looked at again.
TEST(DecompositionCuda, SkippingDryWallsChangesNothing) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    const Case c = balanced_dambreak_3d();
    // Without kept lists (their passes read lists, which hold no dry wall's neighbours).
    CudaOptions skip, compute;
    skip.list_skin = compute.list_skin = 0.0f;
    compute.skip_dry_walls = false;
    auto a = make_cuda_simulation(c, *comm, skip);
    auto b = make_cuda_simulation(c, *comm, compute);
    const int steps = 300;
    double fewest_dry = 1e300;
    std::string dry_counts; // per check, per process
    for (int k = 0; k < steps; ++k) {
        a->step();
        b->step();
        if (k % 50 == 49) {
            std::vector<double> dry(static_cast<std::size_t>(comm->size()), 0.0);
            dry[static_cast<std::size_t>(comm->rank())] = a->counters().dry_walls;
            comm->sum(dry.data(), comm->size());
            fewest_dry = std::min(fewest_dry, std::accumulate(dry.begin(), dry.end(), 0.0));
            dry_counts += " step " + std::to_string(k + 1) + ":";
            for (const double d : dry)
                dry_counts += " " + std::to_string(static_cast<long>(d));
        }
    }
    const Difference d =
        difference(gather_snapshot(*comm, a->snapshot()), gather_snapshot(*comm, b->snapshot()));
    const ParticleCounts n = total_counts(*comm, *a);
    if (comm->is_root())
        std::printf("GPUs, %d processes, %d steps to t = %.3f s, dry walls at least %.0f of %llu; "
                    "skipped against computed: max |dx| %g, |dv| %g, |drho| %g; %zu face "
                    "move(s); dry walls per process at%s\n",
                    comm->size(), steps, a->time(), fewest_dry,
                    static_cast<unsigned long long>(n.boundary), d.dx, d.dv, d.drho,
                    a->decomposition()->history.size(), dry_counts.c_str());
    EXPECT_LT(d.dx, 1e-4 * c.dp);
    EXPECT_LT(d.drho, 1e-5 * c.constants.rho0);
    EXPECT_GT(fewest_dry, 0.1 * static_cast<double>(n.boundary)); // skipping took place
    EXPECT_EQ(n.fluid, total_counts(*comm, *b).fluid);
}

TEST(DecompositionCuda, FluidCrossingFacesAndLeavingIsConserved) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    expect_split_run_agrees(*comm, thrown_fluid_case(), 450, 0.6, "fluid thrown out", 50.0,
                            Backend::cuda);
}

TEST(DecompositionCuda, GaugesMatchOneProcess) {
    const auto comm = world();
    SKIP_WITHOUT_A_GPU_EACH(comm);
    const Case c = test::dambreak_case(0.04);
    auto single = make_simulation(c, Backend::cpu);
    auto split = make_simulation(c, Backend::cuda, *comm);
    const GaugeRequest request = gauges_across_faces(c);
    for (int k = 0; k <= 120; ++k) {
        if (k == 0 || k == 120) {
            const GaugeResponse a = single->sample_gauges(request);
            const GaugeResponse b = split->sample_gauges(request);
            for (std::size_t p = 0; p < a.sums.size(); ++p)
                for (std::size_t v = 0; v < 6; ++v) {
                    const double scale = v == 0 ? 1.0 : v == 1 ? 1000.0 : v == 2 ? 1000.0 * g : 1.0;
                    EXPECT_NEAR(b.sums[p][v], a.sums[p][v],
                                1e-3 * scale + 1e-3 * std::fabs(a.sums[p][v]))
                        << "step " << k << ", point " << p << " value " << v;
                }
            for (std::size_t f = 0; f < a.fronts.size(); ++f)
                EXPECT_NEAR(b.fronts[f], a.fronts[f], 1e-2 * c.dp)
                    << "step " << k << " front " << f;
            // Wall sensors: the GPU/CPU pressure tolerance of test_backend_agreement.cpp,
            // c0²·10⁻⁴·ρ0.
            const double c0 = single->constants().speed_of_sound;
            for (std::size_t p = 0; p < a.wall.size(); ++p) {
                const double pa = wall_pressure(a.wall[p], 2), pb = wall_pressure(b.wall[p], 2);
                EXPECT_NEAR(pb, pa, 1e-4 * c0 * c0 * 1000.0)
                    << "step " << k << ", wall point " << p;
            }
        }
        if (k < 120) {
            single->step();
            split->step();
        }
    }
}

TEST(Decomposition, TooManyProcessesForTheDomainIsAClearError) {
    const auto comm = world();
    SKIP_WITHOUT_PROCESSES(comm);
    // A domain 0.3 m long along its longest axis: no room for two slabs twice the halo wide.
    Case c = test::tank_case_2d(0.02, 0.2, 0.1, box(0.0, 0.0, 0.1, 0.05), 2);
    c.domain = box(-0.05, -0.05, 0.25, 0.15);
    try {
        make_simulation(c, Backend::cpu, *comm);
        ADD_FAILURE() << "expected an error";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("processes need"), std::string::npos) << what;
        EXPECT_NE(what.find("fit this domain"), std::string::npos) << what;
    }
}

} // namespace
