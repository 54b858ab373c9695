#include "case/case_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sluice {
namespace {

const std::string cases_dir = SLUICE_CASES_DIR;

/// Joins lines with '\n': line k of the document is element k-1, so tests state line numbers
/// by position.
std::string lines(const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls)
        out += l + "\n";
    return out;
}

const std::string head2 = R"(<sluice name="t" dimension="2">)";
const std::string head3 = R"(<sluice name="t" dimension="3">)";
const std::string geometry2 = R"(  <geometry dp="0.1"><fluid min="0 0" max="1 1"/></geometry>)";
const std::string tail = "</sluice>";
const std::string tank_geometry2 =
    R"(  <geometry dp="0.1"><fluid min="0 0" max="1 1"/><tank min="0 0" max="2 2"/></geometry>)";

void expect_point(const Eigen::Vector3d& p, double x, double y, double z) {
    EXPECT_DOUBLE_EQ(p.x(), x);
    EXPECT_DOUBLE_EQ(p.y(), y);
    EXPECT_DOUBLE_EQ(p.z(), z);
}

// ---------------------------------------------------------------------------------------------
// Shipped cases.

TEST(CaseReader, EveryShippedCaseParses) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cases_dir)) {
        if (entry.path().extension() != ".xml")
            continue;
        SCOPED_TRACE(entry.path().string());
        const Case c = read_case(entry.path().string());
        EXPECT_EQ(c.name, entry.path().stem().string()) << "case name = file name";
        EXPECT_FALSE(c.fluids.empty());
        ++count;
    }
    EXPECT_GE(count, 3);
}

TEST(CaseReader, GaugesOfTheShippedCases) {
    const Case c = read_case(cases_dir + "/dambreak3d.xml");
    EXPECT_DOUBLE_EQ(c.gauges.interval, 0.005);
    ASSERT_EQ(c.gauges.gauges.size(), 12u);
    EXPECT_EQ(c.gauges.gauges[1].name, "H2");
    EXPECT_EQ(c.gauges.gauges[1].kind, GaugeKind::height);
    expect_point(c.gauges.gauges[1].point, 0.992, 0.5, 0.0);
    EXPECT_EQ(c.gauges.gauges[4].name, "P1");
    EXPECT_EQ(c.gauges.gauges[4].kind, GaugeKind::sensor); // on the box's face
    expect_point(c.gauges.gauges[4].point, 0.8245, 0.471, 0.021);
    EXPECT_TRUE(c.gauges.gauges[4].average);
    EXPECT_EQ(c.gauges.gauges[11].kind, GaugeKind::sensor); // on its top
    expect_point(c.gauges.gauges[11].point, 0.6835, 0.471, 0.161);
    const Case d = read_case(cases_dir + "/dambreak2d.xml");
    ASSERT_EQ(d.gauges.gauges.size(), 1u);
    EXPECT_EQ(d.gauges.gauges[0].kind, GaugeKind::front);
    EXPECT_EQ(d.gauges.gauges[0].axis, 0);
    EXPECT_EQ(d.gauges.gauges[0].sign, 1);
}

TEST(CaseReader, SensorsOnTheWalls) {
    const Case c = parse_case(
        lines({head2, tank_geometry2, R"(  <gauges interval="0.01">)",
               R"(    <sensor name="S1" point="0 0.5"/>)",
               R"(    <sensor name="S2" point="2.02 0.3" radius="0.05" average="true"/>)",
               R"(    <sensor name="S3" point="1.5 0" average="false"/></gauges>)", tail}),
        "t.xml");
    ASSERT_EQ(c.gauges.gauges.size(), 3u);
    const Gauge& s1 = c.gauges.gauges[0];
    EXPECT_EQ(s1.kind, GaugeKind::sensor);
    EXPECT_EQ(s1.name, "S1");
    expect_point(s1.point, 0.0, 0.0, 0.5);
    EXPECT_EQ(s1.radius, 0.0);
    EXPECT_FALSE(s1.average);
    EXPECT_EQ(s1.where.line, 4);
    EXPECT_DOUBLE_EQ(c.gauges.gauges[1].radius, 0.05);
    EXPECT_TRUE(c.gauges.gauges[1].average);
    EXPECT_FALSE(c.gauges.gauges[2].average);
    const Case d = parse_case(
        lines(
            {head3,
             R"(  <geometry dp="0.1"><fluid min="0 0 0" max="1 1 1"/><tank min="0 0 0" max="2 2 2"/></geometry>)",
             R"(  <gauges interval="0.01"><sensor name="S" point="1 0 0.5" radius="0.02"/></gauges>)",
             tail}),
        "t.xml");
    expect_point(d.gauges.gauges[0].point, 1.0, 0.0, 0.5);
}

TEST(CaseReader, Dambreak2d) {
    const Case c = read_case(cases_dir + "/dambreak2d.xml");
    EXPECT_EQ(c.name, "dambreak2d");
    EXPECT_EQ(c.dimension, 2);
    EXPECT_DOUBLE_EQ(c.dp, 0.02);
    EXPECT_DOUBLE_EQ(c.constants.gravity, 9.81);
    EXPECT_DOUBLE_EQ(c.constants.rho0, 1000.0);
    EXPECT_DOUBLE_EQ(c.constants.coef_sound, 20.0);
    EXPECT_FALSE(c.constants.speed_of_sound.has_value());
    EXPECT_DOUBLE_EQ(c.constants.cfl, 0.2);
    ASSERT_EQ(c.fluids.size(), 1u);
    expect_point(c.fluids[0].box.min, 0, 0, 0);
    expect_point(c.fluids[0].box.max, 1, 0, 2);
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->faces, face_bottom | face_left | face_right);
    EXPECT_EQ(c.tank->layers, 3);
    expect_point(c.tank->box.max, 4, 0, 3);
    EXPECT_TRUE(c.obstacles.empty());
    EXPECT_EQ(c.physics.kernel, KernelKind::wendland_c2);
    EXPECT_EQ(c.physics.viscosity, ViscosityKind::artificial);
    EXPECT_DOUBLE_EQ(c.physics.viscosity_value, 0.01);
    EXPECT_EQ(c.physics.diffusion, DensityDiffusionKind::molteni);
    EXPECT_EQ(c.physics.integrator, IntegratorKind::symplectic);
    EXPECT_EQ(c.neighbours.name(), "counting-sort/strips/1");
    EXPECT_DOUBLE_EQ(c.run.end_time, 1.0);
    EXPECT_DOUBLE_EQ(c.run.output_interval, 0.02);
    EXPECT_EQ(c.run.output_dir, "out/dambreak2d");
    EXPECT_GT(c.domain.max.z(), 3.0) << "headroom above the walls";
    EXPECT_EQ(c.where.line, 13);
    EXPECT_EQ(c.fluids[0].where.line, 18);
}

