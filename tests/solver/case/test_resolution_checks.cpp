// What a resolution can resolve and what the grid can hold (case/resolution_checks.h), and the
// magnitudes the reader bounds: each absurd or unresolvable case found by the fuzzing campaign of
// issue 37 is refused by the reader at the line of the element at fault, where before it passed
// `sluice check` and failed later with an internal error, undefined behaviour or lost water.

#include "case/case_reader.h"
#include "case/resolution_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

/// A 2D tank 1.5 × 1 m (3 layers, dp 0.05) with water 0.5 × 0.5 m: the <geometry> opens at line
/// 2, `geometry` goes on line 3 (after the fluid on line 4 and the tank on line 5 when it is a
/// single line: keep it to one line), `after` follows </geometry> on line 8.
std::string tank_case(const std::string& geometry, const std::string& after = "",
                      const std::string& dp = "0.05") {
    return "<sluice name=\"t\" dimension=\"2\">\n" // 1
           "  <geometry dp=\"" +                   // 2
           dp +
           "\">\n    " + geometry + "\n" +                                                    // 3
           "    <fluid min=\"0 0\" max=\"0.5 0.5\"/>\n"                                       // 4
           "    <tank min=\"0 0\" max=\"1.5 1\" faces=\"bottom left right\" layers=\"3\"/>\n" // 5
           "  </geometry>\n"                                                                  // 6
           "  <run endTime=\"1\"/>\n    " +                                                   // 7
           after +
           "\n</sluice>\n"; // 8
}

/// Expects parse_case to refuse `xml` with "t.xml:LINE: ..." whose message contains `words`.
void expect_refused(const std::string& xml, int line, const std::string& words,
                    const CaseOverrides& overrides = {}) {
    try {
        (void)parse_case(xml, "t.xml", overrides);
        ADD_FAILURE() << "accepted:\n" << xml;
    } catch (const CaseError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(e.message().find(words), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).rfind("t.xml:" + std::to_string(line) + ": ", 0), 0u)
            << e.what();
    }
}

std::string moving(const std::string& segment) {
    return "<obstacle min=\"1 0\" max=\"1.15 0.3\"><motion>" + segment + "</motion></obstacle>";
}

TEST(ResolutionChecks, AbsurdMotionsAreRefusedAtTheirLine) {
    // Before: `check` said valid and the run stopped at the grid ("grid box is empty, inverted
    // or not finite", exit 1). Each now fails at line 3, where the motion is.
    for (const char* segment :
         {R"(<rectilinear velocity="1e308 0"/>)",
          R"(<rectilinear velocity="0 0" acceleration="1e308 0"/>)",
          R"(<rotation point="1e308 0" velocity="10"/>)",
          R"(<rotation point="1 0" velocity="1e308"/>)",
          R"(<sinusoidal amplitude="1e308 0" period="1"/>)",
          R"(<sinusoidal point="1 0" angle="1e308" period="1"/>)",
          R"(<wavemaker type="flap" depth="0.5" height="0.05" period="1" point="1e308 0"/>)"})
        expect_refused(tank_case(moving(segment)), 3, "");
    // The same with a domain given: walls faster than sound.
    expect_refused(tank_case("<domain min=\"-1 -1\" max=\"3 3\"/>" +
                             moving(R"(<sinusoidal amplitude="1e308 0" period="1"/>)")),
                   3, "speed of sound");
}

TEST(ResolutionChecks, WavesAboveTheBreakingLimitAreRefused) {
    // Miche (1944): H <= 0.142 L tanh(kd); 0.171 m for T = 1 s in 0.3 m of water.
    expect_refused(
        tank_case(moving(R"(<wavemaker type="piston" depth="0.3" height="1e6" period="1"/>)")), 3,
        "breaking limit");
    expect_refused(
        tank_case(moving(R"(<wavemaker type="piston" depth="1e-300" height="0.05" period="1"/>)")),
        3, "breaking limit");
    expect_refused(
        tank_case(
            moving(R"(<wavemaker type="piston" waves="jonswap" depth="0.5" hs="1e308" tp="1"/>)")),
        3, "breaking limit");
}

