// The step plan (backends/step_plan.h), decided once from the case by backend-neutral code: the
// passes of a step for each integrator, over one process and several, where the symplectic
// corrector finds its neighbours, the density bounds and the grid over the domain, the module
// check, and the passes' names.

#include "backends/step_plan.h"
#include "case/constants.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

using namespace sluice;

namespace {

/// The dam break's constants: H_max = 2 m, the water column's height.
DerivedConstants dambreak_constants(const Case& c) {
    return derive_constants(c, 2.0);
}

std::vector<std::string> pass_names(const std::vector<StepPass>& passes) {
    std::vector<std::string> names;
    for (const StepPass& p : passes)
        names.emplace_back(pass_name(p));
    return names;
}

PlanRequest request(CorrectorNeighbours corrector, bool lists_available, bool several) {
    PlanRequest r;
    r.corrector = corrector;
    r.lists_available = lists_available;
    r.several_processes = several;
    return r;
}

StepPlan<2> plan_of(const Case& c, const PlanRequest& r) {
    return make_step_plan<2>(c, dambreak_constants(c), r);
}

TEST(StepPlan, SymplecticOnOneProcess) {
    const Case c = test::dambreak_case(0.04);
    const StepPlan<2> p = plan_of(c, request(CorrectorNeighbours::reuse, false, false));
    EXPECT_TRUE(p.symplectic());
    EXPECT_EQ(p.corrector, CorrectorNeighbours::reuse);
    EXPECT_TRUE(p.corrector_reuses());
    EXPECT_FALSE(p.several_processes);
    EXPECT_EQ(p.balance_interval, 0);
    EXPECT_EQ(
        pass_names(p.passes),
        (std::vector<std::string>{"construction", "interaction (predictor)", "time step",
                                  "integration (predict)", "reuse structure",
                                  "interaction (corrector)", "integration (correct)", "checks"}));
    ASSERT_EQ(p.passes.size(), 8u);
    EXPECT_EQ(std::get<pass::Interaction>(p.passes[1]).role, InteractionRole::predictor);
    EXPECT_EQ(std::get<pass::Integration>(p.passes[3]).stage, IntegrationStage::predict);
    EXPECT_EQ(std::get<pass::Interaction>(p.passes[5]).role, InteractionRole::corrector);
    EXPECT_EQ(std::get<pass::Integration>(p.passes[6]).stage, IntegrationStage::correct);
}

TEST(StepPlan, SymplecticOnSeveralProcessesExchangesRefreshesAndBalances) {
    Case c = test::dambreak_case(0.04);
    c.run.balance_interval = 37;
    const StepPlan<2> p = plan_of(c, request(CorrectorNeighbours::reuse, false, true));
    EXPECT_TRUE(p.several_processes);
    EXPECT_EQ(p.balance_interval, 37);
    // The halo takes its owners' state at n+½ after the predictor, before the corrector's
    // neighbours are found.
    EXPECT_EQ(pass_names(p.passes),
              (std::vector<std::string>{"exchange", "construction", "interaction (predictor)",
                                        "time step", "integration (predict)", "halo refresh",
                                        "reuse structure", "interaction (corrector)",
                                        "integration (correct)", "checks", "balance"}));
}

TEST(StepPlan, VerletHasOneInteractionAndOneBuild) {
    Case c = test::dambreak_case(0.04);
    c.physics.integrator = IntegratorKind::verlet;
    c.physics.verlet_reset_steps = 25;
    // A request for lists does not apply: Verlet has no corrector.
    const StepPlan<2> one = plan_of(c, request(CorrectorNeighbours::lists, true, false));
    EXPECT_FALSE(one.symplectic());
    EXPECT_EQ(one.integrator, IntegratorKind::verlet);
    EXPECT_EQ(one.verlet_reset_steps, 25);
    EXPECT_EQ(one.corrector, CorrectorNeighbours::rebuild);
    EXPECT_FALSE(one.corrector_reuses());
    EXPECT_EQ(pass_names(one.passes),
              (std::vector<std::string>{"construction", "interaction (verlet)", "time step",
                                        "integration (verlet)", "checks"}));
    ASSERT_EQ(one.passes.size(), 5u);
    EXPECT_EQ(std::get<pass::Interaction>(one.passes[1]).role, InteractionRole::verlet);
    EXPECT_EQ(std::get<pass::Integration>(one.passes[3]).stage, IntegrationStage::verlet);

    // Several processes: no halo refresh (there is no n+½), the exchange and the balance.
    const StepPlan<2> several = plan_of(c, request(CorrectorNeighbours::lists, true, true));
    EXPECT_EQ(pass_names(several.passes),
              (std::vector<std::string>{"exchange", "construction", "interaction (verlet)",
                                        "time step", "integration (verlet)", "checks", "balance"}));
    EXPECT_EQ(several.balance_interval, c.run.balance_interval);
}

/// An index layout has no bin order for the predicted positions to be walked in: the corrector
/// builds again, whatever was asked for.
TEST(StepPlan, IndexLayoutBuildsBeforeTheCorrector) {
    for (const char* module :
         {"counting-sort/strips/0.5/index", "radix-sort/moore/1/index", "linked-list/modular/1"}) {
        SCOPED_TRACE(module);
        Case c = test::dambreak_case(0.04);
        c.neighbours = parse_neighbour_module(module);
        for (CorrectorNeighbours asked : {CorrectorNeighbours::lists, CorrectorNeighbours::reuse,
                                          CorrectorNeighbours::rebuild}) {
            const StepPlan<2> p = plan_of(c, request(asked, true, false));
            EXPECT_EQ(p.layout, Layout::index);
            EXPECT_EQ(p.corrector, CorrectorNeighbours::rebuild);
            EXPECT_FALSE(p.corrector_reuses());
            EXPECT_EQ(pass_names(p.passes),
                      (std::vector<std::string>{"construction", "interaction (predictor)",
                                                "time step", "integration (predict)",
                                                "construction", "interaction (corrector)",
                                                "integration (correct)", "checks"}));
        }
    }
}

TEST(StepPlan, ReorderLayoutReusesOrRebuildsAsAsked) {
    Case c = test::dambreak_case(0.04);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    const StepPlan<2> reuse = plan_of(c, request(CorrectorNeighbours::reuse, true, false));
    EXPECT_EQ(reuse.corrector, CorrectorNeighbours::reuse);
    EXPECT_EQ(pass_name(reuse.passes[4]), std::string("reuse structure"));
    EXPECT_TRUE(std::holds_alternative<pass::ReuseStructure>(reuse.passes[4]));

    const StepPlan<2> rebuild = plan_of(c, request(CorrectorNeighbours::rebuild, true, false));
    EXPECT_EQ(rebuild.corrector, CorrectorNeighbours::rebuild);
    EXPECT_FALSE(rebuild.corrector_reuses());
    EXPECT_TRUE(std::holds_alternative<pass::Construction>(rebuild.passes[4]));
}

/// Lists where asked for, the backend has them and the traversal visits bins in bin order; else
/// the predictor's structure (the lists keep the walk's order, which label order is not).
TEST(StepPlan, CorrectorListsOnlyInBinOrderAndWhereAvailable) {
    Case c = test::dambreak_case(0.04);
    for (const char* module :
         {"counting-sort/strips/0.5", "counting-sort/chords/0.5", "radix-sort/moore/1"}) {
        SCOPED_TRACE(module);
        c.neighbours = parse_neighbour_module(module);
        const StepPlan<2> listed = plan_of(c, request(CorrectorNeighbours::lists, true, false));
        EXPECT_EQ(listed.corrector, CorrectorNeighbours::lists);
        EXPECT_TRUE(listed.corrector_reuses());
        EXPECT_TRUE(std::holds_alternative<pass::ReuseStructure>(listed.passes[4]));
        // A backend without lists (the CPU's) walks the structure instead.
        const StepPlan<2> none = plan_of(c, request(CorrectorNeighbours::lists, false, false));
        EXPECT_EQ(none.corrector, CorrectorNeighbours::reuse);
        EXPECT_TRUE(std::holds_alternative<pass::ReuseStructure>(none.passes[4]));
    }
    for (const char* module : {"counting-sort/modular/1", "radix-sort/hybrid/0.5"}) {
        SCOPED_TRACE(module);
        c.neighbours = parse_neighbour_module(module);
        const StepPlan<2> p = plan_of(c, request(CorrectorNeighbours::lists, true, false));
        EXPECT_EQ(p.corrector, CorrectorNeighbours::reuse);
        EXPECT_TRUE(p.corrector_reuses());
        EXPECT_TRUE(std::holds_alternative<pass::ReuseStructure>(p.passes[4]));
    }
}

TEST(StepPlan, TakesTheCasesModelsAndBounds) {
    Case c = test::dambreak_case(0.04);
    c.constants.rho0 = 1025.0;
    c.constants.cfl = 0.15;
    c.physics.density_min_ratio = 0.8;
    c.physics.density_max_ratio = 1.3;
    c.physics.kernel = KernelKind::cubic_spline;
    c.neighbours = parse_neighbour_module("radix-sort/hybrid/0.5");
    const DerivedConstants derived = dambreak_constants(c);
    const StepPlan<2> p = make_step_plan<2>(c, derived, PlanRequest{});
    EXPECT_FLOAT_EQ(p.density_min, 0.8f * 1025.0f);
    EXPECT_FLOAT_EQ(p.density_max, 1.3f * 1025.0f);
    EXPECT_DOUBLE_EQ(p.cfl, 0.15);
    EXPECT_FLOAT_EQ(p.fluid.rho0, 1025.0f);
    EXPECT_FLOAT_EQ(p.fluid.h, static_cast<float>(derived.h));
    EXPECT_FLOAT_EQ(p.fluid.c0, static_cast<float>(derived.speed_of_sound));
    EXPECT_TRUE(std::holds_alternative<CubicSpline<2>>(p.kernel));
    EXPECT_EQ(p.construction, Construction::radix_sort);
    EXPECT_TRUE(std::holds_alternative<HybridQuery>(p.query));
    EXPECT_EQ(p.layout, Layout::reorder);

    c.physics.kernel = KernelKind::wendland_c2;
    EXPECT_TRUE(std::holds_alternative<WendlandC2<2>>(plan_of(c, PlanRequest{}).kernel));
}

/// The grid covers Case::domain (x–z in 2D, x–y–z in 3D) from its lower corner with bins of edge
/// binWidth · R, R = 2h, rounded up to whole bins.
TEST(StepPlan, GridCoversTheDomainWithBinsOfTheModulesWidth) {
    Case c = test::dambreak_case(0.04);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    const DerivedConstants derived = dambreak_constants(c);
    const StepPlan<2> p = make_step_plan<2>(c, derived, PlanRequest{});
    EXPECT_FLOAT_EQ(p.radius, static_cast<float>(2.0 * derived.h));
    EXPECT_FLOAT_EQ(p.grid.bin_size, 0.5f * p.radius);
    EXPECT_FLOAT_EQ(p.grid.origin[0], static_cast<float>(c.domain.min.x()));
    EXPECT_FLOAT_EQ(p.grid.origin[1], static_cast<float>(c.domain.min.z()));
    const double extent[2] = {c.domain.max.x() - c.domain.min.x(),
                              c.domain.max.z() - c.domain.min.z()};
    for (int k = 0; k < 2; ++k) {
        EXPECT_GE(p.grid.dims[k] * double(p.grid.bin_size), extent[k]) << "axis " << k;
        EXPECT_LE((p.grid.dims[k] - 2) * double(p.grid.bin_size), extent[k]) << "axis " << k;
    }

    const Case c3 = test::small_dambreak_3d_case(0.02);
    const DerivedConstants d3 = derive_constants(c3, 0.2);
    const StepPlan<3> p3 = make_step_plan<3>(c3, d3, PlanRequest{});
    EXPECT_FLOAT_EQ(p3.radius, static_cast<float>(d3.support));
    EXPECT_FLOAT_EQ(p3.grid.bin_size, c3.neighbours.bin_width * p3.radius);
    for (int k = 0; k < 3; ++k) {
        const double extent3 = c3.domain.max[k] - c3.domain.min[k];
        EXPECT_FLOAT_EQ(p3.grid.origin[k], static_cast<float>(c3.domain.min[k]));
        EXPECT_GE(p3.grid.dims[k] * double(p3.grid.bin_size), extent3) << "axis " << k;
        EXPECT_LE((p3.grid.dims[k] - 2) * double(p3.grid.bin_size), extent3) << "axis " << k;
    }
}

/// A linked list has no bin order: the plan refuses it with the reorder layout (and with a
/// traversal that needs one), saying why, as validate_neighbour_module does.
TEST(StepPlan, RefusesALinkedListWithTheReorderLayout) {
    Case c = test::dambreak_case(0.04);
    c.neighbours = {Construction::linked_list, MooreQuery{}, 1.0f, Layout::reorder};
    try {
        plan_of(c, PlanRequest{});
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("its layout is index"), std::string::npos) << e.what();
    }
    c.neighbours = {Construction::linked_list, StripsQuery{}, 1.0f, Layout::index};
    try {
        plan_of(c, PlanRequest{});
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cannot walk a linked-list"), std::string::npos)
            << e.what();
    }
}

