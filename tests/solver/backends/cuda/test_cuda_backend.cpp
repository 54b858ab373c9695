// The CUDA backend (cuda_backend.h) on its own: its interaction schemes (direct, queued, in step,
// adaptive), the corrector's lists and the kept lists against each other, dry walls skipped against
// computed, neighbour counts of every module inside the solver, no device allocation in a step and
// no growth over repeated runs, the pre-flight memory estimate, restarts, asynchronous snapshots,
// and a short run of every path for the sanitizers. What it shares with the CPU backend (the
// agreement with it, bookkeeping, exclusions, failures, the dam break validation) is in the typed
// suites over the backends: tests/solver/backends/test_backend_agreement.cpp,
// tests/solver/backends/test_backend_checks.cpp, tests/solver/validation/test_dambreak.cpp.
// Every test skips where no CUDA device is present (they compile without CUDA too).
//
// Tolerances of the scheme comparisons. The schemes sum the same terms in the same order; the
// compiler contracts them into fused multiply-adds differently in each loop, hence 1e-4·dp in
// position and 1e-5·ρ0 in density (far below the GPU/CPU agreement limits of
// test_backend_agreement.cpp).

#include "backends/backend_checks.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/simulation.h"
#include "case/gauge_plan.h"
#include "case/particles.h"
#include "case/state_conversion.h"
#include "io/async_output.h"
#include "neighbours/grid.h"
#include "neighbours/query.h"
#include "support/cases.h"
#include "support/state_difference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace sluice;
using sluice::test::Difference;
using sluice::test::difference;

namespace {

#define SKIP_WITHOUT_CUDA_DEVICE()                                                                 \
    do {                                                                                           \
        if (!cuda_device_available())                                                              \
            GTEST_SKIP() << "no CUDA device";                                                      \
    } while (0)

/// Steps two simulations of the same case side by side and returns how far their states are
/// apart at the end.
Difference difference_after(Simulation& a, Simulation& b, int steps) {
    for (int k = 0; k < steps; ++k) {
        a.step();
        b.step();
    }
    return difference(a.snapshot(), b.snapshot());
}

/// A run skipping dry wall particles (CudaOptions::skip_dry_walls; with mDBC: dry ghost nodes)
/// against one computing every one, `steps` steps of case c: the states agree to 1e-5 ρ0 in
/// density and to `dx_bound` in position (0: 1e-4 dp), and at every check (each 50 steps) more
/// than `skipped_share` of the wall particles were being skipped. `list_skin`: both runs' (0:
/// the lists of the step's corrector). `what` names the run in the printed line.
void expect_skipping_changes_nothing(const Case& c, int steps, bool corrector_rebuilds,
                                     const char* what, float list_skin = 0.0f,
                                     double dx_bound = 0.0, double skipped_share = 0.1) {
    CudaOptions compute, skip;
    compute.skip_dry_walls = false;
    // Kept lists (the default) leave no DBC dry walls to skip (only mDBC's dry ghost nodes).
    compute.list_skin = skip.list_skin = list_skin;
    if (corrector_rebuilds)
        compute.corrector = skip.corrector = CorrectorNeighbours::rebuild;
    auto a = make_cuda_simulation(c, skip);
    auto b = make_cuda_simulation(c, compute);
    std::uint32_t fewest_dry = std::numeric_limits<std::uint32_t>::max();
    for (int k = 0; k < steps; ++k) {
        a->step();
        b->step();
        if (k % 50 == 49)
            fewest_dry = std::min(fewest_dry, a->counters().dry_walls);
    }
    const Difference d = difference(a->snapshot(), b->snapshot());
    const ParticleCounts n = a->counts();
    std::printf("%s %dD, %s: %d steps to t = %.3f s, skipped at least %u of %llu wall "
                "particles; skipped against computed: max |dx| %g, |dv| %g, |drho| %g\n",
                what, c.dimension, c.neighbours.name().c_str(), steps, a->time(), fewest_dry,
                static_cast<unsigned long long>(n.boundary), d.dx, d.dv, d.drho);
    EXPECT_LT(d.dx, dx_bound > 0.0 ? dx_bound : 1e-4 * c.dp);
    EXPECT_LT(d.drho, 1e-5 * c.constants.rho0);
    EXPECT_NEAR(a->time(), b->time(), 1e-6 * b->time());
    EXPECT_EQ(n.fluid, b->counts().fluid);
    EXPECT_GT(static_cast<double>(fewest_dry),
              skipped_share * static_cast<double>(n.boundary)); // skipping took place all along
    EXPECT_EQ(b->counters().dry_walls, 0u);
}

/// Skipping dry wall particles (CudaOptions::skip_dry_walls) is exact: a skipped wall particle
/// gets the +0 derivatives its query would sum, so the state equals the one with every wall
/// particle computed in every pass to rounding (the certifying pass's code contracts the same
/// sums into other fused multiply-adds; the direct/queued tolerance), while many were skipped.
/// The fluid runs into the far wall and up it: certified walls get wet and are computed again.
TEST(CudaBackend, SkippingDryWallsChangesNothing) {
    SKIP_WITHOUT_CUDA_DEVICE();
    Case rebuild = test::small_dambreak_3d_case(0.02);
    rebuild.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_skipping_changes_nothing(test::dambreak_case(0.04), 600, false, "DBC");
    expect_skipping_changes_nothing(test::small_dambreak_3d_case(0.02), 300, false, "DBC");
    expect_skipping_changes_nothing(rebuild, 100, true, "DBC, corrector rebuilds");
}

/// mDBC: skipping wall particles whose ghost node is certified dry (the same certificates) is
/// exact too: a skipped wall keeps the ρ0 and zero velocity its query gave when certified. The
/// fluid reaches new walls all along, so certificates run out and wall particles get wet.
/// The dam breaks the dry ghost node tests run, with their steps: 2D with mDBC (no-slip), 3D
/// with mDBC free-slip.
std::vector<std::pair<Case, int>> mdbc_dam_breaks() {
    Case two = test::dambreak_case(0.04);
    two.physics.boundary = BoundaryKind::mdbc;
    Case three = test::small_dambreak_3d_case(0.02);
    three.physics.boundary = BoundaryKind::mdbc;
    three.physics.slip = SlipKind::free_slip;
    return {{two, 600}, {three, 300}};
}

TEST(CudaBackend, SkippingDryGhostNodesChangesNothing) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (const auto& [c, steps] : mdbc_dam_breaks())
        expect_skipping_changes_nothing(c, steps, false, "mDBC");
}

