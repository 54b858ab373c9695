#include "case/motion_reader.h"

#include "case/floating_reader.h"

#include "case/geometry_checks.h"
#include "case/motion_table.h"
#include "case/resolution_checks.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace sluice::case_xml {

namespace {

using Eigen::Vector3d;

constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180.0;

/// The attributes of every segment.
const Names segment_attributes = {"start", "end"};

Names with(Names names, const Names& more) {
    names.insert(names.end(), more.begin(), more.end());
    return names;
}

/// An axis: 3D the attribute (a nonzero vector, normalised; default y), 2D always y (a 2D case
/// turns in the x–z plane; the attribute is refused there by the element's list).
Vector3d read_axis(const Reader& r, const Element& e) {
    if (r.dimension == 2 || !e.has("axis"))
        return Vector3d::UnitY();
    const Vector3d a = e.point("axis");
    if (!(a.norm() > 0.0))
        e.fail_attribute("axis", "the zero vector has no direction");
    return a.normalized();
}

/// The axis attributes a rotation takes in this dimension.
Names rotation_attributes(const Reader& r) {
    return r.dimension == 3 ? Names{"point", "axis"} : Names{"point"};
}

/// A CSV (or blank-separated) file of rows of `columns` numbers, '#' lines and a header of
/// words skipped; times strictly ascending. Errors name the file's line.
std::vector<std::vector<double>> read_table(const Element& e, const std::string& path,
                                            const std::string& shown, std::size_t columns) {
    std::ifstream in(path);
    if (!in)
        e.fail_attribute("path", "cannot open '" + shown + "': " + std::strerror(errno));
    std::vector<std::vector<double>> rows;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        for (char& ch : line)
            if (ch == ',' || ch == ';')
                ch = ' ';
        const auto words = split(line);
        if (words.empty() || words[0].front() == '#')
            continue;
        std::vector<double> row;
        std::string why;
        for (const auto w : words) {
            const auto v = to_number(w, why);
            if (!v)
                break;
            row.push_back(*v);
        }
        if (row.empty() && rows.empty())
            continue; // a header of names
        const std::string at = shown + ":" + std::to_string(number) + ": ";
        if (row.size() != words.size())
            e.fail_attribute("path", at + "'" + std::string(words[row.size()]) + "' is " + why);
        if (row.size() != columns)
            e.fail_attribute("path",
                             at + "expected " + std::to_string(columns) + " columns (time, then " +
                                 (columns == 2 ? "the angle in degrees" : "the displacement in m") +
                                 "), got " + std::to_string(row.size()));
        if (!rows.empty() && !(row[0] > rows.back()[0]))
            e.fail_attribute("path", at + "time " + format_number(row[0]) +
                                         " s is not after the previous row's " +
                                         format_number(rows.back()[0]) + " s");
        rows.push_back(std::move(row));
    }
    if (rows.size() < 2)
        e.fail_attribute("path", "'" + shown + "' holds " + std::to_string(rows.size()) +
                                     " row(s) of numbers; a motion file needs at least 2");
    return rows;
}

std::string resolve(const Reader& r, const std::string& file) {
    const std::filesystem::path relative(file);
    return relative.is_absolute()
               ? file
               : (std::filesystem::path(r.file).parent_path() / relative).string();
}

SegmentMotion read_rectilinear(const Element& e) {
    RectilinearMotion m;
    e.require("velocity", "m/s at the segment's start");
    m.velocity = e.point("velocity");
    if (e.has("acceleration"))
        m.acceleration = e.point("acceleration");
    return m;
}

SegmentMotion read_rotation(const Reader& r, const Element& e) {
    RotationMotion m;
    m.point = e.point("point");
    m.axis = read_axis(r, e);
    e.require("velocity", "the angular velocity in degrees/s at the segment's start");
    m.angular_velocity = *e.number("velocity") * degree;
    m.angular_acceleration = e.number("acceleration").value_or(0.0) * degree;
    return m;
}

