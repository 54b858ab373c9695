#include "case/gauge_reader.h"

#include "case/gauge_plan.h"
#include "case/geometry_checks.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::case_xml {

namespace {

/// Where the face of a sensor of `radius` around `point` leaves the wall that `point` lies on,
/// sampled on its rim: a rim point with no wall surface within dp, or on another face (its
/// normal turned by more than 60°; a face on a curved wall turns by radius/curvature radius);
/// nothing when it stays on the wall.
std::optional<std::string> sensor_face_off_wall(const Case& c, const Eigen::Vector3d& point,
                                                double radius) {
    const std::optional<Eigen::Vector3d> n = sensor_wall_normal(c, point);
    if (radius <= 0.0 || !n)
        return std::nullopt;
    const Eigen::Vector3d t1 =
        c.dimension == 2 ? Eigen::Vector3d(-n->z(), 0.0, n->x()) : n->unitOrthogonal();
    const Eigen::Vector3d t2 = n->cross(t1);
    const int rim = c.dimension == 2 ? 2 : 16;
    for (int k = 0; k < rim; ++k) {
        const double angle = 2.0 * 3.14159265358979323846 * k / rim;
        const Eigen::Vector3d q =
            point +
            radius * (std::cos(angle) * t1 + (c.dimension == 2 ? 0.0 : std::sin(angle)) * t2);
        const std::optional<Eigen::Vector3d> m = sensor_wall_normal(c, q);
        if (!q.allFinite() || !m || m->dot(*n) < 0.5) {
            std::ostringstream at;
            at << "(" << q.x() << " ";
            if (c.dimension == 3)
                at << q.y() << " ";
            at << q.z() << ")";
            return at.str();
        }
    }
    return std::nullopt;
}

/// <gauges interval="T"> with <height name x [y]/>, <probe name point [fields]/>,
/// <front name direction/> and <sensor name point [radius] [average]/> children; names unique;
/// every gauge inside the domain, every sensor on a wall (case/gauge_plan.h).
} // namespace