/// What the order of the sums alone makes of case c over `steps` steps: two exact modules, each
/// building every step, whose walks visit the neighbours in different orders.
Difference order_of_sums_alone(const Case& c, int steps) {
    Case strips = c, moore = c;
    strips.neighbours = parse_neighbour_module("counting-sort/strips/0.3333333");
    moore.neighbours = parse_neighbour_module("radix-sort/moore/1");
    CudaOptions o;
    o.list_skin = 0.0f;
    o.interaction = CudaInteraction::direct;
    auto p = make_cuda_simulation(strips, o);
    auto q = make_cuda_simulation(moore, o);
    return difference_after(*p, *q, steps);
}

/// mDBC with kept lists (the default): a ghost node certified dry at a build gets no list
/// (GhostNodeLists) and walks if the fluid reaches it before the next build, the others read
/// theirs. Skipping dry ghost nodes then changes nothing but the order of some sums (a
/// certifying walk sums in the walk's order, a list in the list's): within 10⁻⁴ dp or 4 × what
/// another module's order makes of the case (KeptListsEqualABuildEveryStep's bound). Fewer
/// nodes stay certified than without kept lists: there the fluid's travel adds each step the
/// largest move since the build, not the step's own (finish_step_kernel; safe, but on the 2D
/// dam break as few as 4 of 768 at a check against 513 without, H200): the test asks only that
/// some are skipped at every check.
TEST(CudaBackend, SkippingDryGhostNodesWithKeptListsChangesNothing) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (const auto& [c, steps] : mdbc_dam_breaks()) {
        const double dx_bound = std::max(1e-4 * c.dp, 4.0 * order_of_sums_alone(c, steps).dx);
        expect_skipping_changes_nothing(c, steps, false, "mDBC, kept lists", default_list_skin,
                                        dx_bound, 0.0);
        CudaOptions o; // the default: kept lists, dry ghost nodes skipped
        auto s = make_cuda_simulation(c, o);
        for (int k = 0; k < steps; ++k)
            s->step();
        // Most wet nodes read their lists in most steps.
        EXPECT_GT(s->counters().ghost_node_list_reads, static_cast<std::uint64_t>(steps));
    }
}

