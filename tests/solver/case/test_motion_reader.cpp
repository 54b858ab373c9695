// The case reader's part for moving boundaries (case/motion_reader.cpp): object names and moment
// points, every <motion> segment kind with its units (degrees in the file, radians in the model)
// and defaults, CSV motion files beside the case, wave makers, damping zones, and the errors, each
// at its exact line with a message naming the problem; the domain against the objects' sweep.

#include "case/case_reader.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace sluice {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180.0;

/// Joins lines with '\n': line k of the document is element k-1.
std::string lines(const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls)
        out += l + "\n";
    return out;
}

void expect_point(const Eigen::Vector3d& p, double x, double y, double z) {
    EXPECT_DOUBLE_EQ(p.x(), x);
    EXPECT_DOUBLE_EQ(p.y(), y);
    EXPECT_DOUBLE_EQ(p.z(), z);
}

const std::string head2 = R"(<sluice name="t" dimension="2">)";
const std::string head3 = R"(<sluice name="t" dimension="3">)";
const std::string tail = "</sluice>";

/// A 2D case whose obstacle (line 4, <motion> at line 5) has the given segments (lines 6, 7, …),
/// with `after` following </geometry>.
std::vector<std::string> moving_2d(const std::vector<std::string>& segments,
                                   const std::vector<std::string>& after = {}) {
    std::vector<std::string> out = {
        head2, R"(  <geometry dp="0.05">)", R"(    <fluid min="0.5 0" max="1.5 0.3"/>)",
        R"(    <obstacle min="0.1 0" max="0.2 0.5">)", "      <motion>"};
    for (const auto& s : segments)
        out.push_back("        " + s);
    out.insert(out.end(), {"      </motion>", "    </obstacle>", "  </geometry>"});
    out.insert(out.end(), after.begin(), after.end());
    out.push_back(tail);
    return out;
}

/// The same in 3D (the obstacle spans y = 0 … 1).
std::vector<std::string> moving_3d(const std::vector<std::string>& segments) {
    std::vector<std::string> out = {
        head3, R"(  <geometry dp="0.05">)", R"(    <fluid min="0.5 0 0" max="1.5 1 0.3"/>)",
        R"(    <obstacle min="0.1 0 0" max="0.2 1 0.5">)", "      <motion>"};
    for (const auto& s : segments)
        out.push_back("        " + s);
    out.insert(out.end(), {"      </motion>", "    </obstacle>", "  </geometry>", tail});
    return out;
}

const std::vector<MotionSegment>& segments_of(const Case& c, std::size_t obstacle = 0) {
    return c.obstacles.at(obstacle).object.motion.value().segments;
}

/// A fixture whose case files lie in a fresh folder, beside the CSV files they name.
class MotionReader : public test::TempFolderTest {
protected:
    MotionReader() : TempFolderTest("sluice_motion_reader_") {}

    std::string case_file() const { return (root_ / "case.xml").string(); }
    void write(const std::string& name, const std::string& text) const {
        std::filesystem::create_directories((root_ / name).parent_path());
        std::ofstream(root_ / name) << text;
    }
    Case parse(const std::vector<std::string>& ls) const {
        return parse_case(lines(ls), case_file());
    }
    /// The document fails at `line` ("case.xml:<line>: " first) with `message` in the text.
    void expect_error(const std::vector<std::string>& ls, int line,
                      const std::string& message) const {
        try {
            parse(ls);
            ADD_FAILURE() << "no CaseError; expected '" << message << "'";
        } catch (const CaseError& e) {
            const std::string what = e.what();
            const std::string prefix = case_file() + ":" + std::to_string(line) + ": ";
            EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
            EXPECT_NE(what.find(message), std::string::npos) << what;
        }
    }
};

// ---------------------------------------------------------------------------------------------
// What is read.