SegmentMotion read_sinusoidal(const Reader& r, const Element& e) {
    e.require("period", "s");
    const double period = *e.number("period", greater_than(0));
    const double phase = e.number("phase").value_or(0.0) * degree;
    if (e.has("point")) { // a rotation
        if (e.has("amplitude"))
            e.fail_attribute("amplitude", "a sinusoidal rotation (it has a point) takes its "
                                          "amplitude as angle=\"degrees\"");
        SinusoidalRotation m;
        m.point = e.point("point");
        m.axis = read_axis(r, e);
        e.require("angle", "the amplitude in degrees");
        m.amplitude = *e.number("angle") * degree;
        m.period = period;
        m.phase = phase;
        return m;
    }
    if (e.has("angle") || e.has("axis"))
        e.fail(e.tag() + " with angle or axis is a rotation and needs point=\"...\" on its axis");
    SinusoidalTranslation m;
    m.amplitude = e.point("amplitude");
    m.period = period;
    m.phase = phase;
    return m;
}

SegmentMotion read_file(const Reader& r, const Element& e) {
    e.require("path", "a CSV file of time and displacement (or angle), relative to the case");
    const std::string file = *e.text("path");
    const std::string path = resolve(r, file);
    if (e.has("point")) {
        FileRotation m;
        m.file = file;
        m.point = e.point("point");
        m.axis = read_axis(r, e);
        for (const auto& row : read_table(e, path, file, 2)) {
            m.times.push_back(row[0]);
            m.angles.push_back(row[1] * degree);
        }
        return m;
    }
    if (e.has("axis"))
        e.fail_attribute("axis", "a rotation from a file needs point=\"...\" on its axis too");
    FileTranslation m;
    m.file = file;
    for (const auto& row : read_table(e, path, file, static_cast<std::size_t>(r.dimension) + 1)) {
        m.times.push_back(row[0]);
        m.displacement.push_back(r.dimension == 2 ? Vector3d(row[1], 0.0, row[2])
                                                  : Vector3d(row[1], row[2], row[3]));
    }
    return m;
}

SegmentMotion read_wavemaker(const Reader& r, const Element& e, const Constants& k) {
    static const Choices<WaveMakerKind> kinds = {{"piston", WaveMakerKind::piston},
                                                 {"flap", WaveMakerKind::flap}};
    static const Choices<WaveSpectrum> spectra = {{"regular", WaveSpectrum::regular},
                                                  {"jonswap", WaveSpectrum::jonswap}};
    static const Choices<bool> yes_no = {{"true", true}, {"false", false}};
    WaveMakerMotion m;
    WaveMakerSpec& s = m.spec;
    e.require("type", "piston or flap");
    s.kind = *e.choice("type", "wave maker", kinds);
    s.waves = e.choice("waves", "wave kind", spectra).value_or(WaveSpectrum::regular);
    s.gravity = k.gravity;
    if (!(s.gravity > 0.0))
        e.fail("a wave maker needs gravity (<constants gravity> is 0)");
    e.require("depth", "the still-water depth at the paddle in m");
    s.depth = *e.number("depth", greater_than(0));
    const Names regular = {"height", "period", "phase", "secondOrder"};
    const Names irregular = {"hs", "tp", "gamma", "seed", "components", "fmin", "fmax"};
    for (const auto attr : s.waves == WaveSpectrum::regular ? irregular : regular)
        if (e.has(std::string(attr).c_str()))
            e.fail_attribute(std::string(attr).c_str(),
                             std::string("applies to waves=\"") +
                                 (s.waves == WaveSpectrum::regular ? "jonswap" : "regular") +
                                 "\" only");
    double period = 0.0;
    if (s.waves == WaveSpectrum::regular) {
        e.require("height", "the wave height H in m");
        e.require("period", "the wave period T in s");
        s.height = *e.number("height", greater_than(0));
        s.period = *e.number("period", greater_than(0));
        s.phase = e.number("phase").value_or(0.0) * degree;
        s.second_order = e.choice("secondOrder", "value", yes_no).value_or(false);
        if (s.second_order && s.kind != WaveMakerKind::piston)
            e.fail_attribute("secondOrder", "Madsen's (1971) correction is for a piston");
        period = s.period;
    } else {
        e.require("hs", "the significant wave height in m");
        e.require("tp", "the peak period in s");
        s.significant_height = *e.number("hs", greater_than(0));
        s.peak_period = *e.number("tp", greater_than(0));
        s.gamma = e.number("gamma", at_least(1)).value_or(s.gamma);
        s.seed = static_cast<std::uint32_t>(e.integer("seed", at_least(0)).value_or(1));
        s.components = e.integer("components", {1, true, 10000, true}).value_or(s.components);
        s.min_frequency_ratio = e.number("fmin", greater_than(0)).value_or(s.min_frequency_ratio);
        s.max_frequency_ratio = e.number("fmax", greater_than(0)).value_or(s.max_frequency_ratio);
        if (!(s.max_frequency_ratio > s.min_frequency_ratio))
            e.fail_attribute("fmax",
                             "must be above fmin = " + format_number(s.min_frequency_ratio));
        period = s.peak_period;
    }
    s.ramp = e.number("ramp", at_least(0)).value_or(2.0 * period);
    if (s.kind == WaveMakerKind::piston) {
        if (e.has("point"))
            e.fail_attribute("point", "a piston translates; point (the hinge) is for a flap");
        if (e.has("direction")) {
            m.direction = e.point("direction");
            if (!(m.direction.norm() > 0.0))
                e.fail_attribute("direction", "the zero vector has no direction");
            m.direction.normalize();
        }
    } else {
        if (e.has("direction"))
            e.fail_attribute("direction", "a flap turns about its hinge (point, axis)");
        e.require("point", "a point of the flap's hinge line in m");
        m.point = e.point("point");
        m.axis = read_axis(r, e);
    }
    try {
        (void)paddle_motion(s); // every remaining rule of the theory, at this line
    } catch (const std::invalid_argument& why) {
        e.fail(why.what());
    }
    return m;
}