TEST(CudaBackend, DirectAndQueuedInteractionsAgree) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const Case c = test::small_dambreak_3d_case(0.02);
    CudaOptions direct, queued;
    direct.interaction = CudaInteraction::direct; // not the default (adaptive) any more
    direct.list_skin = 0.0f; // both walk every pass (the queued kernel takes no lists)
    direct.corrector = CorrectorNeighbours::reuse;
    queued.interaction = CudaInteraction::queued;
    auto a = make_cuda_simulation(c, direct);
    auto b = make_cuda_simulation(c, queued);
    const Difference d = difference_after(*a, *b, 50);
    EXPECT_LT(d.dx, 1e-4 * c.dp);
    EXPECT_LT(d.drho, 1e-5 * c.constants.rho0);
}

/// The in-step walk (neighbours/warp_query.cuh) visits each particle's neighbours in the
/// direct query's order with the same rij, so it sums the same terms in the same order; the
/// compiler contracts them into fused multiply-adds differently in the two loops (H100: hybrid
/// bit for bit, strips and chords within 6·10⁻⁷ m), hence the direct/queued tolerance. Over the
/// traversals that take a row as one range, in 2D and 3D, with dry walls skipped and not.
TEST(CudaBackend, InStepInteractionEqualsDirect) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const Case cases[] = {test::dambreak_case(0.04), test::small_dambreak_3d_case(0.02)};
    for (const Case& base : cases)
        for (const char* module :
             {"counting-sort/strips/1", "counting-sort/chords/0.5", "radix-sort/hybrid/0.3333333"})
            for (const bool dry_walls : {true, false}) {
                Case c = base;
                c.neighbours = parse_neighbour_module(module);
                CudaOptions direct, in_step;
                direct.skip_dry_walls = in_step.skip_dry_walls = dry_walls;
                direct.list_skin = in_step.list_skin = 0.0f; // every predictor pass walks
                direct.interaction = CudaInteraction::direct;
                in_step.interaction = CudaInteraction::in_step;
                auto a = make_cuda_simulation(c, direct);
                auto b = make_cuda_simulation(c, in_step);
                const int steps = c.dimension == 2 ? 300 : 100;
                const Difference d = difference_after(*a, *b, steps);
                std::printf("%dD, %s, dry walls %s: %d steps to t = %.3f s; in-step against "
                            "direct: max |dx| %g, |dv| %g, |drho| %g\n",
                            c.dimension, module, dry_walls ? "skipped" : "computed", steps,
                            a->time(), d.dx, d.dv, d.drho);
                EXPECT_LT(d.dx, 1e-4 * c.dp) << module;
                EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << module;
                EXPECT_EQ(a->counters().in_step_steps, 0u) << module;
                EXPECT_EQ(b->counters().in_step_steps, static_cast<std::uint64_t>(steps)) << module;
            }
}