TEST_F(MotionReader, EverySegmentKindIn2d) {
    write("move.csv", "# the paddle's path\ntime,x,z\n3, 0, 0\n3.5;0.01;0\n4 0.02 0.01\n");
    write("data/turn.csv", "time angle\n4 0\n5 30\n");
    const Case c = parse({
        head2,
        R"(  <geometry dp="0.05">)",
        R"(    <fluid min="0.5 0" max="1.5 0.3"/>)",
        R"(    <obstacle name="paddle" momentPoint="0.15 0" min="0.1 0" max="0.2 0.5">)",
        R"(      <motion>)",
        R"(        <rectilinear end="0.5" velocity="0.1 0.2" acceleration="0 -0.4"/>)",
        R"(        <rotation end="1" point="0.15 0" velocity="90" acceleration="-45"/>)",
        R"(        <sinusoidal start="1.5" end="2.5" amplitude="0.02 0" period="0.5" phase="90"/>)",
        R"(        <sinusoidal end="3" point="0.15 0" angle="10" period="0.25"/>)",
        R"(        <file end="4" path="move.csv"/>)",
        R"(        <file end="5" path="data/turn.csv" point="0.15 0"/>)",
        R"(      </motion>)",
        R"(    </obstacle>)",
        R"(  </geometry>)",
        R"(  <run endTime="6"/>)",
        tail,
    });
    ASSERT_EQ(c.obstacles.size(), 1u);
    const ObjectProperties& o = c.obstacles[0].object;
    EXPECT_EQ(o.name, "paddle");
    ASSERT_TRUE(o.moment_point.has_value());
    expect_point(*o.moment_point, 0.15, 0.0, 0.0);
    ASSERT_TRUE(o.motion.has_value());
    EXPECT_EQ(o.motion->line, 5);
    const std::vector<MotionSegment>& s = o.motion->segments;
    ASSERT_EQ(s.size(), 6u);
    for (std::size_t k = 0; k < s.size(); ++k)
        EXPECT_EQ(s[k].line, 6 + static_cast<int>(k));

    // start defaults to 0 for the first, to the previous end after it
    EXPECT_EQ(s[0].start, 0.0);
    EXPECT_EQ(s[0].end, 0.5);
    const auto& slide = std::get<RectilinearMotion>(s[0].motion);
    expect_point(slide.velocity, 0.1, 0.0, 0.2); // 2D "x z" is (x, 0, z)
    expect_point(slide.acceleration, 0.0, 0.0, -0.4);

    EXPECT_EQ(s[1].start, 0.5);
    EXPECT_EQ(s[1].end, 1.0);
    const auto& turn = std::get<RotationMotion>(s[1].motion);
    expect_point(turn.point, 0.15, 0.0, 0.0);
    expect_point(turn.axis, 0.0, 1.0, 0.0); // 2D turns about y
    EXPECT_DOUBLE_EQ(turn.angular_velocity, pi / 2.0);
    EXPECT_DOUBLE_EQ(turn.angular_acceleration, -pi / 4.0);

    EXPECT_EQ(s[2].start, 1.5);
    EXPECT_EQ(s[2].end, 2.5);
    const auto& shake = std::get<SinusoidalTranslation>(s[2].motion);
    expect_point(shake.amplitude, 0.02, 0.0, 0.0);
    EXPECT_EQ(shake.period, 0.5);
    EXPECT_DOUBLE_EQ(shake.phase, pi / 2.0);

    EXPECT_EQ(s[3].start, 2.5);
    const auto& rock = std::get<SinusoidalRotation>(s[3].motion);
    expect_point(rock.point, 0.15, 0.0, 0.0);
    expect_point(rock.axis, 0.0, 1.0, 0.0);
    EXPECT_DOUBLE_EQ(rock.amplitude, 10.0 * degree);
    EXPECT_EQ(rock.period, 0.25);
    EXPECT_EQ(rock.phase, 0.0);

    EXPECT_EQ(s[4].start, 3.0);
    const auto& path = std::get<FileTranslation>(s[4].motion);
    EXPECT_EQ(path.file, "move.csv");
    ASSERT_EQ(path.times, (std::vector<double>{3.0, 3.5, 4.0})); // '#' line and header skipped
    ASSERT_EQ(path.displacement.size(), 3u);
    expect_point(path.displacement[1], 0.01, 0.0, 0.0);
    expect_point(path.displacement[2], 0.02, 0.0, 0.01);

    EXPECT_EQ(s[5].start, 4.0);
    EXPECT_EQ(s[5].end, 5.0);
    const auto& angles = std::get<FileRotation>(s[5].motion);
    EXPECT_EQ(angles.file, "data/turn.csv"); // as written; read beside the case
    expect_point(angles.point, 0.15, 0.0, 0.0);
    ASSERT_EQ(angles.times, (std::vector<double>{4.0, 5.0}));
    ASSERT_EQ(angles.angles.size(), 2u);
    EXPECT_EQ(angles.angles[0], 0.0);
    EXPECT_DOUBLE_EQ(angles.angles[1], 30.0 * degree);
    EXPECT_TRUE(has_motion(c));
}