Motion read_motion(const Reader& r, const Element& motion, const Constants& k) {
    Motion out;
    out.line = motion.line();
    const Names axis = rotation_attributes(r);
    for (const XMLElement* x : motion.all_children()) {
        const std::string_view tag = x->Name();
        std::unique_ptr<Element> e;
        MotionSegment segment;
        if (tag == "rectilinear") {
            e = std::make_unique<Element>(r, *x,
                                          with(segment_attributes, {"velocity", "acceleration"}));
            segment.motion = read_rectilinear(*e);
        } else if (tag == "rotation") {
            e = std::make_unique<Element>(
                r, *x, with(with(segment_attributes, axis), {"velocity", "acceleration"}));
            segment.motion = read_rotation(r, *e);
        } else if (tag == "sinusoidal") {
            e = std::make_unique<Element>(
                r, *x,
                with(with(segment_attributes, axis), {"amplitude", "angle", "period", "phase"}));
            segment.motion = read_sinusoidal(r, *e);
        } else if (tag == "file") {
            e = std::make_unique<Element>(r, *x, with(with(segment_attributes, axis), {"path"}));
            segment.motion = read_file(r, *e);
        } else { // wavemaker (the children were checked against the list)
            e = std::make_unique<Element>(
                r, *x,
                with(with(segment_attributes, axis),
                     {"type", "waves", "depth", "height", "period", "phase", "secondOrder", "hs",
                      "tp", "gamma", "seed", "components", "fmin", "fmax", "ramp", "direction"}));
            segment.motion = read_wavemaker(r, *e, k);
        }
        segment.line = e->line();
        segment.start = e->number("start", at_least(0)).value_or(0.0);
        if (!out.segments.empty()) {
            const MotionSegment& last = out.segments.back();
            if (!std::isfinite(last.end))
                e->fail(e->tag() + " starts after a segment without an end (it runs to the end "
                                   "of the run); give that one an end");
            if (!e->has("start"))
                segment.start = last.end;
            if (segment.start < last.end)
                e->fail_attribute("start", "the segment starts before the previous one (line " +
                                               std::to_string(last.line) + ") ends at " +
                                               format_number(last.end) +
                                               " s; segments follow each other in time");
        }
        if (e->has("end"))
            segment.end = *e->number("end", greater_than(segment.start));
        out.segments.push_back(std::move(segment));
    }
    if (out.segments.empty())
        motion.fail("<motion> needs at least one segment: <rectilinear>, <rotation>, "
                    "<sinusoidal>, <file> or <wavemaker>");
    return out;
}

bool csv_safe(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
    });
}

} // namespace