/// The corrector's neighbour lists (CorrectorNeighbours::lists, the default) against the
/// corrector walking the predictor's structure: the same neighbours in the same order, so the
/// same sums (the direct/queued tolerance: the list's loop contracts them into other fused
/// multiply-adds). Traversals in bin order (strips, chords, moore), 2D and 3D, dry walls skipped
/// and not, the build pass direct and in step; lists too short for most particles (those walk);
/// lists built for a bound on dt below the steps' dt (those steps walk: 0.99 dt_max, which the
/// first steps' dt = dt_max · c0 / (c0 + μ) exceeds on the H100 too, and 10⁻⁶ dt_max). A
/// label-order traversal (hybrid) never lists.
TEST(CudaBackend, CorrectorListsEqualTheWalk) {
    SKIP_WITHOUT_CUDA_DEVICE();
    struct Variant {
        const char* what;
        CudaInteraction interaction;
        float dt_scale;
        std::uint32_t entries;
    };
    const Variant variants[] = {
        {"lists", CudaInteraction::direct, 1.0f, 0},
        {"lists, written in step", CudaInteraction::in_step, 1.0f, 0},
        {"lists of 24 entries", CudaInteraction::direct, 1.0f, 24},
        {"lists for dt <= 0.99 dt_max", CudaInteraction::direct, 0.99f, 0},
        {"lists for dt <= 1e-6 dt_max", CudaInteraction::direct, 1e-6f, 0},
    };
    const Case cases[] = {test::dambreak_case(0.04), test::small_dambreak_3d_case(0.02)};
    for (const Case& base : cases)
        for (const char* module : {"counting-sort/strips/0.3333333", "counting-sort/chords/0.5",
                                   "radix-sort/moore/1", "counting-sort/hybrid/0.5"})
            for (const bool dry_walls : {true, false})
                for (const Variant& v : variants) {
                    Case c = base;
                    c.neighbours = parse_neighbour_module(module);
                    CudaOptions walk, lists;
                    walk.corrector = CorrectorNeighbours::reuse;
                    walk.interaction = CudaInteraction::direct;
                    lists.interaction = v.interaction;
                    lists.list_skin = 0.0f; // the lists of the step's corrector
                    lists.corrector_list_dt_scale = v.dt_scale;
                    lists.corrector_list_entries = v.entries;
                    walk.skip_dry_walls = lists.skip_dry_walls = dry_walls;
                    auto a = make_cuda_simulation(c, walk);
                    auto b = make_cuda_simulation(c, lists);
                    const int steps = c.dimension == 2 ? 300 : 100;
                    const Difference d = difference_after(*a, *b, steps);
                    const std::uint64_t listed = b->counters().corrector_list_steps;
                    std::printf("%dD, %s, dry walls %s, %s: %d steps to t = %.3f s, %llu "
                                "correctors over lists; against the walk: max |dx| %g, |dv| %g, "
                                "|drho| %g\n",
                                c.dimension, module, dry_walls ? "skipped" : "computed", v.what,
                                steps, a->time(), static_cast<unsigned long long>(listed), d.dx,
                                d.dv, d.drho);
                    EXPECT_LT(d.dx, 1e-4 * c.dp) << module << ", " << v.what;
                    EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << module << ", " << v.what;
                    EXPECT_NEAR(a->time(), b->time(), 1e-6 * a->time()) << module;
                    EXPECT_EQ(a->counters().corrector_list_steps, 0u) << module;
                    const bool label_order =
                        std::string(module).find("hybrid") != std::string::npos;
                    if (label_order) {
                        EXPECT_EQ(listed, 0u) << module << ", " << v.what;
                    } else if (v.dt_scale < 1e-3f) {
                        EXPECT_EQ(listed, 0u) << module << ", " << v.what;
                    } else if (v.dt_scale == 1.0f) {
                        EXPECT_EQ(listed, static_cast<std::uint64_t>(steps))
                            << module << ", " << v.what;
                    }
                }
}