TEST(CaseReader, StillWater2d) {
    const Case c = read_case(cases_dir + "/still_water2d.xml");
    EXPECT_EQ(c.dimension, 2);
    EXPECT_DOUBLE_EQ(c.dp, 0.02);
    ASSERT_EQ(c.fluids.size(), 1u);
    EXPECT_DOUBLE_EQ(c.fluids[0].box.max.z(), 0.5);
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->faces, face_bottom | face_left | face_right);
    expect_point(c.tank->box.max, 1.0, 0, 0.7);
    EXPECT_EQ(c.physics.diffusion, DensityDiffusionKind::fourtakas);
    EXPECT_TRUE(c.obstacles.empty());
    EXPECT_DOUBLE_EQ(c.run.end_time, 2.0);
    // No <domain>: walls span x in [-0.06, 1.06], z in [-0.06, 0.7]; grown by 10 % of 1.12.
    expect_point(c.domain.min, -0.06 - 0.112, 0, -0.06 - 0.112);
    expect_point(c.domain.max, 1.06 + 0.112, 0, 0.7 + 0.112);
}

TEST(CaseReader, Dambreak3d) {
    const Case c = read_case(cases_dir + "/dambreak3d.xml");
    EXPECT_EQ(c.dimension, 3);
    EXPECT_DOUBLE_EQ(c.dp, 0.02);
    ASSERT_EQ(c.fluids.size(), 1u);
    expect_point(c.fluids[0].box.min, 1.992, 0, 0);
    expect_point(c.fluids[0].box.max, 3.22, 1.0, 0.55);
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->faces, face_bottom | face_left | face_right | face_front | face_back);
    EXPECT_EQ(tank_faces_to_string(c.tank->faces), "bottom left right front back");
    EXPECT_EQ(c.physics.boundary, BoundaryKind::mdbc);
    EXPECT_EQ(c.physics.shifting, ShiftingKind::fickian);
    EXPECT_EQ(c.physics.formulation, FormulationKind::riemann);
    EXPECT_EQ(wall_slip(c.physics), SlipKind::free_slip);
    EXPECT_DOUBLE_EQ(c.constants.coef_sound, 10.0);
    expect_point(c.tank->box.max, 3.22, 1.0, 1.0);
    ASSERT_EQ(c.obstacles.size(), 1u);
    expect_point(c.obstacles[0].box.min, 0.6635, 0.2955, 0);
    expect_point(c.obstacles[0].box.max, 0.8245, 0.6985, 0.161);
    EXPECT_DOUBLE_EQ(c.run.end_time, 1.5);
}

TEST(CaseReader, ReadmeExamplesParse) {
    std::ifstream in(cases_dir + "/README.md");
    ASSERT_TRUE(in) << "cases/README.md";
    std::string line, block;
    int examples = 0, block_line = 0, line_number = 0;
    bool inside = false;
    while (std::getline(in, line)) {
        ++line_number;
        if (!inside && line == "```xml") {
            inside = true;
            block.clear();
            block_line = line_number;
        } else if (inside && line == "```") {
            inside = false;
            SCOPED_TRACE("README.md example at line " + std::to_string(block_line));
            EXPECT_NO_THROW(parse_case(block, "README.md"));
            ++examples;
        } else if (inside) {
            block += line + "\n";
        }
    }
    EXPECT_GE(examples, 2);
}

// ---------------------------------------------------------------------------------------------
// Defaults, domain, points.

TEST(CaseReader, DefaultsApplyWhenAttributesAreAbsent) {
    const Case c = parse_case(lines({head2, geometry2, tail}), "t.xml");
    const Case model; // defaults of case_model.h
    EXPECT_EQ(c.name, "t");
    EXPECT_DOUBLE_EQ(c.constants.gravity, model.constants.gravity);
    EXPECT_DOUBLE_EQ(c.constants.rho0, model.constants.rho0);
    EXPECT_DOUBLE_EQ(c.constants.gamma, model.constants.gamma);
    EXPECT_DOUBLE_EQ(c.constants.coef_sound, model.constants.coef_sound);
    EXPECT_FALSE(c.constants.speed_of_sound.has_value());
    EXPECT_DOUBLE_EQ(c.constants.coefh, model.constants.coefh);
    EXPECT_DOUBLE_EQ(c.constants.cfl, model.constants.cfl);
    EXPECT_EQ(c.physics.kernel, model.physics.kernel);
    EXPECT_EQ(c.physics.viscosity, model.physics.viscosity);
    EXPECT_DOUBLE_EQ(c.physics.viscosity_value, model.physics.viscosity_value);
    EXPECT_EQ(c.physics.diffusion, model.physics.diffusion);
    EXPECT_DOUBLE_EQ(c.physics.diffusion_coef, model.physics.diffusion_coef);
    EXPECT_EQ(c.physics.integrator, model.physics.integrator);
    EXPECT_EQ(c.physics.verlet_reset_steps, model.physics.verlet_reset_steps);
    EXPECT_DOUBLE_EQ(c.physics.density_min_ratio, model.physics.density_min_ratio);
    EXPECT_DOUBLE_EQ(c.physics.density_max_ratio, model.physics.density_max_ratio);
    EXPECT_EQ(c.neighbours.name(), model.neighbours.name());
    EXPECT_DOUBLE_EQ(c.run.end_time, model.run.end_time);
    EXPECT_DOUBLE_EQ(c.run.output_interval, model.run.output_interval);
    EXPECT_EQ(c.run.output_dir, "out/t");
    EXPECT_FALSE(c.tank.has_value());
    EXPECT_TRUE(c.obstacles.empty());
}

