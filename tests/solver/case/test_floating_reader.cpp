// The case reader's part for floating objects (case/floating_reader.cpp): <floating> with its
// attributes, <hinge> and <spring> read into the model with their units and defaults, and every
// refusal at its own line with a message naming the problem; the mass properties a body gets
// from its shape (case/body_table.h) and the level at which it floats; which of a body's
// particles are buried in it (BodyTables::buried, skipped by the BodyLoads pass).

#include "case/body_table.h"
#include "case/case_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace {

std::string lines(const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls)
        out += l + "\n";
    return out;
}

/// A 2D case whose obstacle 'box' (line 4) floats with <floating> on line 5 (`floating`), and
/// `children` inside it from line 6; a second obstacle 'other' follows.
std::vector<std::string> floating_2d(const std::string& floating,
                                     const std::vector<std::string>& children = {},
                                     const std::string& other = R"(<floating mass="1"/>)") {
    std::vector<std::string> out = {R"(<sluice name="t" dimension="2">)",
                                    R"(  <geometry dp="0.05">)",
                                    R"(    <fluid min="0 0" max="0.3 0.3"/>)",
                                    R"(    <obstacle name="box" min="0.4 0.4" max="0.8 0.6">)"};
    if (children.empty()) {
        out.push_back("      " + floating);
    } else {
        out.push_back("      " + floating.substr(0, floating.size() - 2) + ">");
        for (const auto& c : children)
            out.push_back("        " + c);
        out.push_back("      </floating>");
    }
    out.insert(out.end(),
               {"    </obstacle>", R"(    <obstacle name="other" min="1.2 0.4" max="1.4 0.6">)",
                "      " + other, "    </obstacle>", "  </geometry>", "</sluice>"});
    return out;
}

std::vector<std::string> floating_3d(const std::string& floating) {
    return {R"(<sluice name="t" dimension="3">)",
            R"(  <geometry dp="0.05">)",
            R"(    <fluid min="0 0 0" max="0.3 1 0.3"/>)",
            R"(    <obstacle name="box" min="0.4 0.2 0.4" max="0.8 0.6 0.6">)",
            "      " + floating,
            "    </obstacle>",
            "  </geometry>",
            "</sluice>"};
}

void expect_error(const std::vector<std::string>& ls, int line, const std::string& message) {
    try {
        parse_case(lines(ls), "case.xml");
        ADD_FAILURE() << "no CaseError; expected '" << message << "'";
    } catch (const CaseError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("case.xml:" + std::to_string(line) + ": ", 0), 0u) << what;
        EXPECT_NE(what.find(message), std::string::npos) << what;
    }
}

TEST(FloatingReader, ReadsEveryAttributeIn2d) {
    const Case c = parse_case(
        lines(floating_2d(R"(<floating mass="40" center="0.6 0.45" inertia="0.7" )"
                          R"(velocity="0.1 -0.2" angularVelocity="0.3" fixed="x" start="0.25" )"
                          R"(restitution="0.8"/>)",
                          {R"(<spring point="0.6 0.4" anchor="0.6 0" stiffness="50" )"
                           R"(damping="2" length="0.3" slack="true"/>)",
                           R"(<spring point="0.8 0.5" body="other" bodyPoint="1.2 0.5" )"
                           R"(stiffness="10"/>)"})),
        "case.xml");
    const Floating& f = c.obstacles[0].object.floating.value();
    EXPECT_EQ(*f.mass, 40.0);
    EXPECT_FALSE(f.density);
    EXPECT_EQ(*f.center, Eigen::Vector3d(0.6, 0.0, 0.45));
    EXPECT_EQ((*f.inertia)(1, 1), 0.7);
    EXPECT_EQ(f.velocity, Eigen::Vector3d(0.1, 0.0, -0.2));
    EXPECT_EQ(f.angular_velocity, Eigen::Vector3d(0.0, 0.3, 0.0));
    // x as asked, and what a 2D body never has: y, and rotations about x and z.
    EXPECT_EQ(f.fixed, fixed_x | fixed_y | fixed_rx | fixed_rz);
    EXPECT_EQ(f.start, 0.25);
    EXPECT_EQ(f.restitution, 0.8);
    ASSERT_EQ(f.springs.size(), 2u);
    EXPECT_EQ(*f.springs[0].anchor, Eigen::Vector3d(0.6, 0.0, 0.0));
    EXPECT_EQ(*f.springs[0].rest_length, 0.3);
    EXPECT_TRUE(f.springs[0].slack);
    EXPECT_EQ(f.springs[0].line, 6);
    EXPECT_EQ(f.springs[1].body, "other");
    EXPECT_FALSE(f.springs[1].rest_length); // the distance at t = 0
    EXPECT_EQ(f.springs[1].damping, 0.0);
}