/// Kept lists (CudaOptions::list_skin, the default on one GPU): the lists of a build serve the
/// passes of the following steps while no pair can have closed their skin, so a step without a
/// build sums the same neighbours as one with, in the older build's order (its walk's within R,
/// then those of its shell that came within R; ListExtent): within
/// 10⁻⁴ dp, or 4 × what another exact module's order makes of the same case where that is more
/// (the moving block's impulsive start amplifies rounding: 2.2·10⁻⁶ m between strips/1/3 and
/// moore/1 on the H100). Against the lists of the step's corrector (a build every step),
/// 2D and 3D, DBC and mDBC, traversals in bin order; with a skin far too thin that the host
/// keeps anyway (keep_lists_unchecked), the passes find it used up and walk the old structure
/// over the moved particles with their largest move as its skin, which is exact too. A skin of
/// 0.02 R makes the host build on the skin (plan_next_build) rather than on the build's age;
/// kept unchecked, the passes read the lists up to the limit the device checks (lists_hold) and
/// walk after it. With a moving block, walls and fluid move fast.
TEST(CudaBackend, KeptListsEqualABuildEveryStep) {
    SKIP_WITHOUT_CUDA_DEVICE();
    struct Variant {
        const char* what;
        float skin;
        bool unchecked;
    };
    const Variant variants[] = {
        {"kept lists (default skin)", default_list_skin, false},
        {"skin 0.2 R", 0.2f, false},
        {"skin 0.02 R (builds on the skin)", 0.02f, false},
        {"skin 0.02 R kept unchecked (reads to the limit, then walks)", 0.02f, true},
        {"skin 1e-6 R kept unchecked (passes walk)", 1e-6f, true},
    };
    Case mdbc = test::small_dambreak_3d_case(0.02);
    mdbc.physics.boundary = BoundaryKind::mdbc;
    const Case cases[] = {test::dambreak_case(0.04),
                          test::moving_block_dambreak(0.02, test::box(0.3, 0.2, 0.46, 0.36),
                                                      Eigen::Vector3d(0.39, 0.0, 0.28)),
                          test::small_dambreak_3d_case(0.02), mdbc};
    for (const Case& base : cases) {
        const int steps = base.dimension == 2 ? 300 : 100;
        // What the order of the sums alone makes of the case: two exact modules, each building
        // every step, whose walks visit the neighbours in different orders. Kept lists sum in
        // an older build's order, so they may differ from a build every step by as much.
        const Difference order_only = order_of_sums_alone(base, steps);
        const double dx_bound = std::max(1e-4 * base.dp, 4.0 * order_only.dx);
        std::printf("%dD %s%s: strips/1/3 against moore/1, a build every step (the order of the "
                    "sums alone): max |dx| %g, |drho| %g\n",
                    base.dimension, to_string(base.physics.boundary),
                    base.obstacles.empty() ? "" : ", a moving block", order_only.dx,
                    order_only.drho);
        for (const char* module :
             {"counting-sort/strips/0.3333333", "counting-sort/chords/0.5", "radix-sort/moore/1"})
            for (const Variant& v : variants) {
                Case c = base;
                c.neighbours = parse_neighbour_module(module);
                CudaOptions every_step, kept;
                every_step.list_skin = 0.0f;
                every_step.interaction = kept.interaction = CudaInteraction::direct;
                kept.list_skin = v.skin;
                kept.keep_lists_unchecked = v.unchecked;
                auto a = make_cuda_simulation(c, every_step);
                auto b = make_cuda_simulation(c, kept);
                const Difference d = difference_after(*a, *b, steps);
                const BackendCounters n = b->counters();
                std::printf("%dD %s, %s, %s: %d steps to t = %.3f s, %llu on an earlier build, "
                            "%llu with a walk; against a build every step: max |dx| %g, |dv| "
                            "%g, |drho| %g\n",
                            c.dimension, to_string(c.physics.boundary), module, v.what, steps,
                            a->time(), static_cast<unsigned long long>(n.kept_list_steps),
                            static_cast<unsigned long long>(n.list_walks), d.dx, d.dv, d.drho);
                EXPECT_LT(d.dx, dx_bound) << module << ", " << v.what;
                EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << module << ", " << v.what;
                EXPECT_NEAR(a->time(), b->time(), 1e-6 * a->time()) << module;
                EXPECT_EQ(a->counters().kept_list_steps, 0u) << module;
                // mDBC's ghost nodes read kept lists (at least on each build's step, where no
                // particle has moved yet), and none without them or without mDBC.
                EXPECT_EQ(a->counters().ghost_node_list_reads, 0u) << module;
                if (c.physics.boundary == BoundaryKind::mdbc)
                    EXPECT_GT(n.ghost_node_list_reads, 0u) << module << ", " << v.what;
                else
                    EXPECT_EQ(n.ghost_node_list_reads, 0u) << module << ", " << v.what;
                // Early in the collapse the particles are slow: nine steps in ten run on an
                // earlier build (list_max_age), unchecked or not; a thin skin is used up
                // sooner, but most steps still run on an earlier build.
                const bool thin = v.skin == 0.02f;
                EXPECT_GE(n.kept_list_steps,
                          static_cast<std::uint64_t>(steps) * (thin ? 5 : 8) / 10)
                    << module << ", " << v.what;
                if (v.unchecked && !thin) {
                    EXPECT_GT(n.list_walks, static_cast<std::uint64_t>(steps) / 2) << module;
                    EXPECT_LT(n.corrector_list_steps, static_cast<std::uint64_t>(steps)) << module;
                } else if (v.unchecked) { // walks once the moves close the skin, reads before
                    EXPECT_LT(n.list_walks, static_cast<std::uint64_t>(steps)) << module;
                } else {
                    EXPECT_EQ(n.list_walks, 0u) << module << ", " << v.what;
                    EXPECT_EQ(n.corrector_list_steps, static_cast<std::uint64_t>(steps)) << module;
                }
            }
    }
}