TEST(StepPlan, PassNames) {
    EXPECT_STREQ(pass_name(pass::Exchange{}), "exchange");
    EXPECT_STREQ(pass_name(pass::Construction{}), "construction");
    EXPECT_STREQ(pass_name(pass::ReuseStructure{}), "reuse structure");
    EXPECT_STREQ(pass_name(pass::Interaction{InteractionRole::predictor}),
                 "interaction (predictor)");
    EXPECT_STREQ(pass_name(pass::Interaction{InteractionRole::corrector}),
                 "interaction (corrector)");
    EXPECT_STREQ(pass_name(pass::Interaction{InteractionRole::verlet}), "interaction (verlet)");
    EXPECT_STREQ(pass_name(pass::TimeStep{}), "time step");
    EXPECT_STREQ(pass_name(pass::Integration{IntegrationStage::predict}), "integration (predict)");
    EXPECT_STREQ(pass_name(pass::Integration{IntegrationStage::correct}), "integration (correct)");
    EXPECT_STREQ(pass_name(pass::Integration{IntegrationStage::verlet}), "integration (verlet)");
    EXPECT_STREQ(pass_name(pass::HaloRefresh{}), "halo refresh");
    EXPECT_STREQ(pass_name(pass::Checks{}), "checks");
    EXPECT_STREQ(pass_name(pass::Balance{}), "balance");
}

} // namespace