TEST(ResolutionChecks, DomainsTheGridCannotHoldAreRefusedAtTheDomain) {
    expect_refused(tank_case(R"(<domain min="-1 -1" max="1e39 1"/>)"), 3, "not finite");
    expect_refused(tank_case(R"(<domain min="-1 -1" max="1e20 1"/>)"), 3, "bins");
    // Far from the origin 32-bit positions cannot resolve a step's motion.
    expect_refused(tank_case(R"(<domain min="-1 -1" max="5000 1"/>)"), 3, "32-bit positions");
}

TEST(ResolutionChecks, SensorFacesLieOnTheirWall) {
    const std::string sensor =
        R"(<gauges interval="0.01"><sensor name="S" point="1.5 0.1" radius=")";
    expect_refused(tank_case("", sensor + "1e308\"/></gauges>"), 8, "off its wall");
    expect_refused(tank_case("", sensor + "1000\"/></gauges>"), 8, "off its wall");
    // A 0.5 m face on a 0.3 m wall.
    expect_refused(
        tank_case(
            R"(<obstacle min="1 0" max="1.3 0.3"/>)",
            R"(<gauges interval="0.01"><sensor name="S" point="1.15 0.3" radius="0.5"/></gauges>)"),
        8, "off its wall");
    // A face that fits is accepted.
    const Case c = parse_case(tank_case("", sensor + "0.05\"/></gauges>"), "t.xml");
    EXPECT_EQ(c.gauges.gauges.at(0).radius, 0.05);
}

/// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
}

TEST(ResolutionChecks, ShiftingMomentPointsSpeedsAndConstantsAreBounded) {
    expect_refused(tank_case("", R"(<physics shifting="fickian" shiftingCoef="1e308"/>)"), 8,
                   "(0, 10]");
    expect_refused(
        tank_case(R"(<obstacle name="o" min="1 0" max="1.15 0.3" momentPoint="1e308 0"/>)"), 3,
        "outside the domain");
    expect_refused(
        replaced(tank_case(""), R"(max="0.5 0.5"/>)", R"(max="0.5 0.5" velocity="1e308 0"/>)"), 4,
        "speed of sound");
    // No gravity and no speedOfSound: c0 = 0 (before: an internal error at particle generation).
    expect_refused(
        replaced(tank_case(""), R"(dimension="2">)", R"(dimension="2"><constants gravity="0"/>)"),
        1, "speed of sound");
    expect_refused(
        replaced(tank_case(""), R"(dimension="2">)", R"(dimension="2"><constants rho0="1e300"/>)"),
        1, "32-bit floats");
}

TEST(ResolutionChecks, WallsNeedTheLayersTheKernelReaches) {
    // 2D, coefh = 1: 2h = 2.83 dp, so 2 layers; a 1-layer obstacle and a 1-layer tank are thin.
    expect_refused(tank_case(R"(<obstacle min="1 0" max="1.05 0.3"/>)"), 3, "at least 2 layers");
    EXPECT_NO_THROW(parse_case(tank_case(R"(<obstacle min="1 0" max="1.1 0.3"/>)"), "t.xml"));
    std::string thin = tank_case("");
    thin.replace(thin.find("layers=\"3\""), 10, "layers=\"1\"");
    expect_refused(thin, 5, "at least 2 layers");
    EXPECT_EQ(required_wall_layers(parse_case(tank_case(""), "t.xml")), 2);
}