TEST_F(MotionReader, EverySegmentKindIn3d) {
    write("move3.csv", "1 0 0 0\n2 0.01 0.02 0.03\n");
    write("turn3.csv", "2,0\n3,-5\n");
    const Case c = parse({
        head3,
        R"(  <geometry dp="0.025">)",
        R"(    <fluid min="0.5 0 0" max="1.5 1 0.3"/>)",
        R"(    <tank name="box" min="0 0 0" max="2 1 1">)",
        R"(      <motion><sinusoidal point="1 0.5 0" axis="0 2 0" angle="4" period="1.5" phase="-90"/></motion>)",
        R"(    </tank>)",
        R"(    <obstacle name="gate" momentPoint="0.15 0.5 0" min="0.1 0 0" max="0.2 1 0.5">)",
        R"(      <motion>)",
        R"(        <rotation end="1" point="0.15 0.5 0" axis="0 0 3" velocity="30"/>)",
        R"(        <file end="2" path="move3.csv"/>)",
        R"(        <file end="3" path="turn3.csv" point="0 0 0" axis="-2 0 0"/>)",
        R"(        <wavemaker start="3" type="flap" depth="0.3" height="0.02" period="1" point="0.15 0 0" axis="0 -1 0"/>)",
        R"(      </motion>)",
        R"(    </obstacle>)",
        R"(  </geometry>)",
        R"(  <run endTime="4"/>)",
        tail,
    });
    ASSERT_TRUE(c.tank.has_value());
    EXPECT_EQ(c.tank->object.name, "box");
    EXPECT_FALSE(c.tank->object.moment_point.has_value());
    const auto& slosh = std::get<SinusoidalRotation>(c.tank->object.motion->segments.at(0).motion);
    expect_point(slosh.point, 1.0, 0.5, 0.0);
    expect_point(slosh.axis, 0.0, 1.0, 0.0); // normalised
    EXPECT_DOUBLE_EQ(slosh.amplitude, 4.0 * degree);
    EXPECT_DOUBLE_EQ(slosh.phase, -pi / 2.0);
    EXPECT_EQ(c.tank->object.motion->segments[0].end, std::numeric_limits<double>::infinity());

    const std::vector<MotionSegment>& s = segments_of(c);
    ASSERT_EQ(s.size(), 4u);
    const auto& spin = std::get<RotationMotion>(s[0].motion);
    expect_point(spin.axis, 0.0, 0.0, 1.0);
    EXPECT_DOUBLE_EQ(spin.angular_velocity, pi / 6.0);
    EXPECT_EQ(spin.angular_acceleration, 0.0);
    const auto& path = std::get<FileTranslation>(s[1].motion);
    ASSERT_EQ(path.displacement.size(), 2u);
    expect_point(path.displacement[1], 0.01, 0.02, 0.03);
    const auto& tilt = std::get<FileRotation>(s[2].motion);
    expect_point(tilt.axis, -1.0, 0.0, 0.0);
    EXPECT_DOUBLE_EQ(tilt.angles[1], -5.0 * degree);
    EXPECT_EQ(s[3].start, 3.0);
    const auto& flap = std::get<WaveMakerMotion>(s[3].motion);
    EXPECT_EQ(flap.spec.kind, WaveMakerKind::flap);
    expect_point(flap.point, 0.15, 0.0, 0.0);
    expect_point(flap.axis, 0.0, -1.0, 0.0);
}

