// Measurements of `sluice measure`: parsing, checks against the case, the gauges they become
// (app/measurements.h).

#include "app/measurements.h"

#include "app/command_line.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace sluice {

namespace {

const char* kind_name(MeasureKind k) {
    switch (k) {
    case MeasureKind::point:
        return "point";
    case MeasureKind::height:
        return "height";
    case MeasureKind::line:
        return "line";
    case MeasureKind::plane:
        return "plane";
    }
    return "?";
}

/// The form of a kind's spec in a case of `dimension`, for messages.
std::string form(MeasureKind k, int dimension) {
    const std::string p = dimension == 2 ? "X,Z" : "X,Y,Z";
    switch (k) {
    case MeasureKind::point:
        return "NAME=" + p;
    case MeasureKind::height:
        return dimension == 2 ? "NAME=X" : "NAME=X,Y";
    case MeasureKind::line:
        return "NAME=" + p + ":" + p + ":N";
    case MeasureKind::plane:
        return "NAME=" + p + ":" + p + ":" + p + ":NA,NB";
    }
    return "";
}

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, by))
        out.push_back(part);
    if (!text.empty() && text.back() == by)
        out.emplace_back();
    return out;
}

struct SpecParser {
    MeasureKind kind;
    const Case& c;
    std::string where, spec;

    [[noreturn]] void fail(const std::string& why) const {
        throw UsageError(where + ": " + kind_name(kind) + " '" + spec + "': " + why +
                             " (the form: " + form(kind, c.dimension) + ", m)",
                         "measure");
    }

    double number(const std::string& text) const {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v))
            fail("'" + text + "' is not a finite number");
        return v;
    }

    /// `values` numbers separated by commas.
    std::vector<double> numbers(const std::string& text, std::size_t values) const {
        const std::vector<std::string> parts = split(text, ',');
        if (parts.size() != values)
            fail("'" + text + "' has " + std::to_string(parts.size()) + " number(s), " +
                 std::to_string(values) + " expected");
        std::vector<double> out;
        for (const std::string& p : parts)
            out.push_back(number(p));
        return out;
    }

    /// A position: (x, z) in 2D, (x, y, z) in 3D.
    std::array<double, 3> position(const std::string& text) const {
        const std::vector<double> v = numbers(text, static_cast<std::size_t>(c.dimension));
        return c.dimension == 2 ? std::array<double, 3>{v[0], 0.0, v[1]}
                                : std::array<double, 3>{v[0], v[1], v[2]};
    }

    int count(const std::string& text, const char* what, double most) const {
        const double v = number(text);
        if (v != std::floor(v) || v < 2 || v > most) {
            std::ostringstream why;
            why << what << " '" << text << "' is not a whole number from 2 to " << most;
            fail(why.str());
        }
        return static_cast<int>(v);
    }

    void require_inside(const std::array<double, 3>& p, bool vertical_line) const {
        const Box& d = c.domain;
        for (int k = 0; k < 3; ++k) {
            if ((c.dimension == 2 && k == 1) || (vertical_line && k == 2))
                continue;
            if (p[k] < d.min[k] || p[k] > d.max[k]) {
                std::ostringstream why;
                why << "(" << p[0] << ", " << p[1] << ", " << p[2]
                    << ") m lies outside the run's domain, [" << d.min.x() << ", " << d.max.x()
                    << "] × [" << d.min.y() << ", " << d.max.y() << "] × [" << d.min.z() << ", "
                    << d.max.z() << "] m";
                fail(why.str());
            }
        }
    }
};

/// As the case reader's gauge names (letters, digits, '_', '-'; no '.', which separates a probe's
/// field in a column's name), and not `t`, the time column.
bool csv_safe(const std::string& name) {
    return !name.empty() && name != "t" && std::all_of(name.begin(), name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
    });
}

std::string line_point_name(const Measurement& m, int k) {
    return m.name + "_" + std::to_string(k);
}

} // namespace