TEST(ResolutionChecks, DpOverrideThatBreaksTheFlumeIsRefusedAtThePaddle) {
    // The shipped flume at twice its spacing: the paddle (line 30) would be 2 layers where the
    // kernel (coefh = 1.5) needs 4.
    const std::string flume = SLUICE_CASES_DIR "/wave_flume2d.xml";
    CaseOverrides coarse;
    coarse.dp = 0.032;
    try {
        (void)read_case(flume, coarse);
        ADD_FAILURE() << "--dp 0.032 accepted";
    } catch (const CaseError& e) {
        EXPECT_EQ(e.line(), 30) << e.what();
        EXPECT_NE(e.message().find("from --dp"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_case(flume).dp, 0.016);
    CaseOverrides fine;
    fine.dp = 0.008;
    EXPECT_EQ(read_case(flume, fine).dp, 0.008);
}

TEST(ResolutionChecks, TankWallsCloseTheirCornersOnWholeSpacings) {
    // 1.5 m at dp 0.05 is 30 spacings; at 0.04, 37.5: the floor's lattice ends 0.02 m short of
    // the right face, where the right wall's corner fill begins, a gap the water leaks through.
    EXPECT_NO_THROW(parse_case(tank_case(""), "t.xml"));
    CaseOverrides misfit;
    misfit.dp = 0.04;
    expect_refused(tank_case(""), 5, "37.5 spacings", misfit);
    // Within dp/4 is whole: 1.5 m at 0.0497 is 30.18 spacings.
    misfit.dp = 0.0497;
    EXPECT_NO_THROW(parse_case(tank_case(""), "t.xml", misfit));
    // Only where the max face meets another wall: an open right side leaves x free.
    std::string open = tank_case("");
    open.replace(open.find("bottom left right"), 17, "bottom left");
    misfit.dp = 0.04;
    EXPECT_NO_THROW(parse_case(open, "t.xml", misfit));
    // A bench times steps of any spacing.
    misfit.tank_lattice = false;
    EXPECT_NO_THROW(parse_case(tank_case(""), "t.xml", misfit));
}

TEST(ResolutionChecks, WaveMakerDepthMatchesTheLatticeWater) {
    // A piston before water 0.4 m deep at dp 0.02 (20 rows): depth 0.4 agrees; at dp 0.032 the
    // lattice holds 12 rows, 0.384 m, more than dp/4 off.
    const std::string flume = R"(<sluice name="f" dimension="2">
  <geometry dp="0.02">
    <fluid min="0.16 0" max="3 0.4"/>
    <tank min="0 0" max="3 0.8" faces="bottom right" layers="4"/>
    <obstacle min="0.032 0" max="0.16 0.8"><motion>
      <wavemaker type="piston" depth="0.4" height="0.04" period="1.2"/>
    </motion></obstacle>
  </geometry>
</sluice>
)";
    EXPECT_NO_THROW(parse_case(flume, "f.xml"));
    CaseOverrides coarse;
    coarse.dp = 0.032;
    try {
        (void)parse_case(flume, "f.xml", coarse);
        ADD_FAILURE() << "accepted at dp 0.032";
    } catch (const CaseError& e) {
        EXPECT_EQ(e.line(), 6) << e.what();
        EXPECT_NE(e.message().find("0.384 m deep"), std::string::npos) << e.what();
    }
    std::string shallow = flume;
    shallow.replace(shallow.find("depth=\"0.4\""), 11, "depth=\"0.5\"");
    EXPECT_THROW(parse_case(shallow, "f.xml"), CaseError);
}

TEST(ResolutionChecks, EndTimeOverrideGrowsTheDefaultDomainAroundTheSweep) {
    // An obstacle pushed at 0.5 m/s: to 1 s the default domain holds it; to 4 s as well, since
    // --end-time goes through the reader and the domain is made around the longer sweep.
    const std::string xml = tank_case(moving(R"(<rectilinear velocity="0.5 0"/>)"));
    const Case one = parse_case(xml, "t.xml");
    CaseOverrides longer;
    longer.end_time = 4.0;
    const Case four = parse_case(xml, "t.xml", longer);
    EXPECT_EQ(four.run.end_time, 4.0);
    EXPECT_GT(four.domain.max.x(), 1.15 + 0.5 * 4.0);
    EXPECT_LT(one.domain.max.x(), four.domain.max.x());
}

} // namespace
} // namespace sluice