/// mDBC: the wall particles' pass right after the first build, before any interaction pass
/// reads their densities; over several processes followed by a refresh of the halo's walls
/// (on the build's positions). DBC has neither.
TEST(StepPlan, ModifiedWallsTakeTheirPassAfterTheFirstBuild) {
    Case c = test::dambreak_case(0.04);
    EXPECT_FALSE(plan_of(c, request(CorrectorNeighbours::reuse, false, false)).modified_walls());
    c.physics.boundary = BoundaryKind::mdbc;
    c.physics.slip = SlipKind::free_slip;
    const StepPlan<2> one = plan_of(c, request(CorrectorNeighbours::reuse, false, false));
    EXPECT_TRUE(one.modified_walls());
    EXPECT_FALSE(one.fluid.wall_continuity);
    EXPECT_EQ(one.slip, WallSlip::free_slip);
    EXPECT_EQ(
        pass_names(one.passes),
        (std::vector<std::string>{"construction", "boundary condition", "interaction (predictor)",
                                  "time step", "integration (predict)", "reuse structure",
                                  "interaction (corrector)", "integration (correct)", "checks"}));
    const StepPlan<2> several = plan_of(c, request(CorrectorNeighbours::reuse, false, true));
    EXPECT_EQ(pass_names(several.passes),
              (std::vector<std::string>{"exchange", "construction", "boundary condition",
                                        "halo refresh (walls)", "interaction (predictor)",
                                        "time step", "integration (predict)", "halo refresh",
                                        "reuse structure", "interaction (corrector)",
                                        "integration (correct)", "checks", "balance"}));
    EXPECT_TRUE(std::get<pass::HaloRefresh>(several.passes[3]).on_build);
    EXPECT_FALSE(std::get<pass::HaloRefresh>(several.passes[7]).on_build);
    c.physics.integrator = IntegratorKind::verlet;
    EXPECT_EQ(
        pass_names(plan_of(c, request(CorrectorNeighbours::reuse, false, false)).passes),
        (std::vector<std::string>{"construction", "boundary condition", "interaction (verlet)",
                                  "time step", "integration (verlet)", "checks"}));
}