Measurement parse_measurement(MeasureKind kind, const std::string& spec, const Case& c,
                              const std::string& where) {
    const SpecParser p{kind, c, where, spec};
    const std::size_t equals = spec.find('=');
    if (equals == std::string::npos)
        p.fail("no NAME= in front");
    Measurement m;
    m.kind = kind;
    m.name = spec.substr(0, equals);
    m.where = where;
    if (!csv_safe(m.name))
        p.fail("the name '" + m.name + "' is not letters, digits, '_' or '-' (nor 't')");
    const std::vector<std::string> parts = split(spec.substr(equals + 1), ':');
    const std::size_t expected = kind == MeasureKind::line ? 3 : kind == MeasureKind::plane ? 4 : 1;
    if (parts.size() != expected)
        p.fail(std::to_string(parts.size()) + " part(s) separated by ':', " +
               std::to_string(expected) + " expected");
    switch (kind) {
    case MeasureKind::point:
        m.a = p.position(parts[0]);
        p.require_inside(m.a, false);
        break;
    case MeasureKind::height: {
        const std::vector<double> v = p.numbers(parts[0], c.dimension == 2 ? 1 : 2);
        m.a = {v[0], c.dimension == 2 ? 0.0 : v[1], 0.0};
        p.require_inside(m.a, true);
        break;
    }
    case MeasureKind::line:
        m.a = p.position(parts[0]);
        m.b = p.position(parts[1]);
        m.count[0] = p.count(parts[2], "N", 1e4); // a CSV column per point and field
        p.require_inside(m.a, false);
        p.require_inside(m.b, false);
        break;
    case MeasureKind::plane: {
        m.a = p.position(parts[0]);
        m.b = p.position(parts[1]);
        m.c = p.position(parts[2]);
        const std::vector<std::string> counts = split(parts[3], ',');
        if (counts.size() != 2)
            p.fail("'" + parts[3] + "' is not two counts NA,NB");
        m.count = {p.count(counts[0], "NA", 1e7), p.count(counts[1], "NB", 1e7)};
        if (static_cast<double>(m.count[0]) * m.count[1] > 1e7)
            p.fail("more than 10^7 points");
        double cross2 = 0.0; // |(A − O) × (B − O)|²: a plane of no area is no plane
        for (int k = 0; k < 3; ++k) {
            const int u = (k + 1) % 3, v = (k + 2) % 3;
            const double component =
                (m.b[u] - m.a[u]) * (m.c[v] - m.a[v]) - (m.b[v] - m.a[v]) * (m.c[u] - m.a[u]);
            cross2 += component * component;
        }
        if (!(cross2 > 0.0))
            p.fail("its corners O, A and B lie on one line: it has no area");
        std::array<double, 3> far{}; // the fourth corner
        for (int k = 0; k < 3; ++k)
            far[k] = m.b[k] + m.c[k] - m.a[k];
        for (const auto& corner : {m.a, m.b, m.c, far})
            p.require_inside(corner, false);
        break;
    }
    }
    return m;
}

std::vector<Measurement> read_measurement_file(const std::string& path, const Case& c) {
    std::ifstream in(path);
    if (!in)
        throw UsageError("--file '" + path + "' cannot be read", "measure");
    std::vector<Measurement> out;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        text = text.substr(0, text.find('#'));
        std::istringstream words(text);
        std::string kind, spec, extra;
        if (!(words >> kind))
            continue;
        const std::string where = path + ":" + std::to_string(line);
        if (!(words >> spec) || (words >> extra))
            throw UsageError(where + ": '" + text +
                                 "' is not 'KIND SPEC' (KIND: point, height, line or plane; the "
                                 "spec without spaces)",
                             "measure");
        const MeasureKind k = kind == "point"    ? MeasureKind::point
                              : kind == "height" ? MeasureKind::height
                              : kind == "line"   ? MeasureKind::line
                              : kind == "plane"
                                  ? MeasureKind::plane
                                  : throw UsageError(where + ": unknown kind '" + kind +
                                                         "' (valid: point, height, line, plane)",
                                                     "measure");
        out.push_back(parse_measurement(k, spec, c, where));
    }
    return out;
}