TEST(CaseReader, EmptySectionsKeepDefaults) {
    const Case c = parse_case(
        lines({head2, "<constants/>", geometry2, "<physics/>", "<neighbours/>", "<run/>", tail}),
        "t.xml");
    const Case model;
    EXPECT_DOUBLE_EQ(c.constants.rho0, model.constants.rho0);
    EXPECT_EQ(c.physics.kernel, model.physics.kernel);
    EXPECT_EQ(c.run.output_dir, "out/t");
}

TEST(CaseReader, NeighboursAutoAsksForTheFastestModule) {
    EXPECT_FALSE(parse_case(lines({head2, geometry2, tail}), "t.xml").neighbours_auto);
    const Case c =
        parse_case(lines({head2, geometry2, R"(<neighbours auto="true"/>)", tail}), "t.xml");
    EXPECT_TRUE(c.neighbours_auto);
    const Case off = parse_case(
        lines({head2, geometry2, R"(<neighbours auto="false" query="moore"/>)", tail}), "t.xml");
    EXPECT_FALSE(off.neighbours_auto);
    EXPECT_TRUE(std::holds_alternative<MooreQuery>(off.neighbours.query));
}

TEST(CaseReader, NeighboursLayoutAndLinkedList) {
    const Case c =
        parse_case(lines({head2, geometry2,
                          R"(<neighbours query="hybrid" binWidth="0.5" layout="index"/>)", tail}),
                   "t.xml");
    EXPECT_EQ(c.neighbours.name(), "counting-sort/hybrid/0.5/index");
    const Case list =
        parse_case(lines({head2, geometry2,
                          R"(<neighbours construction="linked-list" query="moore"/>)", tail}),
                   "t.xml");
    EXPECT_EQ(list.neighbours.name(), "linked-list/moore/1/index");
    // Invalid pairs: the line of the element and why.
    for (const char* bad :
         {R"(<neighbours construction="linked-list"/>)", // strips by default
          R"(<neighbours construction="linked-list" query="moore" layout="reorder"/>)"}) {
        try {
            parse_case(lines({head2, geometry2, bad, tail}), "t.xml");
            FAIL() << "no CaseError for " << bad;
        } catch (const CaseError& e) {
            EXPECT_EQ(e.line(), 3) << e.what();
            EXPECT_NE(std::string(e.what()).find("linked-list"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(
        parse_case(lines({head2, geometry2, R"(<neighbours layout="sorted"/>)", tail}), "t.xml"),
        CaseError);
}

TEST(CaseReader, OutputElementSetsTheSnapshotFormat) {
    const Case defaults = parse_case(lines({head2, geometry2, tail}), "t.xml");
    EXPECT_EQ(defaults.output.format.compressor, Compressor::lz4);
    EXPECT_EQ(defaults.output.format.level, 0);
    EXPECT_EQ(fields_to_string(defaults.output.format), "velocity density pressure");
    EXPECT_FALSE(defaults.output.boundary_only_first);
    EXPECT_EQ(defaults.output.writers, 0u);

    const Case c =
        parse_case(lines({head2, geometry2,
                          R"(<output compressor="zlib" level="3" fields="pressure, velocity"
                                               boundary="first" writers="6"/>)",
                          tail}),
                   "t.xml");
    EXPECT_EQ(c.output.format.compressor, Compressor::zlib);
    EXPECT_EQ(c.output.format.level, 3);
    EXPECT_TRUE(c.output.format.pressure);
    EXPECT_TRUE(c.output.format.velocity);
    EXPECT_FALSE(c.output.format.density);
    EXPECT_TRUE(c.output.boundary_only_first);
    EXPECT_EQ(c.output.writers, 6u);
}

/// formulation="riemann": no artificial viscosity, no other diffusion unless asked for, η read;
/// diffusion="antuono" with the classical terms.
TEST(CaseReader, FormulationsAndDiffusions) {
    const Case r = parse_case(
        lines({head2, geometry2, R"(<physics formulation="riemann" riemannLimiter="5"/>)", tail}),
        "t.xml");
    EXPECT_EQ(r.physics.formulation, FormulationKind::riemann);
    EXPECT_DOUBLE_EQ(r.physics.riemann_limiter, 5.0);
    EXPECT_DOUBLE_EQ(r.physics.viscosity_value, 0.0);
    EXPECT_EQ(r.physics.diffusion, DensityDiffusionKind::none);
    EXPECT_EQ(wall_slip(r.physics), SlipKind::free_slip);
    const Case rl = parse_case(
        lines({head2, geometry2,
               R"(<physics formulation="riemann" viscosity="laminar" viscosityValue="1e-6"
                           diffusion="molteni"/>)",
               tail}),
        "t.xml");
    EXPECT_EQ(rl.physics.viscosity, ViscosityKind::laminar);
    EXPECT_DOUBLE_EQ(rl.physics.viscosity_value, 1e-6);
    EXPECT_EQ(rl.physics.diffusion, DensityDiffusionKind::molteni);
    const Case a =
        parse_case(lines({head2, geometry2, R"(<physics diffusion="antuono"/>)", tail}), "t.xml");
    EXPECT_EQ(a.physics.formulation, FormulationKind::classical);
    EXPECT_EQ(a.physics.diffusion, DensityDiffusionKind::antuono);
    EXPECT_DOUBLE_EQ(a.physics.viscosity_value, 0.01);
}

/// --formulation on a case (set_formulation): the defaults of the formulation it switches to.
TEST(CaseReader, SetFormulationTakesItsDefaults) {
    Case c = read_case(cases_dir + "/lobovsky2d.xml");
    ASSERT_EQ(c.physics.formulation, FormulationKind::riemann);
    set_formulation(c.physics, FormulationKind::classical);
    EXPECT_EQ(c.physics.viscosity, ViscosityKind::artificial);
    EXPECT_DOUBLE_EQ(c.physics.viscosity_value, 0.01);
    EXPECT_EQ(c.physics.diffusion, DensityDiffusionKind::molteni);
    EXPECT_EQ(wall_slip(c.physics), SlipKind::no_slip);
    set_formulation(c.physics, FormulationKind::riemann);
    EXPECT_DOUBLE_EQ(c.physics.viscosity_value, 0.0);
    EXPECT_EQ(c.physics.diffusion, DensityDiffusionKind::none);
    EXPECT_EQ(wall_slip(c.physics), SlipKind::free_slip);
}

TEST(CaseReader, EveryAttributeIsRead) {
    const Case c = parse_case(
        lines({head2,
               R"(<constants gravity="0" rho0="998" gamma="1" speedOfSound="35" coefh="1.2"
                             cfl="1"/>)",
               geometry2,
               R"(<physics kernel="cubic-spline" viscosity="laminar" viscosityValue="1e-6"
                           diffusion="fourtakas" diffusionCoef="0" integrator="verlet"
                           verletReset="50" densityMin="0.9" densityMax="1.1"
                           shifting="fickian" shiftingCoef="1.5" shiftingSurface="1.2"/>)",
               R"(<neighbours construction="radix-sort" query="moore" binWidth="0.5"/>)",
               R"(<run endTime="+3" outputInterval=" 0.1 " output="results/x"/>)", tail}),
        "t.xml");
    EXPECT_DOUBLE_EQ(c.constants.gravity, 0.0);
    EXPECT_DOUBLE_EQ(c.constants.rho0, 998.0);
    EXPECT_DOUBLE_EQ(c.constants.gamma, 1.0);
    ASSERT_TRUE(c.constants.speed_of_sound.has_value());
    EXPECT_DOUBLE_EQ(*c.constants.speed_of_sound, 35.0);
    EXPECT_DOUBLE_EQ(c.constants.coefh, 1.2);
    EXPECT_DOUBLE_EQ(c.constants.cfl, 1.0);
    EXPECT_EQ(c.physics.kernel, KernelKind::cubic_spline);
    EXPECT_EQ(c.physics.viscosity, ViscosityKind::laminar);
    EXPECT_DOUBLE_EQ(c.physics.viscosity_value, 1e-6);
    EXPECT_EQ(c.physics.diffusion, DensityDiffusionKind::fourtakas);
    EXPECT_DOUBLE_EQ(c.physics.diffusion_coef, 0.0);
    EXPECT_EQ(c.physics.integrator, IntegratorKind::verlet);
    EXPECT_EQ(c.physics.verlet_reset_steps, 50);
    EXPECT_EQ(c.physics.shifting, ShiftingKind::fickian);
    EXPECT_DOUBLE_EQ(c.physics.shifting_coef, 1.5);
    EXPECT_DOUBLE_EQ(c.physics.shifting_surface, 1.2);
    EXPECT_DOUBLE_EQ(c.physics.density_min_ratio, 0.9);
    EXPECT_DOUBLE_EQ(c.physics.density_max_ratio, 1.1);
    EXPECT_EQ(c.neighbours.name(), "radix-sort/moore/0.5");
    EXPECT_DOUBLE_EQ(c.run.end_time, 3.0);
    EXPECT_DOUBLE_EQ(c.run.output_interval, 0.1);
    EXPECT_EQ(c.run.output_dir, "results/x");
}