ObjectProperties read_object_properties(const Reader& r, const Element& e, const Constants& k) {
    ObjectProperties p;
    if (e.has("name")) {
        p.name = *e.text("name");
        if (!csv_safe(p.name))
            e.fail_attribute("name", "an object's name is letters, digits, '_' or '-' (it heads "
                                     "the columns of forces.csv)");
    }
    if (e.has("momentPoint")) {
        if (!e.has("name"))
            e.fail_attribute("momentPoint", "forces are reported for named objects; give the "
                                            "object a name");
        p.moment_point = e.point("momentPoint");
    }
    if (const XMLElement* x = e.single("floating"))
        p.floating = read_floating(r, Element(r, *x,
                                              {"mass", "density", "center", "inertia", "velocity",
                                               "angularVelocity", "fixed", "start", "restitution"},
                                              {"hinge", "spring"}));
    if (const XMLElement* x = e.single("motion"))
        p.motion = read_motion(
            r, Element(r, *x, {}, {"rectilinear", "rotation", "sinusoidal", "file", "wavemaker"}),
            k);
    return p;
}

DampingZone read_damping(const Reader& r, const Element& e) {
    (void)r;
    DampingZone z;
    z.start = e.point("start");
    z.end = e.point("end");
    if (!((z.end - z.start).norm() > 0.0))
        e.fail("<damping> start and end coincide: the zone's length is |end - start|");
    z.reduction = e.number("reduction", greater_than(0)).value_or(z.reduction);
    z.line = e.line();
    return z;
}

void check_objects(const Reader& r, const Case& c) {
    std::map<std::string, int> names;
    for (const BoundaryObjectRef& o : boundary_objects(c)) {
        const std::string& name = o.properties->name;
        if (name.empty())
            continue;
        const auto [it, fresh] = names.emplace(name, o.where.line);
        if (!fresh)
            r.fail(o.where.line, "<" + std::string(o.element) + " name=\"" + name +
                                     "\">: duplicate object name (also at line " +
                                     std::to_string(it->second) + ")");
    }
    // A moment is taken about a point of the case: (x − p) × F of a point outside the domain is
    // no moment a user means, and an absurd one overflows.
    for (const BoundaryObjectRef& o : boundary_objects(c)) {
        const auto& p = o.properties->moment_point;
        if (!p)
            continue;
        for (int a : r.axes())
            if ((*p)[a] < c.domain.min[a] || (*p)[a] > c.domain.max[a])
                r.fail(o.where.line, "<" + std::string(o.element) +
                                         " momentPoint>: the moment's point lies outside the "
                                         "domain " +
                                         describe_box(c, c.domain));
    }
    for (const DampingZone& z : c.damping)
        for (const Vector3d& p : {z.start, z.end})
            for (int a : r.axes())
                if (p[a] < c.domain.min[a] || p[a] > c.domain.max[a])
                    r.fail(z.line,
                           "<damping> reaches outside the domain " + describe_box(c, c.domain));
    if (!has_motion(c))
        return;
    MotionTables tables;
    try {
        tables = make_motion_tables(c, c.run.end_time);
    } catch (const std::invalid_argument& why) {
        r.fail(c.where.line, why.what());
    }
    // Walls faster than sound: a weakly compressible fluid follows walls well below c0 (its
    // Mach number ≤ 0.1); one at or above c0, or at a speed that is no number, is a mistake.
    const double c0 = estimated_speed_of_sound(c);
    if (!(tables.speed_bound < c0)) {
        int line = c.where.line, k = 0;
        for (const BoundaryObjectRef& o : boundary_objects(c))
            if (o.properties->motion)
                for (const MotionSegment& s : o.properties->motion->segments)
                    if (k++ == static_cast<int>(tables.fastest_segment))
                        line = s.line;
        r.fail(line, "this motion moves its walls at up to " + format_number(tables.speed_bound) +
                         " m/s, not below the speed of sound c0 = " + format_number(c0) +
                         " m/s of the case: a weakly compressible fluid follows walls well "
                         "below c0 (Mach 0.1); check the motion's magnitudes and units");
    }
    if (const auto exit = first_domain_exit(c, tables, c.run.end_time)) {
        const BoundaryObjectRef o = boundary_objects(c)[exit->object];
        r.fail(o.properties->motion->line,
               "the <" + std::string(o.element) + "> at line " + std::to_string(o.where.line) +
                   (exit->proven ? " leaves the domain " : " may leave the domain ") +
                   describe_box(c, c.domain) +
                   (exit->proven ? " at t = " + format_number(exit->time) + " s"
                                 : " by more than dp/100 from t = " + format_number(exit->time) +
                                       " s (the check could not decide within its work limit)") +
                   " under its motion; give a larger <domain> or change the motion");
    }
}

} // namespace sluice::case_xml