TEST_F(MotionReader, WaveMakersAndTheirDefaults) {
    const Case c = parse({
        head2,
        R"(  <constants gravity="9.8"/>)",
        R"(  <geometry dp="0.025">)",
        R"(    <fluid min="0.5 0" max="1.5 0.3"/>)",
        R"(    <obstacle min="0.1 0" max="0.2 0.5"><motion>)",
        R"(      <wavemaker type="piston" depth="0.3" height="0.02" period="1.2" secondOrder="true"/>)",
        R"(    </motion></obstacle>)",
        R"(    <obstacle min="0.3 0" max="0.35 0.5"><motion>)",
        R"(      <wavemaker type="piston" depth="0.3" height="0.02" period="1.2" phase="45" ramp="0.5" direction="-3 0"/>)",
        R"(    </motion></obstacle>)",
        R"(    <obstacle min="1.7 0" max="1.75 0.5"><motion>)",
        R"(      <wavemaker start="1" end="9" type="flap" depth="0.3" height="0.02" period="1.2" point="1.75 0"/>)",
        R"(    </motion></obstacle>)",
        R"(    <obstacle min="1.8 0" max="1.85 0.5"><motion>)",
        R"(      <wavemaker type="piston" waves="jonswap" depth="0.3" hs="0.02" tp="1.5" gamma="2" seed="7" components="32" fmin="0.6" fmax="2.5"/>)",
        R"(    </motion></obstacle>)",
        R"(    <obstacle min="1.9 0" max="1.95 0.5"><motion>)",
        R"(      <wavemaker type="piston" waves="jonswap" depth="0.3" hs="0.02" tp="1.5"/>)",
        R"(    </motion></obstacle>)",
        R"(  </geometry>)",
        tail,
    });
    ASSERT_EQ(c.obstacles.size(), 5u);
    const MotionSegment& first = segments_of(c, 0).at(0);
    EXPECT_EQ(first.start, 0.0);
    EXPECT_EQ(first.end, std::numeric_limits<double>::infinity());
    const auto& piston = std::get<WaveMakerMotion>(first.motion);
    EXPECT_EQ(piston.spec.kind, WaveMakerKind::piston);
    EXPECT_EQ(piston.spec.waves, WaveSpectrum::regular); // the default
    EXPECT_EQ(piston.spec.depth, 0.3);
    EXPECT_EQ(piston.spec.height, 0.02);
    EXPECT_EQ(piston.spec.period, 1.2);
    EXPECT_EQ(piston.spec.phase, 0.0);
    EXPECT_TRUE(piston.spec.second_order);
    EXPECT_EQ(piston.spec.gravity, 9.8) << "from <constants>";
    EXPECT_DOUBLE_EQ(piston.spec.ramp, 2.4) << "two periods";
    expect_point(piston.direction, 1.0, 0.0, 0.0);

    const auto& turned = std::get<WaveMakerMotion>(segments_of(c, 1).at(0).motion);
    EXPECT_DOUBLE_EQ(turned.spec.phase, pi / 4.0);
    EXPECT_EQ(turned.spec.ramp, 0.5);
    EXPECT_FALSE(turned.spec.second_order);
    expect_point(turned.direction, -1.0, 0.0, 0.0); // normalised

    const MotionSegment& hinged = segments_of(c, 2).at(0);
    EXPECT_EQ(hinged.start, 1.0);
    EXPECT_EQ(hinged.end, 9.0);
    const auto& flap = std::get<WaveMakerMotion>(hinged.motion);
    EXPECT_EQ(flap.spec.kind, WaveMakerKind::flap);
    expect_point(flap.point, 1.75, 0.0, 0.0);
    expect_point(flap.axis, 0.0, 1.0, 0.0);

    const auto& sea = std::get<WaveMakerMotion>(segments_of(c, 3).at(0).motion);
    EXPECT_EQ(sea.spec.waves, WaveSpectrum::jonswap);
    EXPECT_EQ(sea.spec.significant_height, 0.02);
    EXPECT_EQ(sea.spec.peak_period, 1.5);
    EXPECT_EQ(sea.spec.gamma, 2.0);
    EXPECT_EQ(sea.spec.seed, 7u);
    EXPECT_EQ(sea.spec.components, 32);
    EXPECT_EQ(sea.spec.min_frequency_ratio, 0.6);
    EXPECT_EQ(sea.spec.max_frequency_ratio, 2.5);
    EXPECT_DOUBLE_EQ(sea.spec.ramp, 3.0) << "two peak periods";

    const auto& plain = std::get<WaveMakerMotion>(segments_of(c, 4).at(0).motion);
    const WaveMakerSpec defaults;
    EXPECT_EQ(plain.spec.gamma, defaults.gamma);
    EXPECT_EQ(plain.spec.seed, defaults.seed);
    EXPECT_EQ(plain.spec.components, defaults.components);
    EXPECT_EQ(plain.spec.min_frequency_ratio, defaults.min_frequency_ratio);
    EXPECT_EQ(plain.spec.max_frequency_ratio, defaults.max_frequency_ratio);
}

TEST_F(MotionReader, DampingZones) {
    const Case c = parse({
        head2,
        R"(  <geometry dp="0.05">)",
        R"(    <fluid min="0 0" max="3 0.3"/>)",
        R"(    <tank min="0 0" max="3 0.5"/>)",
        R"(    <damping start="2 0" end="3 0"/>)",
        R"(    <damping start="1 0.3" end="0 0.3" reduction="25"/>)",
        R"(  </geometry>)",
        tail,
    });
    ASSERT_EQ(c.damping.size(), 2u);
    expect_point(c.damping[0].start, 2.0, 0.0, 0.0);
    expect_point(c.damping[0].end, 3.0, 0.0, 0.0);
    EXPECT_EQ(c.damping[0].reduction, 10.0) << "DualSPHysics's default";
    EXPECT_EQ(c.damping[0].line, 5);
    EXPECT_EQ(c.damping[1].reduction, 25.0);
    EXPECT_EQ(c.damping[1].line, 6);
    EXPECT_FALSE(has_motion(c));
}

TEST_F(MotionReader, ObjectsWithoutMotionOrName) {
    const Case c = parse(
        {head2, R"(  <geometry dp="0.05">)", R"(    <fluid min="0.5 0" max="1.5 0.3"/>)",
         R"(    <tank min="0 0" max="2 1"/>)",
         R"(    <obstacle name="rock-1" min="0.1 0" max="0.2 0.5"/>)", "  </geometry>", tail});
    EXPECT_EQ(c.tank->object.name, "");
    EXPECT_FALSE(c.tank->object.motion.has_value());
    EXPECT_EQ(c.obstacles[0].object.name, "rock-1");
    EXPECT_FALSE(c.obstacles[0].object.moment_point.has_value());
    EXPECT_FALSE(has_motion(c));
}