TEST(CaseReader, DefaultDomainIsGrownBoundingBox2d) {
    // Fluid [0,1]x[0,1], obstacle [2,3]x[0,0.5], tank [0,4]x[0,2] with 2 layers of 0.1 on
    // bottom/left/right: bounding box [-0.2,4.2] x [-0.2,2], largest extent 4.4, grown 0.44.
    const Case c =
        parse_case(lines({head2, R"(<geometry dp="0.1">)", R"(<fluid min="0 0" max="1 1"/>)",
                          R"(<tank min="0 0" max="4 2" layers="2"/>)",
                          R"(<obstacle min="2 0" max="3 0.5"/>)", "</geometry>", tail}),
                   "t.xml");
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->faces, face_bottom | face_left | face_right) << "default: all but top";
    expect_point(c.domain.min, -0.2 - 0.44, 0, -0.2 - 0.44);
    expect_point(c.domain.max, 4.2 + 0.44, 0, 2 + 0.44);
}

TEST(CaseReader, DefaultDomainIsGrownBoundingBox3d) {
    // Fluid only: [0,2]x[0,1]x[0,0.5], largest extent 2, grown by 0.2.
    const Case c =
        parse_case(lines({head3, R"(<geometry dp="0.1"><fluid min="0 0 0" max="2 1 0.5"/>)",
                          "</geometry>", tail}),
                   "t.xml");
    expect_point(c.domain.min, -0.2, -0.2, -0.2);
    expect_point(c.domain.max, 2.2, 1.2, 0.7);
}

TEST(CaseReader, DefaultTankFacesIn3dAreAllButTop) {
    const Case c =
        parse_case(lines({head3, R"(<geometry dp="0.1"><fluid min="0 0 0" max="1 1 1"/>)",
                          R"(<tank min="0 0 0" max="1 1 2"/></geometry>)", tail}),
                   "t.xml");
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->faces, face_bottom | face_left | face_right | face_front | face_back);
    EXPECT_EQ(c.tank->layers, TankWalls{}.layers);
}

TEST(CaseReader, ExplicitDomainIsKept) {
    const Case c = parse_case(lines({head2, R"(<geometry dp="0.1"><fluid min="0 0" max="1 1"/>)",
                                     R"(<domain min="-1 -2" max="3 4"/></geometry>)", tail}),
                              "t.xml");
    expect_point(c.domain.min, -1, 0, -2);
    expect_point(c.domain.max, 3, 0, 4);
}

TEST(CaseReader, PointsIn2dAreXZAndIn3dXYZ) {
    const Case c2 =
        parse_case(lines({head2, R"(<geometry dp="0.1">)",
                          "<fluid min=\" 0.5   1.5 \" max=\"2e0\t+3.25\"/>", "</geometry>", tail}),
                   "t.xml");
    expect_point(c2.fluids[0].box.min, 0.5, 0, 1.5);
    expect_point(c2.fluids[0].box.max, 2, 0, 3.25);
    const Case c3 =
        parse_case(lines({head3, R"(<geometry dp="0.1">)",
                          R"(<fluid min="-1 0.5 1.5" max="2 3 4.5"/>)", "</geometry>", tail}),
                   "t.xml");
    expect_point(c3.fluids[0].box.min, -1, 0.5, 1.5);
    expect_point(c3.fluids[0].box.max, 2, 3, 4.5);
}