void require_unique_names(const std::vector<Measurement>& all) {
    std::set<std::string> seen;
    for (const Measurement& m : all) {
        std::vector<std::string> names{m.name};
        if (m.kind == MeasureKind::line)
            for (int k = 0; k < m.count[0]; ++k)
                names.push_back(line_point_name(m, k));
        for (const std::string& n : names)
            if (!seen.insert(n).second)
                throw UsageError(m.where + ": the name '" + n + "' is taken by another measurement",
                                 "measure");
    }
}

Gauges as_gauges(const std::vector<Measurement>& all, const std::vector<ProbeField>& fields) {
    Gauges out;
    out.interval = 1.0; // unused: a measurement is taken at every chosen snapshot
    const auto probe = [&](const std::string& name, const std::array<double, 3>& x) {
        Gauge g;
        g.kind = GaugeKind::probe;
        g.name = name;
        g.point = {x[0], x[1], x[2]};
        g.fields = fields;
        out.gauges.push_back(g);
    };
    for (const Measurement& m : all) {
        if (m.kind == MeasureKind::point) {
            probe(m.name, m.a);
        } else if (m.kind == MeasureKind::height) {
            Gauge g;
            g.kind = GaugeKind::height;
            g.name = m.name;
            g.point = {m.a[0], m.a[1], 0.0};
            out.gauges.push_back(g);
        } else if (m.kind == MeasureKind::line) {
            for (int k = 0; k < m.count[0]; ++k) {
                const double s = static_cast<double>(k) / (m.count[0] - 1);
                std::array<double, 3> x{};
                for (int a = 0; a < 3; ++a)
                    x[a] = m.a[a] + s * (m.b[a] - m.a[a]);
                probe(line_point_name(m, k), x);
            }
        }
    }
    return out;
}

std::vector<std::array<float, 3>> plane_points(const Measurement& plane) {
    std::vector<std::array<float, 3>> out;
    out.reserve(static_cast<std::size_t>(plane.count[0]) * plane.count[1]);
    for (int j = 0; j < plane.count[1]; ++j)
        for (int i = 0; i < plane.count[0]; ++i) {
            const double s = static_cast<double>(i) / (plane.count[0] - 1);
            const double t = static_cast<double>(j) / (plane.count[1] - 1);
            std::array<float, 3> x{};
            for (int a = 0; a < 3; ++a)
                x[a] = static_cast<float>(plane.a[a] + s * (plane.b[a] - plane.a[a]) +
                                          t * (plane.c[a] - plane.a[a]));
            out.push_back(x);
        }
    return out;
}

std::vector<ProbeField> parse_probe_fields(const std::string& text) {
    std::vector<ProbeField> out;
    std::string word;
    std::string spaced = text;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::istringstream words(spaced);
    while (words >> word) {
        ProbeField f{};
        bool known = false;
        for (const ProbeField candidate : {ProbeField::pressure, ProbeField::velocity,
                                           ProbeField::density, ProbeField::fraction})
            if (word == to_string(candidate)) {
                f = candidate;
                known = true;
            }
        if (!known)
            throw UsageError("--fields: unknown field '" + word +
                                 "' (valid: pressure, velocity, density, fraction)",
                             "measure");
        if (std::find(out.begin(), out.end(), f) != out.end())
            throw UsageError("--fields: '" + word + "' is listed twice", "measure");
        out.push_back(f);
    }
    if (out.empty())
        throw UsageError("--fields: name one or more of pressure, velocity, density, fraction",
                         "measure");
    return out;
}

} // namespace sluice