TEST_F(MotionReader, PathsAreRelativeToTheCaseOrAbsolute) {
    write("sub/path.csv", "0 0 0\n1 0.1 0\n");
    const std::string absolute = (root_ / "sub" / "path.csv").string();
    for (const std::string& p : {std::string("sub/path.csv"), absolute}) {
        SCOPED_TRACE(p);
        const Case c = parse(moving_2d({R"(<file path=")" + p + R"("/>)"}));
        const auto& f = std::get<FileTranslation>(segments_of(c)[0].motion);
        EXPECT_EQ(f.file, p);
        EXPECT_EQ(f.times, (std::vector<double>{0.0, 1.0}));
    }
    // Another case file name moves the folder the file is looked for in.
    EXPECT_THROW(parse_case(lines(moving_2d({R"(<file path="sub/path.csv"/>)"})),
                            (root_ / "sub" / "case.xml").string()),
                 CaseError);
}

// ---------------------------------------------------------------------------------------------
// The domain and the objects' sweep.

TEST_F(MotionReader, DefaultDomainHoldsTheSweep) {
    // The obstacle (x ≤ 0.2) moves 1 m/s along +x for the 2 s of the run: up to x = 2.2.
    const Case still =
        parse({head2, R"(  <geometry dp="0.05">)", R"(    <fluid min="0.5 0" max="1.5 0.3"/>)",
               R"(    <obstacle min="0.1 0" max="0.2 0.5"/>)", "  </geometry>",
               R"(  <run endTime="2"/>)", tail});
    const Case moving =
        parse(moving_2d({R"(<rectilinear velocity="1 0"/>)"}, {R"(  <run endTime="2"/>)"}));
    EXPECT_LT(still.domain.max.x(), 2.0);
    EXPECT_GE(moving.domain.max.x(), 2.2 + 0.1 * (2.2 - 0.1)) << "the sweep, grown by 10 %";
    EXPECT_EQ(moving.domain.min.y(), 0.0);
    EXPECT_EQ(moving.domain.max.y(), 0.0);
    // A longer run sweeps further.
    const Case longer =
        parse(moving_2d({R"(<rectilinear velocity="1 0"/>)"}, {R"(  <run endTime="3"/>)"}));
    EXPECT_GE(longer.domain.max.x(), 3.2);
}