/// Moving boundaries: the walls follow every integration (before the halo refresh that sends
/// them), the damping zones the last one; the plan carries the walls' speed bound (for the
/// corrector's lists) and the zones; mDBC's pair terms then read the walls' own velocities
/// (FluidConstants::moving_walls), DBC's need not.
TEST(StepPlan, MovingWallsFollowEveryIntegrationAndDampingTheLast) {
    Case c = test::dambreak_case(0.04);
    Obstacle paddle;
    paddle.box = test::box(3.0, 0.0, 3.12, 1.0);
    MotionSegment push;
    RectilinearMotion r;
    r.velocity = Eigen::Vector3d(-0.5, 0.0, 0.0);
    push.end = 0.5;
    push.motion = r;
    paddle.object.motion = Motion{{push}, 0};
    c.obstacles.push_back(paddle);
    DampingZone zone;
    zone.start = Eigen::Vector3d(2.0, 0.0, 0.0);
    zone.end = Eigen::Vector3d(2.5, 0.0, 0.0);
    c.damping.push_back(zone);
    const StepPlan<2> one = plan_of(c, request(CorrectorNeighbours::reuse, false, false));
    EXPECT_TRUE(one.moving_walls);
    EXPECT_NEAR(one.wall_speed_bound, 0.5f, 1e-5f);
    ASSERT_EQ(one.damping.size(), 1u);
    EXPECT_NEAR(one.damping[0].direction[0], 1.0f / 0.5f, 1e-6f); // (end − start)/L²
    EXPECT_FALSE(one.fluid.moving_walls);                         // DBC
    EXPECT_EQ(pass_names(one.passes),
              (std::vector<std::string>{"construction", "interaction (predictor)", "time step",
                                        "integration (predict)", "motion (half step)",
                                        "reuse structure", "interaction (corrector)",
                                        "integration (correct)", "motion", "damping", "checks"}));
    const StepPlan<2> several = plan_of(c, request(CorrectorNeighbours::reuse, false, true));
    EXPECT_EQ(pass_names(several.passes),
              (std::vector<std::string>{"exchange", "construction", "interaction (predictor)",
                                        "time step", "integration (predict)", "motion (half step)",
                                        "halo refresh", "reuse structure",
                                        "interaction (corrector)", "integration (correct)",
                                        "motion", "damping", "checks", "balance"}));
    c.physics.integrator = IntegratorKind::verlet;
    EXPECT_EQ(pass_names(plan_of(c, request(CorrectorNeighbours::reuse, false, false)).passes),
              (std::vector<std::string>{"construction", "interaction (verlet)", "time step",
                                        "integration (verlet)", "motion", "damping", "checks"}));
    c.physics.boundary = BoundaryKind::mdbc;
    EXPECT_TRUE(plan_of(c, request(CorrectorNeighbours::reuse, false, false)).fluid.moving_walls);
    EXPECT_FALSE(MonaghanMolteniModel::matches(
        plan_of(c, request(CorrectorNeighbours::reuse, false, false)).fluid));
}