TEST(CaseReader, TouchingBoxesAreAllowed) {
    // Fluid against an obstacle, fluid against fluid, obstacle on the tank floor, fluid
    // exactly filling the tank, box exactly dp thick.
    EXPECT_NO_THROW(parse_case(
        lines({head2, R"(<geometry dp="0.1">)", R"(<tank min="0 0" max="2 2" faces="bottom"/>)",
               R"(<fluid min="0 0" max="1 2"/>)", R"(<fluid min="1 0" max="1.5 0.1"/>)",
               R"(<obstacle min="1.5 0" max="2 0.5"/>)", "</geometry>", tail}),
        "t.xml"));
}

TEST(CaseReader, MissingFileNamesThePath) {
    try {
        read_case("/nonexistent/case.xml");
        FAIL() << "no CaseError";
    } catch (const CaseError& e) {
        EXPECT_EQ(e.line(), 0);
        EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/case.xml: cannot open", 0), 0u)
            << e.what();
    }
}

TEST(CaseReader, ErrorFormatIsFileLineMessage) {
    try {
        parse_case(lines({head2, R"(  <geometry dp="-1">)", "</geometry>", tail}), "my/case.xml");
        FAIL() << "no CaseError";
    } catch (const CaseError& e) {
        EXPECT_EQ(e.file(), "my/case.xml");
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(std::string(e.what()), "my/case.xml:2: " + e.message());
        EXPECT_EQ(e.message(), R"(<geometry dp="-1">: out of range, must be > 0)");
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed cases: each raises CaseError at an exact line with a specific message.

struct Malformed {
    const char* name;
    std::vector<std::string> xml; ///< one string per line
    int line;
    const char* message; ///< substring of what()
};

void PrintTo(const Malformed& m, std::ostream* os) {
    *os << m.name;
}

class CaseReaderError : public testing::TestWithParam<Malformed> {};

TEST_P(CaseReaderError, ReportsLineAndMessage) {
    const Malformed& m = GetParam();
    try {
        parse_case(lines(m.xml), "bad.xml");
        FAIL() << "no CaseError for " << m.name;
    } catch (const CaseError& e) {
        const std::string what = e.what();
        const std::string prefix = "bad.xml:" + std::to_string(m.line) + ": ";
        EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
        EXPECT_NE(what.find(m.message), std::string::npos) << what;
    }
}

const std::string geom_open = R"(  <geometry dp="0.1">)";
const std::string fluid2 = R"(    <fluid min="0 0" max="1 1"/>)";
const std::string geom_close = "  </geometry>";

// clang-format off
const Malformed malformed[] = {
    // XML itself
    {"unclosed_element", {head2, geom_open, R"(    <fluid min="0 0" max="1 1">)", geom_close, tail},
     3, "malformed XML: <fluid> is not closed"},
    {"duplicate_attribute", {head2, R"(  <constants gravity="9.81")", R"(     rho0="1" gravity="1"/>)", geometry2, tail},
     3, "duplicate attribute 'gravity' in <constants>"},
    {"unquoted_attribute", {head2, R"(  <constants gravity=9.81/>)", geometry2, tail},
     2, "malformed XML: bad attribute in <constants>"},
    {"unterminated_comment", {head2, "<!-- no end", geometry2, tail}, 2, "unterminated comment"},
    {"empty_document", {""}, 1, "the file is empty"},
    {"wrong_root", {R"(<case name="t" dimension="2">)", geometry2, "</case>"}, 1, "root element is <case>, expected <sluice>"},
    {"second_root", {head2, geometry2, tail, "<sluice/>"}, 4, "<sluice> after </sluice>"},
    {"text_content", {head2, geom_open, R"(    <fluid min="0 0" max="1 1">water</fluid>)", geom_close, tail},
     3, "unexpected text 'water' in <fluid>"},
    // unknown names
    {"unknown_element_near", {head2, geom_open, R"(    <fluids min="0 0" max="1 1"/>)", geom_close, tail},
     3, "unknown element <fluids> in <geometry>; did you mean 'fluid'?"},
    {"unknown_element_far", {head2, geometry2, "  <banana/>", tail},
     3, "unknown element <banana> in <sluice> (valid: constants, geometry, physics, neighbours, run, output, gauges)"},
    {"unknown_child_of_tank", {head2, geom_open, R"(    <fluid min="0 0" max="1 1"/><tank min="0 0" max="2 2"><x/></tank>)", geom_close, tail},
     3, "unknown element <x> in <tank> (valid: motion)"},
    {"child_of_leaf", {head2, geom_open, R"(    <fluid min="0 0" max="1 1"/><domain min="-1 -1" max="2 2"><x/></domain>)", geom_close, tail},
     3, "<domain>, which takes no child elements"},
    {"child_of_region", {head2, geom_open, R"(    <fluid min="0 0" max="1 1"><x/></fluid>)", geom_close, tail},
     3, "unknown element <x> in <fluid> (valid: cylinder, sphere)"},
    {"gauge_duplicate_name", {head2, geometry2, R"(  <gauges interval="0.1"><height name="H" x="0.5"/>)", R"(    <probe name="H" point="0.5 0.5"/></gauges>)", tail},
     4, "duplicate gauge name (also at line 3)"},
    {"gauge_outside_domain", {head2, geometry2, R"(  <gauges interval="0.1">)", R"(    <probe name="P" point="5 0.5"/></gauges>)", tail},
     4, "<probe point=\"5 0.5\">: outside the domain"},
    {"gauge_height_outside", {head2, geometry2, R"(  <gauges interval="0.1"><height name="H" x="-3"/></gauges>)", tail},
     3, "<height> line at -3 lies outside the domain"},
    {"gauge_unknown_field", {head2, geometry2, R"(  <gauges interval="0.1"><probe name="P" point="0.5 0.5" fields="presure"/></gauges>)", tail},
     3, "unknown field 'presure'; did you mean 'pressure'?"},
    {"gauge_height_y_in_2d", {head2, geometry2, R"(  <gauges interval="0.1"><height name="H" x="0.5" y="0.5"/></gauges>)", tail},
     3, "unknown attribute 'y' of <height>"},
    {"gauge_front_y_in_2d", {head2, geometry2, R"(  <gauges interval="0.1"><front name="F" direction="+y"/></gauges>)", tail},
     3, "expected +x, -x, +z or -z"},
    {"gauge_no_interval", {head2, geometry2, R"(  <gauges><front name="F" direction="+x"/></gauges>)", tail},
     3, "<gauges> needs the attribute 'interval'"},
    {"gauge_empty", {head2, geometry2, R"(  <gauges interval="0.1"/>)", tail},
     3, "needs at least one <height>, <probe>, <front> or <sensor>"},
    {"sensor_off_the_wall", {head2, tank_geometry2, R"(  <gauges interval="0.1">)", R"(    <sensor name="S" point="1 0.5"/></gauges>)", tail},
     4, "<sensor point=\"1 0.5\">: not on a wall: a sensor's point lies within dp (0.1 m) of the surface of the tank or an obstacle"},
    {"sensor_negative_radius", {head2, tank_geometry2, R"(  <gauges interval="0.1"><sensor name="S" point="0 0.5" radius="-0.01"/></gauges>)", tail},
     3, "<sensor radius=\"-0.01\">: out of range"},
    {"sensor_average_word", {head2, tank_geometry2, R"(  <gauges interval="0.1"><sensor name="S" point="0 0.5" average="yes"/></gauges>)", tail},
     3, "<sensor average=\"yes\">"},
    {"sensor_without_point", {head2, tank_geometry2, R"(  <gauges interval="0.1"><sensor name="S"/></gauges>)", tail},
     3, "<sensor> needs the attribute 'point'"},
    {"gauge_bad_name", {head2, geometry2, R"(  <gauges interval="0.1"><front name="a,b" direction="+x"/></gauges>)", tail},
     3, "a gauge name is letters, digits"},
    {"unknown_attribute_near", {head2, geometry2, R"(  <run endtime="1"/>)", tail},
     3, "unknown attribute 'endtime' of <run>; did you mean 'endTime'?"},
    {"unknown_attribute_camel", {head2, geometry2, R"(  <neighbours binwidth="0.5"/>)", tail},
     3, "did you mean 'binWidth'?"},
    {"unknown_attribute_far", {head2, R"(  <constants viscosity="1"/>)", geometry2, tail},
     2, "unknown attribute 'viscosity' of <constants> (valid: gravity, rho0, gamma, coefSound, speedOfSound, coefh, cfl)"},
    {"unknown_attribute_multiline", {head2, geometry2, R"(  <physics kernel="wendland")", R"(    viscosityvalue="0.1"/>)", tail},
     4, "did you mean 'viscosityValue'?"},
    // missing required parts
    {"missing_name", {R"(<sluice dimension="2">)", geometry2, tail}, 1, "<sluice> needs the attribute 'name'"},
    {"missing_dimension", {R"(<sluice name="t">)", geometry2, tail}, 1, "<sluice> needs the attribute 'dimension'"},
    {"missing_geometry", {head2, R"(  <run endTime="1"/>)", tail}, 1, "<sluice> needs a <geometry> element"},
    {"missing_dp", {head2, "  <geometry>", fluid2, geom_close, tail}, 2, "<geometry> needs the attribute 'dp'"},
    {"missing_fluid", {head2, geom_open, R"(    <obstacle min="0 0" max="1 1"/>)", geom_close, tail},
     2, "<geometry> needs at least one <fluid>"},
    {"missing_box_corner", {head2, geom_open, R"(    <fluid min="0 0"/>)", geom_close, tail},
     3, "<fluid> needs the attribute 'max'"},
    // numbers and points
    {"not_a_number", {head2, R"(  <geometry dp="small">)", fluid2, geom_close, tail}, 2, R"(<geometry dp="small">: not a number)"},
    {"trailing_garbage", {head2, R"(  <geometry dp="0.02m">)", fluid2, geom_close, tail}, 2, "not a number (trailing 'm')"},
    {"not_finite", {head2, R"(  <constants rho0="inf"/>)", geometry2, tail}, 2, "not a finite number"},
    {"empty_number", {head2, R"(  <constants rho0=""/>)", geometry2, tail}, 2, "empty, expected a number"},
    {"not_an_integer", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" layers="2.5"/>)", geom_close, tail},
     4, R"(<tank layers="2.5">: not an integer)"},
    {"point_3_in_2d", {head2, geom_open, R"(    <fluid min="0 0 0" max="1 1"/>)", geom_close, tail},
     3, "a 2D point has 2 components \"x z\", got 3"},
    {"point_2_in_3d", {head3, geom_open, R"(    <fluid min="0 0 0" max="1 1"/>)", geom_close, tail},
     3, "a 3D point has 3 components \"x y z\", got 2"},
    {"point_bad_component", {head2, geom_open, R"(    <fluid min="0 0" max="1 1,5"/>)", geom_close, tail},
     3, "component 2 '1,5' is not a number (trailing ',5')"},
    // ranges
    {"dimension_4", {R"(<sluice name="t" dimension="4">)", geometry2, tail}, 1, "<sluice dimension=\"4\">: must be 2 or 3"},
    {"dimension_text", {R"(<sluice name="t" dimension="two">)", geometry2, tail}, 1, "<sluice dimension=\"two\">: not an integer"},
    {"bad_case_name", {R"(<sluice name="my case" dimension="2">)", geometry2, tail}, 1, "a case name is one or more letters"},
    {"dp_zero", {head2, R"(  <geometry dp="0">)", fluid2, geom_close, tail}, 2, "<geometry dp=\"0\">: out of range, must be > 0"},
    {"rho0_negative", {head2, R"(  <constants rho0="-1000"/>)", geometry2, tail}, 2, "<constants rho0=\"-1000\">: out of range, must be > 0"},
    {"gamma_zero", {head2, R"(  <constants gamma="0"/>)", geometry2, tail}, 2, "<constants gamma=\"0\">: out of range, must be > 0"},
    {"cfl_above_one", {head2, R"(  <constants cfl="1.5"/>)", geometry2, tail}, 2, "<constants cfl=\"1.5\">: out of range, must be in (0, 1]"},
    {"cfl_zero", {head2, R"(  <constants cfl="0"/>)", geometry2, tail}, 2, "must be in (0, 1]"},
    {"coefh_zero", {head2, R"(  <constants coefh="0"/>)", geometry2, tail}, 2, "<constants coefh=\"0\">: out of range, must be in (0, 4]"},
    {"coef_sound_zero", {head2, R"(  <constants coefSound="0"/>)", geometry2, tail}, 2, "<constants coefSound=\"0\">: out of range"},
    {"speed_of_sound_negative", {head2, R"(  <constants speedOfSound="-5"/>)", geometry2, tail}, 2, "<constants speedOfSound=\"-5\">: out of range"},
    {"both_sound_settings", {head2, R"(  <constants coefSound="20" speedOfSound="50"/>)", geometry2, tail}, 2, "give either coefSound or speedOfSound, not both"},
    {"gravity_negative", {head2, R"(  <constants gravity="-9.81"/>)", geometry2, tail}, 2, "out of range, must be >= 0"},
    {"layers_zero", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" layers="0"/>)", geom_close, tail},
     4, "<tank layers=\"0\">: out of range, must be >= 1"},
    {"end_time_zero", {head2, geometry2, R"(  <run endTime="0"/>)", tail}, 3, "<run endTime=\"0\">: out of range, must be > 0"},
    {"output_interval_negative", {head2, geometry2, R"(  <run outputInterval="-0.1"/>)", tail}, 3, "<run outputInterval=\"-0.1\">: out of range"},
    {"output_empty", {head2, geometry2, R"(  <run output=""/>)", tail}, 3, "<run output=\"\">: empty"},
    {"compressor_unknown", {head2, geometry2, R"(  <output compressor="gzip"/>)", tail}, 3, "unknown compressor (valid: lz4, zlib, none)"},
    {"compression_level_range", {head2, geometry2, R"(  <output level="10"/>)", tail}, 3, "<output level=\"10\">: out of range"},
    {"compression_level_none", {head2, geometry2, R"(  <output compressor="none" level="3"/>)", tail}, 3, "has no meaning with compressor=\"none\""},
    {"output_field_unknown", {head2, geometry2, R"(  <output fields="velocity speed"/>)", tail}, 3, "unknown field 'speed' (valid: velocity, density, pressure"},
    {"output_field_twice", {head2, geometry2, R"(  <output fields="pressure pressure"/>)", tail}, 3, "field 'pressure' is listed twice"},
    {"output_boundary_unknown", {head2, geometry2, R"(  <output boundary="never"/>)", tail}, 3, "unknown boundary output; did you mean 'every'? (valid: every, first)"},
    {"output_writers_zero", {head2, geometry2, R"(  <output writers="0"/>)", tail}, 3, "<output writers=\"0\">: out of range"},
    {"output_twice", {head2, geometry2, R"(  <output/>)", R"(  <output/>)", tail}, 4, "<output>"},
    {"auto_and_module", {head2, geometry2, R"(  <neighbours auto="true" binWidth="0.5"/>)", tail}, 3, "is chosen by auto=\"true\""},
    {"auto_not_boolean", {head2, geometry2, R"(  <neighbours auto="yes"/>)", tail}, 3, "(valid: true, false)"},
    {"viscosity_value_negative", {head2, geometry2, R"(  <physics viscosityValue="-0.01"/>)", tail}, 3, "must be >= 0"},
    {"diffusion_coef_negative", {head2, geometry2, R"(  <physics diffusionCoef="-1"/>)", tail}, 3, "<physics diffusionCoef=\"-1\">: out of range, must be >= 0"},
    {"density_min_above_one", {head2, geometry2, R"(  <physics densityMin="1.2"/>)", tail}, 3, "must be in (0, 1)"},
    {"density_max_below_one", {head2, geometry2, R"(  <physics densityMax="0.9"/>)", tail}, 3, "<physics densityMax=\"0.9\">: out of range, must be > 1"},
    {"verlet_reset_zero", {head2, geometry2, R"(  <physics verletReset="0"/>)", tail}, 3, "must be >= 1"},
    {"shifting_unknown", {head2, geometry2, R"(  <physics shifting="lind"/>)", tail}, 3, "unknown particle shifting (valid: none, fickian)"},
    {"shifting_coef_without_shifting", {head2, geometry2, R"(  <physics shiftingCoef="2"/>)", tail}, 3, "<physics shiftingCoef=\"2\">: applies to shifting=\"fickian\" only"},
    {"formulation_unknown", {head2, geometry2, R"(  <physics formulation="godunov"/>)", tail}, 3, "unknown formulation (valid: classical, riemann)"},
    {"riemann_with_artificial_viscosity", {head2, geometry2, R"(  <physics formulation="riemann" viscosity="artificial"/>)", tail}, 3, "dissipates through its Riemann solver"},
    {"riemann_viscosity_value_without_laminar", {head2, geometry2, R"(  <physics formulation="riemann" viscosityValue="0.01"/>)", tail}, 3, "applies to viscosity=\"laminar\" only"},
    {"riemann_limiter_classical", {head2, geometry2, R"(  <physics riemannLimiter="3"/>)", tail}, 3, "<physics riemannLimiter=\"3\">: applies to formulation=\"riemann\" only"},
    {"riemann_no_slip", {head2, geometry2, R"(  <physics formulation="riemann" boundary="mdbc" slip="noslip"/>)", tail}, 3, "sees walls through the fluid's mirrored normal velocity"},
    {"riemann_verlet", {head2, geometry2, R"(  <physics formulation="riemann" integrator="verlet"/>)", tail}, 3, "formulation=\"riemann\" needs integrator=\"symplectic\""},
    {"riemann_limiter_zero", {head2, geometry2, R"(  <physics formulation="riemann" riemannLimiter="0"/>)", tail}, 3, "out of range"},
    {"shifting_surface_at_the_interior", {head2, geometry2, R"(  <physics shifting="fickian" shiftingSurface="2"/>)", tail}, 3, "out of range, must be in (0, 2)"},
    // names of choices
    {"kernel_near_miss", {head2, geometry2, R"(  <physics kernel="wendlnd"/>)", tail},
     3, "unknown kernel; did you mean 'wendland'? (valid: wendland, cubic-spline)"},
    {"viscosity_unknown", {head2, geometry2, R"(  <physics viscosity="sps"/>)", tail}, 3, "unknown viscosity (valid: artificial, laminar)"},
    {"diffusion_unknown", {head2, geometry2, R"(  <physics diffusion="marrone"/>)", tail}, 3, "(valid: none, molteni, fourtakas, antuono)"},
    {"integrator_unknown", {head2, geometry2, R"(  <physics integrator="euler"/>)", tail}, 3, "unknown integrator (valid: symplectic, verlet)"},
    {"construction_unknown", {head2, geometry2, R"(  <neighbours construction="bucket-sort"/>)", tail},
     3, "unknown neighbour construction 'bucket-sort' (valid: counting-sort, radix-sort, linked-list, linked-list-packed, linked-list-tight)"},
    {"query_unknown", {head2, geometry2, R"(  <neighbours query="cells"/>)", tail}, 3, "unknown neighbour query 'cells' (valid: moore, strips, chords, modular, hybrid)"},
    {"bin_width_above_one", {head2, geometry2, R"(  <neighbours binWidth="1.5"/>)", tail}, 3, "binWidth '1.5' is not a number in (0, 1]"},
    {"layout_unknown", {head2, geometry2, R"(  <neighbours layout="sorted"/>)", tail}, 3, "unknown neighbour layout 'sorted' (valid: reorder, index)"},
    {"linked_list_needs_bin_by_bin", {head2, geometry2, R"(  <neighbours construction="linked-list" query="hybrid"/>)", tail}, 3, "neighbour query 'hybrid' cannot walk a linked-list"},
    // faces
    {"faces_front_in_2d", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" faces="bottom front"/>)", geom_close, tail},
     4, "face 'front' exists only in 3D"},
    {"faces_empty", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" faces="  "/>)", geom_close, tail},
     4, "empty faces list"},
    {"faces_unknown_near", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" faces="botom left"/>)", geom_close, tail},
     4, "unknown face 'botom'; did you mean 'bottom'?"},
    {"faces_unknown_far", {head3, geom_open, R"(    <fluid min="0 0 0" max="1 1 1"/>)", R"(    <tank min="0 0 0" max="1 1 1" faces="floor"/>)", geom_close, tail},
     4, "unknown face 'floor' (valid: bottom top left right front back)"},
    {"faces_twice", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" faces="left left"/>)", geom_close, tail},
     4, "face 'left' is listed twice"},
    // boxes
    {"box_inverted", {head2, geom_open, R"(    <fluid min="0 1" max="1 0.5"/>)", geom_close, tail},
     3, "<fluid> is empty: on z min = 1 is not below max = 0.5"},
    {"box_flat", {head3, geom_open, R"(    <obstacle min="0 0 0" max="1 0 1"/>)", R"(    <fluid min="2 2 2" max="3 3 3"/>)", geom_close, tail},
     3, "<obstacle> is empty: on y"},
    {"box_thinner_than_dp", {head2, geom_open, R"(    <fluid min="0 0" max="1 0.05"/>)", geom_close, tail},
     3, "<fluid> is 0.05 m thick on z, thinner than dp = 0.1 m: it holds no particle"},
    {"domain_inverted", {head2, geom_open, fluid2, R"(    <domain min="2 2" max="-1 -1"/>)", geom_close, tail},
     4, "<domain> is empty: on x"},
    // duplicates and overlaps
    {"second_tank", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1"/>)", R"(    <tank min="0 0" max="1 1"/>)", geom_close, tail},
     5, "second <tank> in <geometry> (the first is at line 4)"},
    {"second_domain", {head2, geom_open, fluid2, R"(    <domain min="-1 -1" max="2 2"/>)", R"(    <domain min="-1 -1" max="2 2"/>)", geom_close, tail},
     5, "second <domain> in <geometry>"},
    {"second_constants", {head2, "  <constants/>", geometry2, "  <constants/>", tail}, 4, "second <constants> in <sluice> (the first is at line 2)"},
    {"second_physics", {head2, geometry2, "  <physics/>", "  <physics/>", tail}, 4, "second <physics>"},
    {"second_geometry", {head2, geometry2, geometry2, tail}, 3, "second <geometry>"},
    {"fluid_overlaps_obstacle", {head2, geom_open, fluid2, R"(    <obstacle min="0.5 0.5" max="2 2"/>)", geom_close, tail},
     3, "<fluid> overlaps the <obstacle> at line 4"},
    {"fluid_overlaps_fluid", {head2, geom_open, fluid2, R"(    <fluid min="0.5 0.5" max="2 2"/>)", geom_close, tail},
     4, "<fluid> overlaps the <fluid> at line 3"},
    {"fluid_outside_tank", {head2, geom_open, R"(    <tank min="0 0" max="2 2"/>)", R"(    <fluid min="1 0" max="3 1"/>)", geom_close, tail},
     4, "reaches outside the tank interior [0 0] .. [2 2] (<tank> at line 3)"},
    {"domain_misses_fluid", {head2, geom_open, fluid2, R"(    <domain min="0.1 0" max="2 2"/>)", geom_close, tail},
     4, "<domain> [0.1 0] .. [2 2] does not contain the <fluid> [0 0] .. [1 1] at line 3"},
    {"domain_misses_walls", {head2, geom_open, fluid2, R"(    <tank min="0 0" max="1 1" layers="3"/>)", R"(    <domain min="-0.1 -0.1" max="2 2"/>)", geom_close, tail},
     5, "does not contain the tank walls [-0.3 -0.3] .. [1.3 1]"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Malformed, CaseReaderError, testing::ValuesIn(malformed),
                         [](const testing::TestParamInfo<Malformed>& info) {
                             return std::string(info.param.name);
                         });

} // namespace
} // namespace sluice