TEST_F(MotionReader, GivenDomainMustHoldTheSweep) {
    // The obstacle's right face (x = 0.2) reaches the domain's x = 2 at t = 1.8.
    auto document = [](const std::string& end_time) {
        std::vector<std::string> ls = moving_2d({R"(<rectilinear velocity="1 0"/>)"},
                                                {R"(  <run endTime=")" + end_time + R"("/>)"});
        ls.insert(ls.begin() + 3, R"(    <domain min="-1 -1" max="2 2"/>)");
        return ls; // obstacle at line 5, <motion> at line 6
    };
    EXPECT_NO_THROW(parse(document("1.7")));
    try {
        parse(document("3"));
        FAIL() << "no CaseError";
    } catch (const CaseError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(case_file() + ":6: ", 0), 0u) << "at <motion>: " << what;
        const std::string expected =
            "the <obstacle> at line 5 leaves the domain [-1 -1] .. [2 2] at t = ";
        const std::size_t at = what.find(expected);
        ASSERT_NE(at, std::string::npos) << what;
        // Within dp/100 (at 1 m/s) after 1.8 s, as printed (6 digits).
        const double t = std::stod(what.substr(at + expected.size()));
        EXPECT_GE(t, 1.8 - 1e-5);
        EXPECT_LE(t, 1.8 + 0.01 * 0.05 + 1e-5);
        EXPECT_NE(what.find("give a larger <domain> or change the motion"), std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------------
// Errors in motion files.

TEST_F(MotionReader, MissingFile) {
    expect_error(moving_2d({R"(<file path="nope.csv"/>)"}), 6,
                 R"(<file path="nope.csv">: cannot open 'nope.csv')");
}

TEST_F(MotionReader, FileWithTooFewRows) {
    write("few.csv", "time x z\n0 0 0\n");
    expect_error(moving_2d({R"(<file path="few.csv"/>)"}), 6,
                 "'few.csv' holds 1 row(s) of numbers; a motion file needs at least 2");
    write("none.csv", "# nothing\n");
    expect_error(moving_2d({R"(<file path="none.csv"/>)"}), 6, "holds 0 row(s)");
}

TEST_F(MotionReader, FileWithWrongColumnCount) {
    write("cols.csv", "0 0 0\n1 0.1\n");
    expect_error(moving_2d({"", R"(<file path="cols.csv"/>)"}), 7,
                 "cols.csv:2: expected 3 columns (time, then the displacement in m), got 2");
    write("angle.csv", "0 0\n1 5 0\n");
    expect_error(moving_2d({R"(<file path="angle.csv" point="0 0"/>)"}), 6,
                 "angle.csv:2: expected 2 columns (time, then the angle in degrees), got 3");
    write("move3.csv", "0 0 0\n1 0.1 0\n"); // 3D needs time and x y z
    expect_error(moving_3d({R"(<file path="move3.csv"/>)"}), 6, "move3.csv:1: expected 4 columns");
}

TEST_F(MotionReader, FileTimesMustIncrease) {
    write("times.csv", "time,x,z\n0,0,0\n0.5,0,0\n0.5,1,0\n");
    expect_error(moving_2d({R"(<file path="times.csv"/>)"}), 6,
                 "times.csv:4: time 0.5 s is not after the previous row's 0.5 s");
    write("back.csv", "1 0\n0 5\n");
    expect_error(moving_2d({R"(<file path="back.csv" point="0 0"/>)"}), 6,
                 "back.csv:2: time 0 s is not after the previous row's 1 s");
}

TEST_F(MotionReader, FileWithAWordAmongNumbers) {
    write("word.csv", "0 0 0\n1 x 0\n");
    expect_error(moving_2d({R"(<file path="word.csv"/>)"}), 6, "word.csv:2: 'x' is not a number");
}

// ---------------------------------------------------------------------------------------------
// Malformed motions: each raises CaseError at an exact line with a specific message.

struct Malformed {
    const char* name;
    std::vector<std::string> xml;
    int line;
    const char* message; ///< substring of what()
};

void PrintTo(const Malformed& m, std::ostream* os) {
    *os << m.name;
}

class MotionReaderError : public testing::TestWithParam<Malformed> {};

TEST_P(MotionReaderError, ReportsLineAndMessage) {
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

const std::string geometry_open = R"(  <geometry dp="0.05">)";
const std::string fluid = R"(    <fluid min="0.5 0" max="1.5 0.3"/>)";

// clang-format off
const Malformed malformed[] = {
    // segments
    {"unknown_segment", moving_2d({R"(<linear velocity="1 0"/>)"}),
     6, "unknown element <linear> in <motion> (valid: rectilinear, rotation, sinusoidal, file, wavemaker)"},
    {"segment_near_miss", moving_2d({R"(<rotaton point="0 0" velocity="1"/>)"}),
     6, "unknown element <rotaton> in <motion>; did you mean 'rotation'?"},
    {"empty_motion", moving_2d({}), 5, "<motion> needs at least one segment"},
    {"motion_attribute", {head2, geometry_open, fluid, R"(    <obstacle min="0.1 0" max="0.2 0.5">)", R"(      <motion start="1">)", R"(        <rectilinear velocity="1 0"/>)", "      </motion>", "    </obstacle>", "  </geometry>", tail},
     5, "unknown attribute 'start' of <motion> (it takes none)"},
    {"second_motion", {head2, geometry_open, fluid, R"(    <obstacle min="0.1 0" max="0.2 0.5">)", R"(      <motion><rectilinear end="1" velocity="1 0"/></motion>)", R"(      <motion><rectilinear velocity="1 0"/></motion>)", "    </obstacle>", "  </geometry>", tail},
     6, "second <motion> in <obstacle> (the first is at line 5)"},
    {"motion_in_fluid", {head2, geometry_open, R"(    <fluid min="0.5 0" max="1.5 0.3"><motion/></fluid>)", "  </geometry>", tail},
     3, "unknown element <motion> in <fluid>"},
    {"rectilinear_without_velocity", moving_2d({R"(<rectilinear end="1"/>)"}),
     6, "<rectilinear> needs the attribute 'velocity'"},
    {"rotation_without_point", moving_2d({R"(<rotation velocity="10"/>)"}),
     6, "<rotation> needs the attribute 'point'"},
    {"negative_start", moving_2d({R"(<rectilinear start="-1" velocity="1 0"/>)"}),
     6, R"(<rectilinear start="-1">: out of range, must be >= 0)"},
    {"overlapping_segments", moving_2d({R"(<rectilinear end="1" velocity="1 0"/>)", R"(<rotation start="0.5" point="0 0" velocity="10"/>)"}),
     7, R"(<rotation start="0.5">: the segment starts before the previous one (line 6) ends at 1 s; segments follow each other in time)"},
    {"end_equals_start", moving_2d({R"(<rectilinear start="1" end="1" velocity="1 0"/>)"}),
     6, R"(<rectilinear end="1">: out of range, must be > 1)"},
    {"end_before_defaulted_start", moving_2d({R"(<rectilinear end="1" velocity="1 0"/>)", R"(<rectilinear end="0.5" velocity="0 1"/>)"}),
     7, R"(<rectilinear end="0.5">: out of range, must be > 1)"},
    {"after_endless", moving_2d({R"(<rectilinear velocity="1 0"/>)", R"(<rectilinear velocity="0 1"/>)"}),
     7, "<rectilinear> starts after a segment without an end (it runs to the end of the run); give that one an end"},
    {"after_endless_with_end", moving_2d({R"(<rectilinear velocity="1 0"/>)", R"(<rotation end="2" point="0 0" velocity="10"/>)"}),
     7, "starts after a segment without an end"},
    {"after_endless_with_start", moving_2d({R"(<rectilinear velocity="1 0"/>)", R"(<rotation start="2" point="0 0" velocity="10"/>)"}),
     7, "starts after a segment without an end"},
    {"sinusoidal_rotation_without_point", moving_2d({R"(<sinusoidal angle="10" period="1"/>)"}),
     6, "<sinusoidal> with angle or axis is a rotation and needs point=\"...\" on its axis"},
    {"sinusoidal_axis_without_point_3d", moving_3d({R"(<sinusoidal axis="0 0 1" amplitude="0.1 0 0" period="1"/>)"}),
     6, "is a rotation and needs point="},
    {"sinusoidal_rotation_with_amplitude", moving_2d({R"(<sinusoidal point="0 0" amplitude="0.1 0" period="1"/>)"}),
     6, R"(<sinusoidal amplitude="0.1 0">: a sinusoidal rotation (it has a point) takes its amplitude as angle="degrees")"},
    {"sinusoidal_without_period", moving_2d({R"(<sinusoidal amplitude="0.1 0"/>)"}),
     6, "<sinusoidal> needs the attribute 'period'"},
    {"sinusoidal_zero_period", moving_2d({R"(<sinusoidal amplitude="0.1 0" period="0"/>)"}),
     6, R"(<sinusoidal period="0">: out of range, must be > 0)"},
    {"axis_in_2d", moving_2d({R"(<rotation point="0 0" axis="0 1 0" velocity="10"/>)"}),
     6, "unknown attribute 'axis' of <rotation>"},
    {"axis_in_2d_file", moving_2d({R"(<file path="f.csv" point="0 0" axis="0 1 0"/>)"}),
     6, "unknown attribute 'axis' of <file>"},
    {"zero_axis", moving_3d({R"(<rotation point="0 0 0" axis="0 0 0" velocity="10"/>)"}),
     6, R"(<rotation axis="0 0 0">: the zero vector has no direction)"},
    {"zero_axis_sinusoidal", moving_3d({R"(<sinusoidal point="0 0 0" axis="0 0 0" angle="5" period="1"/>)"}),
     6, R"(<sinusoidal axis="0 0 0">: the zero vector has no direction)"},
    {"file_axis_without_point", moving_3d({R"(<file path="f.csv" axis="0 0 1"/>)"}),
     6, R"(<file axis="0 0 1">: a rotation from a file needs point="..." on its axis too)"},
    {"file_without_path", moving_2d({R"(<file end="1"/>)"}), 6, "<file> needs the attribute 'path'"},
    // wave makers
    {"wavemaker_without_type", moving_2d({R"(<wavemaker depth="0.3" height="0.02" period="1"/>)"}),
     6, "<wavemaker> needs the attribute 'type' (piston or flap)"},
    {"wavemaker_unknown_type", moving_2d({R"(<wavemaker type="paddle" depth="0.3" height="0.02" period="1"/>)"}),
     6, R"(<wavemaker type="paddle">: unknown wave maker (valid: piston, flap))"},
    {"wavemaker_unknown_waves", moving_2d({R"(<wavemaker type="piston" waves="stokes" depth="0.3" height="0.02" period="1"/>)"}),
     6, "unknown wave kind (valid: regular, jonswap)"},
    {"wavemaker_without_depth", moving_2d({R"(<wavemaker type="piston" height="0.02" period="1"/>)"}),
     6, "<wavemaker> needs the attribute 'depth'"},
    {"wavemaker_without_height", moving_2d({R"(<wavemaker type="piston" depth="0.3" period="1"/>)"}),
     6, "<wavemaker> needs the attribute 'height'"},
    {"wavemaker_without_period", moving_2d({R"(<wavemaker type="piston" depth="0.3" height="0.02"/>)"}),
     6, "<wavemaker> needs the attribute 'period'"},
    {"wavemaker_zero_depth", moving_2d({R"(<wavemaker type="piston" depth="0" height="0.02" period="1"/>)"}),
     6, R"(<wavemaker depth="0">: out of range, must be > 0)"},
    {"jonswap_without_hs", moving_2d({R"(<wavemaker type="piston" waves="jonswap" depth="0.3" tp="1"/>)"}),
     6, "<wavemaker> needs the attribute 'hs'"},
    {"second_order_flap", moving_2d({R"(<wavemaker type="flap" depth="0.3" height="0.02" period="1" point="0.15 0" secondOrder="true"/>)"}),
     6, R"(<wavemaker secondOrder="true">: Madsen's (1971) correction is for a piston)"},
    {"irregular_attribute_on_regular", moving_2d({R"(<wavemaker type="piston" depth="0.3" height="0.02" period="1" hs="0.02"/>)"}),
     6, R"(<wavemaker hs="0.02">: applies to waves="jonswap" only)"},
    {"gamma_on_regular", moving_2d({R"(<wavemaker type="piston" depth="0.3" height="0.02" period="1" gamma="3"/>)"}),
     6, R"(<wavemaker gamma="3">: applies to waves="jonswap" only)"},
    {"regular_attribute_on_jonswap", moving_2d({R"(<wavemaker type="piston" waves="jonswap" depth="0.3" hs="0.02" tp="1" period="1"/>)"}),
     6, R"(<wavemaker period="1">: applies to waves="regular" only)"},
    {"jonswap_fmax_below_fmin", moving_2d({R"(<wavemaker type="piston" waves="jonswap" depth="0.3" hs="0.02" tp="1" fmin="2" fmax="1"/>)"}),
     6, R"(<wavemaker fmax="1">: must be above fmin = 2)"},
    {"piston_with_point", moving_2d({R"(<wavemaker type="piston" depth="0.3" height="0.02" period="1" point="0 0"/>)"}),
     6, R"(<wavemaker point="0 0">: a piston translates)"},
    {"piston_zero_direction", moving_2d({R"(<wavemaker type="piston" depth="0.3" height="0.02" period="1" direction="0 0"/>)"}),
     6, R"(<wavemaker direction="0 0">: the zero vector has no direction)"},
    {"flap_without_point", moving_2d({R"(<wavemaker type="flap" depth="0.3" height="0.02" period="1"/>)"}),
     6, "<wavemaker> needs the attribute 'point'"},
    {"flap_with_direction", moving_2d({R"(<wavemaker type="flap" depth="0.3" height="0.02" period="1" point="0 0" direction="1 0"/>)"}),
     6, R"(<wavemaker direction="1 0">: a flap turns about its hinge)"},
    {"wavemaker_without_gravity", {head2, R"(  <constants gravity="0"/>)", geometry_open, fluid, R"(    <obstacle min="0.1 0" max="0.2 0.5"><motion>)", R"(      <wavemaker type="piston" depth="0.3" height="0.02" period="1"/>)", "    </motion></obstacle>", "  </geometry>", tail},
     6, "a wave maker needs gravity"},
    // names and moment points
    {"duplicate_object_name", {head2, geometry_open, fluid, R"(    <tank name="a" min="0 0" max="2 1"/>)", R"(    <obstacle name="b" min="0.1 0" max="0.2 0.5"/>)", R"(    <obstacle name="a" min="0.3 0" max="0.4 0.5"/>)", "  </geometry>", tail},
     6, R"(<obstacle name="a">: duplicate object name (also at line 4))"},
    {"moment_point_without_name", {head2, geometry_open, fluid, R"(    <obstacle momentPoint="0.15 0" min="0.1 0" max="0.2 0.5"/>)", "  </geometry>", tail},
     4, R"(<obstacle momentPoint="0.15 0">: forces are reported for named objects; give the object a name)"},
    {"moment_point_3_in_2d", {head2, geometry_open, fluid, R"(    <obstacle name="a" momentPoint="0.15 0 0" min="0.1 0" max="0.2 0.5"/>)", "  </geometry>", tail},
     4, "a 2D point has 2 components"},
    {"name_with_a_blank", {head2, geometry_open, fluid, R"(    <tank name="my tank" min="0 0" max="2 1"/>)", "  </geometry>", tail},
     4, R"(<tank name="my tank">: an object's name is letters, digits, '_' or '-')"},
    {"name_empty", {head2, geometry_open, fluid, R"(    <obstacle name="" min="0.1 0" max="0.2 0.5"/>)", "  </geometry>", tail},
     4, "an object's name is letters"},
    // damping zones
    {"damping_start_equals_end", {head2, geometry_open, fluid, R"(    <damping start="1 0" end="1 0"/>)", "  </geometry>", tail},
     4, "<damping> start and end coincide"},
    {"damping_outside_domain", {head2, geometry_open, fluid, R"(    <damping start="1 0" end="5 0"/>)", "  </geometry>", tail},
     4, "<damping> reaches outside the domain ["},
    {"damping_zero_reduction", {head2, geometry_open, fluid, R"(    <damping start="1 0" end="1.5 0" reduction="0"/>)", "  </geometry>", tail},
     4, R"(<damping reduction="0">: out of range, must be > 0)"},
    {"damping_without_end", {head2, geometry_open, fluid, R"(    <damping start="1 0"/>)", "  </geometry>", tail},
     4, "<damping> needs the attribute 'end'"},
    {"damping_axis_in_2d", {head2, geometry_open, fluid, R"(    <damping start="1 0" end="1.5 0" axis="1 0 0"/>)", "  </geometry>", tail},
     4, "unknown attribute 'axis' of <damping>"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Malformed, MotionReaderError, testing::ValuesIn(malformed),
                         [](const testing::TestParamInfo<Malformed>& info) {
                             return std::string(info.param.name);
                         });

} // namespace
} // namespace sluice