/// The adaptive choice (the default) probes the in-step walk after 64 steps and keeps whichever
/// kernel measured faster; either way the state is the direct run's to rounding. A traversal that
/// visits a row bin by bin (moore) never runs in step.
TEST(CudaBackend, AdaptiveInteractionProbesAndAgrees) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (const char* module : {"counting-sort/strips/0.5", "radix-sort/moore/0.5"}) {
        Case c = test::small_dambreak_3d_case(0.02);
        c.neighbours = parse_neighbour_module(module);
        CudaOptions direct, adaptive; // adaptive: the default
        direct.interaction = CudaInteraction::direct;
        // Kept lists (the default) leave the walk to one step in several: no probe.
        direct.list_skin = adaptive.list_skin = 0.0f;
        auto a = make_cuda_simulation(c, direct);
        auto b = make_cuda_simulation(c, adaptive);
        const int steps = 200;
        const Difference d = difference_after(*a, *b, steps);
        std::printf("%s: %d steps, %llu of them in step; adaptive against direct: max |dx| %g, "
                    "|drho| %g\n",
                    module, steps, static_cast<unsigned long long>(b->counters().in_step_steps),
                    d.dx, d.drho);
        EXPECT_LT(d.dx, 1e-4 * c.dp) << module;
        EXPECT_LT(d.drho, 1e-5 * c.constants.rho0) << module;
        if (std::string(module).find("strips") != std::string::npos)
            EXPECT_GE(b->counters().in_step_steps, 1u) << module; // the probe at step 65 at least
        else
            EXPECT_EQ(b->counters().in_step_steps, 0u) << module;
    }
}

/// Neighbour counts of a snapshot by brute force, with the query's own distance test.
template <int D>
std::vector<std::uint32_t> brute_force_counts(const Snapshot& s, float radius) {
    std::vector<Vec<D>> x(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        x[i][0] = s.position[i][0];
        if constexpr (D == 2) {
            x[i][1] = s.position[i][2];
        } else {
            x[i][1] = s.position[i][1];
            x[i][2] = s.position[i][2];
        }
    }
    const float radius2 = radius * radius;
    std::vector<std::uint32_t> counts(s.id.empty() ? 0 : s.id.back() + 1, 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
        std::uint32_t n = 0;
        for (std::size_t j = 0; j < x.size(); ++j)
            n += neighbour_distance2<D>(x[i] - x[j]) < radius2 ? 1 : 0;
        counts[s.id[i]] = n;
    }
    return counts;
}

template <int D>
void check_neighbour_counts(const Case& base) {
    const std::vector<NeighbourModule> modules = all_neighbour_modules();
    std::vector<std::uint32_t> reference;
    for (const NeighbourModule& module : modules) {
        SCOPED_TRACE(module.name());
        Case c = base;
        c.neighbours = module;
        auto sim = make_cuda_simulation(c);
        const float radius = static_cast<float>(sim->constants().support);
        // At t = 0 (lattice: many pairs at distances near 2h) every module counts the same.
        const std::vector<std::uint32_t> initial = sim->neighbour_counts();
        if (reference.empty()) {
            reference = brute_force_counts<D>(sim->snapshot(), radius);
            ASSERT_EQ(reference.size(), initial.size());
        }
        EXPECT_EQ(initial, reference);
        // After some steps, on that module's own state.
        for (int k = 0; k < 20; ++k)
            sim->step();
        EXPECT_EQ(sim->neighbour_counts(), brute_force_counts<D>(sim->snapshot(), radius));
    }
    double mean = 0.0;
    for (std::uint32_t n : reference)
        mean += static_cast<double>(n) / static_cast<double>(reference.size());
    std::printf("%dD: %zu particles, mean neighbour count %.1f (self included), %zu modules\n", D,
                reference.size(), mean, modules.size());
}

TEST(CudaBackend, EveryModuleGivesTheSameNeighbourCounts2D) {
    SKIP_WITHOUT_CUDA_DEVICE();
    check_neighbour_counts<2>(test::dambreak_case(0.04));
}

TEST(CudaBackend, EveryModuleGivesTheSameNeighbourCounts3D) {
    SKIP_WITHOUT_CUDA_DEVICE();
    check_neighbour_counts<3>(test::small_dambreak_3d_case(0.025));
}