TEST(FloatingReader, DensityGivesTheShapesMassCentreAndInertia) {
    // The 0.4 × 0.2 m box of density 500: 40 kg/m, centre (0.6, 0.5), I = M (a² + b²)/12.
    const Case c = parse_case(lines(floating_2d(R"(<floating density="500"/>)")), "case.xml");
    const BodyMass m = body_mass(c, c.obstacles[0]);
    EXPECT_NEAR(m.mass, 40.0, 1e-12);
    EXPECT_NEAR((m.center - Eigen::Vector3d(0.6, 0.0, 0.5)).norm(), 0.0, 1e-12);
    EXPECT_NEAR(m.inertia(1, 1), 40.0 * (0.16 + 0.04) / 12.0, 1e-12);
    // Archimedes in water of 1000 kg/m³: draft 0.1 m below the box's bottom at 0.4.
    EXPECT_NEAR(*floating_level(c, c.obstacles[0], m), 0.5, 1e-9);
    // A given centre moves the shape's inertia by the parallel-axis theorem.
    const Case shifted = parse_case(
        lines(floating_2d(R"(<floating density="500" center="0.6 0.45"/>)")), "case.xml");
    const BodyMass s = body_mass(shifted, shifted.obstacles[0]);
    EXPECT_NEAR(s.inertia(1, 1), m.inertia(1, 1) + 40.0 * 0.05 * 0.05, 1e-12);
    // Denser than water: it sinks.
    const Case heavy = parse_case(lines(floating_2d(R"(<floating density="1200"/>)")), "case.xml");
    EXPECT_FALSE(floating_level(heavy, heavy.obstacles[0], body_mass(heavy, heavy.obstacles[0])));
}

/// The body particles of `t` that are buried, by id.
int buried_count(const BodyTables& t) {
    int n = 0;
    for (std::uint8_t b : t.buried)
        n += b;
    return n;
}

TEST(FloatingReader, BuriedParticlesAreThoseBeyondReachOfTheSurface) {
    // A 0.8 × 0.8 m box at dp = 0.02 m: 40 × 40 particles. Reach 2h + dp = 0.0766 m (h =
    // √2 dp): a particle is buried when the three beyond it on every side are the body's, the
    // middle 34 × 34.
    const std::vector<std::string> solid = {
        R"(<sluice name="t" dimension="2">)",
        R"(  <geometry dp="0.02">)",
        R"(    <fluid min="0 0" max="0.3 0.3"/>)",
        R"(    <obstacle name="box" min="0.4 0.4" max="1.2 1.2">)",
        R"(      <floating density="500"/>)",
        R"(    </obstacle>)",
        R"(  </geometry>)",
        R"(</sluice>)"};
    const auto tables = [](const std::vector<std::string>& ls) {
        const Case c = parse_case(lines(ls), "case.xml");
        std::vector<ObjectIds> objects;
        const std::vector<Eigen::Vector3d> reference = boundary_positions(c, &objects);
        return std::make_pair(make_body_tables(c, reference, objects), reference);
    };
    const auto [t, reference] = tables(solid);
    ASSERT_EQ(t.bodies.size(), 1u);
    ASSERT_EQ(t.bodies[0].id_count, 1600u);
    EXPECT_EQ(buried_count(t), 34 * 34);
    for (std::uint32_t id = t.bodies[0].first_id; id < t.buried.size(); ++id) {
        const Eigen::Vector3d& x = reference[id];
        const double depth = std::min({x.x() - 0.4, 1.2 - x.x(), x.z() - 0.4, 1.2 - x.z()});
        // The outer layer lies dp/2 in; three more spacings beyond it.
        EXPECT_EQ(t.buried[id] != 0, depth > 0.01 + 3 * 0.02 - 1e-9) << x.transpose();
    }
    // A shell of three layers has none buried.
    std::vector<std::string> shell = solid;
    shell[3] = R"(    <obstacle name="box" min="0.4 0.4" max="1.2 1.2" layers="3">)";
    EXPECT_EQ(buried_count(tables(shell).first), 0);
}

TEST(FloatingReader, ReadsA3dBodyWithAHinge) {
    const Case c =
        parse_case(lines(floating_3d(R"(<floating mass="2" inertia="1 2 2.5 0.1 0 0"><hinge )"
                                     R"(point="0.4 0.2 0.4" axis="0 2 0"/></floating>)")),
                   "case.xml");
    const Floating& f = c.obstacles[0].object.floating.value();
    EXPECT_EQ((*f.inertia)(0, 1), 0.1);
    EXPECT_EQ((*f.inertia)(1, 0), 0.1);
    ASSERT_TRUE(f.hinge);
    EXPECT_EQ(f.hinge->axis, Eigen::Vector3d(0.0, 1.0, 0.0)); // normalised
}