void read_gauges(const Reader& r, const Element& g, const Case& c, Gauges& out) {
    g.require("interval", "simulated time in s between rows of gauges.csv");
    out.interval = *g.number("interval", greater_than(0));
    std::vector<std::pair<std::string, int>> names;
    auto inside = [&](const Eigen::Vector3d& p, bool vertical_line) {
        for (const int k : r.axes()) {
            if (vertical_line && k == 2)
                continue;
            if (p[k] < c.domain.min[k] || p[k] > c.domain.max[k])
                return false;
        }
        return true;
    };
    static const Choices<ProbeField> field_names = {{"pressure", ProbeField::pressure},
                                                    {"velocity", ProbeField::velocity},
                                                    {"density", ProbeField::density},
                                                    {"fraction", ProbeField::fraction}};
    for (const XMLElement* x : g.all_children()) {
        const std::string_view tag = x->Name();
        Gauge gauge;
        std::unique_ptr<Element> e;
        if (tag == "height") {
            e = std::make_unique<Element>(
                r, *x, r.dimension == 2 ? Names{"name", "x"} : Names{"name", "x", "y"});
            gauge.kind = GaugeKind::height;
            e->require("x", "the line's x in m");
            gauge.point.x() = *e->number("x");
            if (r.dimension == 3) {
                e->require("y", "the line's y in m");
                gauge.point.y() = *e->number("y");
            }
            if (!inside(gauge.point, true))
                e->fail("<height> line at " + format_number(gauge.point.x()) +
                        (r.dimension == 3 ? ", " + format_number(gauge.point.y()) : "") +
                        " lies outside the domain " + describe_box(c, c.domain));
        } else if (tag == "probe") {
            e = std::make_unique<Element>(r, *x, Names{"name", "point", "fields"});
            gauge.kind = GaugeKind::probe;
            gauge.point = e->point("point");
            if (!inside(gauge.point, false))
                e->fail_attribute("point", "outside the domain " + describe_box(c, c.domain));
            const std::string fields = e->text("fields").value_or("pressure velocity");
            const auto words = split(fields);
            if (words.empty())
                e->fail_attribute(
                    "fields", "empty; name one or more of pressure, velocity, density, fraction");
            for (const auto word : words) {
                const auto it = std::find_if(field_names.begin(), field_names.end(),
                                             [&](const auto& f) { return f.first == word; });
                if (it == field_names.end())
                    e->fail_attribute("fields", "unknown field '" + std::string(word) + "'" +
                                                    suggest(word, names_of(field_names)));
                if (std::find(gauge.fields.begin(), gauge.fields.end(), it->second) !=
                    gauge.fields.end())
                    e->fail_attribute("fields", "field '" + std::string(word) + "' listed twice");
                gauge.fields.push_back(it->second);
            }
        } else if (tag == "sensor") {
            e = std::make_unique<Element>(r, *x, Names{"name", "point", "radius", "average"});
            gauge.kind = GaugeKind::sensor;
            e->require("point", "a point on a wall's surface in m");
            gauge.point = e->point("point");
            if (!inside(gauge.point, false))
                e->fail_attribute("point", "outside the domain " + describe_box(c, c.domain));
            if (!sensor_wall_normal(c, gauge.point))
                e->fail_attribute("point", "not on a wall: a sensor's point lies within dp (" +
                                               format_number(c.dp) +
                                               " m) of the surface of the tank or an obstacle");
            gauge.radius = e->number("radius", at_least(0)).value_or(0.0);
            if (const auto off = sensor_face_off_wall(c, gauge.point, gauge.radius))
                e->fail_attribute("radius", "the sensor's face of radius " +
                                                format_number(gauge.radius) +
                                                " m reaches off its wall (at " + *off +
                                                "); a transducer's face lies on one wall");
            static const Choices<bool> yes_no = {{"true", true}, {"false", false}};
            gauge.average = e->choice("average", "sensor averaging", yes_no).value_or(false);
        } else { // front (the children were checked against the list)
            e = std::make_unique<Element>(r, *x, Names{"name", "direction"});
            gauge.kind = GaugeKind::front;
            e->require("direction",
                       r.dimension == 2 ? "+x, -x, +z or -z" : "+x, -x, +y, -y, +z or -z");
            const std::string d = *e->text("direction");
            const bool ok = d.size() == 2 && (d[0] == '+' || d[0] == '-') &&
                            (d[1] == 'x' || d[1] == 'z' || (d[1] == 'y' && r.dimension == 3));
            if (!ok)
                e->fail_attribute("direction",
                                  std::string("expected ") +
                                      (r.dimension == 2 ? "+x, -x, +z or -z (a 2D case lies in x-z)"
                                                        : "+x, -x, +y, -y, +z or -z"));
            gauge.sign = d[0] == '+' ? 1 : -1;
            gauge.axis = d[1] == 'x' ? 0 : d[1] == 'y' ? 1 : 2;
        }
        e->require("name", "the column name in gauges.csv");
        gauge.name = *e->text("name");
        const bool name_ok =
            !gauge.name.empty() && std::all_of(gauge.name.begin(), gauge.name.end(), [](char ch) {
                return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
            });
        if (!name_ok)
            e->fail_attribute("name", "a gauge name is letters, digits, '_' or '-' (it heads CSV "
                                      "columns)");
        for (const auto& [other, line] : names)
            if (other == gauge.name)
                e->fail_attribute("name", "duplicate gauge name (also at line " +
                                              std::to_string(line) + ")");
        names.emplace_back(gauge.name, e->line());
        gauge.where = e->where();
        out.gauges.push_back(std::move(gauge));
    }
    if (out.gauges.empty())
        g.fail("<gauges> needs at least one <height>, <probe>, <front> or <sensor>");
}

} // namespace sluice::case_xml