TEST(CudaBackend, StepsDoNotAllocate) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (const Case& c : {test::dambreak_case(0.04), test::small_dambreak_3d_case(0.025)}) {
        auto sim = make_cuda_simulation(c);
        sim->step();
        const std::uint64_t allocations = sim->counters().device_allocations;
        const std::size_t bytes = sim->counters().device_bytes;
        for (int k = 0; k < 20; ++k)
            sim->step();
        EXPECT_EQ(sim->counters().device_allocations, allocations);
        EXPECT_EQ(sim->counters().device_bytes, bytes);
        const std::uint64_t n = sim->counts().fluid + sim->counts().boundary;
        std::printf("%dD: %llu particles, %.0f device bytes per particle\n", c.dimension,
                    static_cast<unsigned long long>(n), double(bytes) / double(n));
    }
}

TEST(CudaBackend, PreflightEstimateMatchesWhatASimulationHolds) {
    SKIP_WITHOUT_CUDA_DEVICE();
    // The pre-flight check refuses a case by estimate_cuda_memory before anything exists; it
    // must be close to what the simulation really holds once it has taken a snapshot.
    Case radix = test::small_dambreak_3d_case(0.025);
    radix.neighbours.construction = Construction::radix_sort;
    Case verlet = test::dambreak_case(0.04);
    verlet.physics.integrator = IntegratorKind::verlet;
    Case index = test::small_dambreak_3d_case(0.025);
    index.neighbours = parse_neighbour_module("counting-sort/strips/0.5/index");
    Case linked = test::dambreak_case(0.04);
    linked.neighbours = parse_neighbour_module("linked-list/moore/1");
    for (const Case& c : {test::dambreak_case(0.04), test::small_dambreak_3d_case(0.025), radix,
                          verlet, index, linked}) {
        auto sim = make_cuda_simulation(c);
        sim->step();
        sim->begin_snapshot().get();
        const ParticleCountEstimate n = estimate_particle_count(c);
        const double bins = static_cast<double>(neighbour_grid(c).bins);
        const CudaMemoryEstimate estimate = estimate_cuda_memory(c, n.total(), bins);
        const double held = static_cast<double>(sim->counters().device_bytes);
        std::printf("%dD %s %s: estimate %.0f B, held %.0f B (%.1f %%)\n", c.dimension,
                    c.neighbours.name().c_str(), to_string(c.physics.integrator),
                    estimate.device_bytes, held, 100.0 * (estimate.device_bytes / held - 1.0));
        EXPECT_NEAR(estimate.device_bytes / held, 1.0, 0.05);
    }
}

TEST(CudaBackend, RestartContinuesWithinTheAgreementTolerance) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const auto dir = std::filesystem::temp_directory_path() / "sluice_restart_cuda";
    std::filesystem::remove_all(dir);
    Case verlet = test::dambreak_case(0.04);
    verlet.physics.integrator = IntegratorKind::verlet;
    // The GPU/CPU agreement tolerance (1e-3 dp): after a restart the atomic construction orders
    // each bin's particles anew, a rounding-level change like the GPU's against the CPU's.
    test::check_restart(test::dambreak_case(0.04), Backend::cuda, 60, 200, false, 1e-3, dir);
    test::check_restart(verlet, Backend::cuda, 57, 200, false, 1e-3, dir / "verlet");
    test::check_restart(test::small_dambreak_3d_case(0.025), Backend::cuda, 40, 100, false, 1e-3,
                        dir / "3d");
    std::filesystem::remove_all(dir);
}

TEST(CudaBackend, RepeatedRunsDoNotGrowDeviceMemory) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const Case c = test::small_dambreak_3d_case(0.02);
    auto run = [&] {
        auto sim = make_cuda_simulation(c);
        for (int k = 0; k < 10; ++k)
            sim->step();
        std::future<Snapshot> pending = sim->begin_snapshot();
        sim->step();
        EXPECT_GT(pending.get().size(), 0u);
        EXPECT_GT(sim->neighbour_counts().size(), 0u);
    };
    run(); // first use: context, module loading, pools
    const CudaMemoryInfo before = cuda_memory_info();
    for (int r = 0; r < 3; ++r)
        run();
    const CudaMemoryInfo after = cuda_memory_info();
    std::printf("free device memory before %zu, after %zu bytes\n", before.free, after.free);
    EXPECT_GE(after.free, before.free);
}