TEST(FloatingReader, RefusesWhatIsNoBody) {
    expect_error(floating_2d(R"(<floating/>)"), 5, "exactly one of 'mass'");
    expect_error(floating_2d(R"(<floating mass="1" density="2"/>)"), 5, "exactly one of 'mass'");
    expect_error(floating_2d(R"(<floating mass="-1"/>)"), 5, "out of range");
    expect_error(floating_2d(R"(<floating mass="1" inertia="0"/>)"), 5,
                 "inertia of the <obstacle> at line 4 must be positive");
    expect_error(floating_2d(R"(<floating mass="1" inertia="1 2"/>)"), 5, "one number");
    expect_error(floating_2d(R"(<floating mass="1" fixed="x rx"/>)"), 5,
                 "unknown degree of freedom 'rx'");
    expect_error(floating_2d(R"(<floating mass="1" restitution="0"/>)"), 5, "out of range");
    expect_error(floating_2d(R"(<floating mass="1" center="9 9"/>)"), 5,
                 "centre of mass of the <obstacle> at line 4 lies outside the domain");
    // Magnitudes no step can integrate (units mistaken): the mean density, the inertia against
    // M L², a start faster than a tenth of c0.
    expect_error(floating_2d(R"(<floating density="1e9"/>)"), 5, "times the fluid it displaces");
    expect_error(floating_2d(R"(<floating mass="1e-6"/>)"), 5, "times the fluid it displaces");
    expect_error(floating_2d(R"(<floating mass="1" inertia="1e6"/>)"), 5, "far from its mass");
    expect_error(floating_2d(R"(<floating mass="1" velocity="1e3 0"/>)"), 5,
                 "a tenth of the speed of sound");
    expect_error(floating_2d(R"(<floating mass="1" angularVelocity="1e4"/>)"), 5,
                 "a tenth of the speed of sound");
    expect_error(floating_3d(R"(<floating mass="1" fixed="rx"/>)"), 5,
                 "two free rotations about world axes");
    // Each word of a list is read from the attribute's own text (a fuzz seed once read it
    // from freed memory).
    expect_error(floating_3d(R"(<floating mass="1" inertia="0.008 0.008 0.008 0 0 zero"/>)"), 5,
                 "'zero' is");
    expect_error(floating_3d(R"(<floating mass="1" fixed="rx ry rq"/>)"), 5,
                 "unknown degree of freedom 'rq'");
    expect_error(floating_3d(R"(<floating mass="1" inertia="1 1 3"/>)"), 5, "no rigid body's");
    expect_error(floating_3d(R"(<floating mass="1"><hinge point="0.4 0.2 0.4" axis="0 0 0"/>)"
                             R"(</floating>)"),
                 5, "zero vector");
}

TEST(FloatingReader, RefusesSpringsAndObjectsThatDoNotFit) {
    expect_error(
        floating_2d(R"(<floating mass="1"/>)", {R"(<spring point="0.6 0.4" stiffness="1"/>)"}), 6,
        "exactly one of 'anchor'");
    expect_error(floating_2d(R"(<floating mass="1"/>)",
                             {R"(<spring point="0.6 0.4" body="nobody" bodyPoint="1 1" )"
                              R"(stiffness="1"/>)"}),
                 6, "'nobody' is no floating object");
    expect_error(floating_2d(R"(<floating mass="1"/>)",
                             {R"(<spring point="0.6 0.4" body="box" bodyPoint="0.6 0.5" )"
                              R"(stiffness="1"/>)"}),
                 6, "to itself");
    expect_error(
        floating_2d(R"(<floating mass="1"/>)", {R"(<spring point="0.6 0.4" anchor="0 0"/>)"}), 6,
        "needs the attribute 'stiffness'");
    // A spring the step cannot follow (mass 1 kg/m: k = 1e9 N/m gives a 0.2 ms period).
    expect_error(floating_2d(R"(<floating mass="1"/>)",
                             {R"(<spring point="0.6 0.4" anchor="0 0" stiffness="1e9"/>)"}),
                 6, "too stiff for the step");
    expect_error(floating_2d(R"(<floating mass="1"/>)",
                             {R"(<spring point="0.6 0.4" anchor="0 0" stiffness="1" )"
                              R"(damping="1e8"/>)"}),
                 6, "too strong for the step");
    expect_error(floating_2d(R"(<floating mass="1" fixed="x"/>)", {R"(<hinge point="0.6 0.4"/>)"}),
                 6, "leave out <floating fixed>");
    // A body needs a name (its columns), and cannot also follow a motion.
    std::vector<std::string> unnamed = floating_2d(R"(<floating mass="1"/>)");
    unnamed[3] = R"(    <obstacle min="0.4 0.4" max="0.8 0.6">)";
    expect_error(unnamed, 5, "needs a name");
    std::vector<std::string> moving = floating_2d(R"(<floating mass="1"/>)");
    moving.insert(moving.begin() + 5, R"(      <motion><rectilinear velocity="1 0"/></motion>)");
    expect_error(moving, 5, "has a <motion> and a <floating>");
}

} // namespace
} // namespace sluice