TEST(CudaBackend, AsyncSnapshotIsTheStateWhenBegun) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (const Case& c : {test::dambreak_case(0.04), test::small_dambreak_3d_case(0.025)}) {
        auto sim = make_cuda_simulation(c);
        for (int k = 0; k < 5; ++k)
            sim->step();
        const Snapshot now = sim->snapshot();
        std::future<Snapshot> first = sim->begin_snapshot();
        for (int k = 0; k < 5; ++k)
            sim->step(); // overwrites the state while the copy may still be under way
        std::future<Snapshot> second = sim->begin_snapshot();
        const Snapshot later = sim->snapshot();
        sim->step();
        const Snapshot a = first.get(); // both copy slots are held until here
        {
            std::future<Snapshot> dropped = sim->begin_snapshot(); // released unread
        }
        const Snapshot b = second.get();
        EXPECT_EQ(a.time, now.time);
        EXPECT_EQ(a.step, now.step);
        EXPECT_EQ(b.step, later.step);
        const Difference da = difference(a, now), db = difference(b, later);
        EXPECT_EQ(da.dx, 0.0);
        EXPECT_EQ(da.dv, 0.0);
        EXPECT_EQ(da.drho, 0.0);
        EXPECT_EQ(db.dx, 0.0);
        EXPECT_EQ(a.pressure, now.pressure);
        // Through the background writer, while stepping.
        std::vector<std::uint64_t> steps;
        {
            BackgroundSnapshotWriter writer(
                [&](const Snapshot& s, std::size_t) { steps.push_back(s.step); });
            for (int k = 0; k < 6; ++k) {
                writer.submit(sim->begin_snapshot());
                sim->step();
            }
            writer.flush();
            EXPECT_EQ(writer.written(), 6u);
        }
        ASSERT_EQ(steps.size(), 6u);
        for (std::size_t k = 1; k < steps.size(); ++k)
            EXPECT_EQ(steps[k], steps[k - 1] + 1);
    }
}

/// Fluid that falls out of the bottom of a tight domain within a few steps (no walls).
Case falling_block(int dimension) {
    Case c;
    c.name = "falling-block";
    c.dimension = dimension;
    c.dp = 0.05;
    FluidRegion f;
    f.box.min = Eigen::Vector3d(0.0, 0.0, 0.0);
    f.box.max = Eigen::Vector3d(0.3, dimension == 3 ? 0.15 : 0.0, 0.1);
    c.fluids = {f};
    // The lowest row (z = 0.025) is 0.1 mm above the domain's floor.
    c.domain.min = Eigen::Vector3d(-0.1, dimension == 3 ? -0.1 : 0.0, 0.0249);
    c.domain.max = Eigen::Vector3d(0.4, dimension == 3 ? 0.25 : 0.0, 0.3);
    c.constants.speed_of_sound = 10.0;
    return c;
}

/// A short run through every path, for compute-sanitizer (memcheck, racecheck): 2D and 3D,
/// both integrators, every interaction scheme, both constructions and queries, exclusions,
/// snapshots both ways, neighbour counts.
TEST(CudaBackend, ShortRunOfEveryPath) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const Case cases[] = {test::dambreak_case(0.1), test::small_dambreak_3d_case(0.04),
                          falling_block(2), falling_block(3)};
    for (const Case& base : cases)
        for (IntegratorKind integrator : {IntegratorKind::symplectic, IntegratorKind::verlet})
            for (CudaInteraction interaction :
                 {CudaInteraction::queued, CudaInteraction::direct, CudaInteraction::in_step})
                for (const char* module :
                     {"counting-sort/strips/1", "radix-sort/moore/0.5",
                      "counting-sort/hybrid/0.5/index", "linked-list/modular/1"}) {
                    Case c = base;
                    c.physics.integrator = integrator;
                    c.neighbours = parse_neighbour_module(module);
                    CudaOptions options;
                    options.interaction = interaction;
                    auto sim = make_cuda_simulation(c, options);
                    std::future<Snapshot> pending = sim->begin_snapshot();
                    for (int k = 0; k < 3; ++k)
                        sim->step();
                    EXPECT_EQ(pending.get().step, 0u);
                    EXPECT_EQ(sim->snapshot().step, 3u);
                    EXPECT_FALSE(sim->neighbour_counts().empty());
                    for (int k = 0; k < 3; ++k)
                        sim->step();
                    const std::vector<Exclusion> excluded = sim->take_exclusions();
                    EXPECT_EQ(excluded.size(), sim->counts().excluded);
                    if (base.name == "falling-block") {
                        EXPECT_GT(excluded.size(), 0u) << base.dimension << "D";
                    }
                }
}

} // namespace
