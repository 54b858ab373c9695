#include "case/case_reader.h"

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

CaseError::CaseError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(line > 0 ? file + ":" + std::to_string(line) + ": " + message
                                  : file + ": " + message),
      file_(file), line_(line), message_(message) {}

namespace {

using tinyxml2::XMLElement;
using Names = std::vector<std::string_view>;

constexpr double inf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Words: splitting, joining, near-miss suggestions.

bool is_space(char ch) {
    return std::isspace(static_cast<unsigned char>(ch)) != 0;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i]))
            ++i;
        const std::size_t begin = i;
        while (i < s.size() && !is_space(s[i]))
            ++i;
        if (i > begin)
            words.push_back(s.substr(begin, i - begin));
    }
    return words;
}

std::string join(const Names& names, const char* separator = ", ") {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty())
            out += separator;
        out += n;
    }
    return out;
}

/// Levenshtein distance (insertions, deletions, substitutions), two-row dynamic programme.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

/// The valid name nearest to `word` if it is a near miss (edit distance ≤ 2).
std::optional<std::string_view> near_miss(std::string_view word, const Names& valid) {
    std::optional<std::string_view> best;
    std::size_t best_distance = 3;
    for (const auto& v : valid) {
        const std::size_t d = edit_distance(word, v);
        if (d < best_distance) {
            best = v;
            best_distance = d;
        }
    }
    return best;
}

/// "; did you mean 'X'?" for a near miss, else " (valid: a, b, c)".
std::string suggest(std::string_view word, const Names& valid) {
    if (const auto best = near_miss(word, valid))
        return "; did you mean '" + std::string(*best) + "'?";
    return " (valid: " + join(valid) + ")";
}

std::string format_number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// ---------------------------------------------------------------------------------------------
// Numbers.

/// A set of allowed values: an interval whose ends may be open or closed, or infinite.
struct Range {
    double lo = -inf;
    bool lo_closed = false;
    double hi = inf;
    bool hi_closed = false;

    bool contains(double v) const {
        return (lo_closed ? v >= lo : v > lo) && (hi_closed ? v <= hi : v < hi);
    }
    std::string describe() const {
        if (hi == inf)
            return (lo_closed ? ">= " : "> ") + format_number(lo);
        if (lo == -inf)
            return (hi_closed ? "<= " : "< ") + format_number(hi);
        return std::string("in ") + (lo_closed ? "[" : "(") + format_number(lo) + ", " +
               format_number(hi) + (hi_closed ? "]" : ")");
    }
};

Range greater_than(double lo) {
    return {lo, false, inf, false};
}
Range at_least(double lo) {
    return {lo, true, inf, false};
}
Range between_open(double lo, double hi) {
    return {lo, false, hi, false};
}
Range above_up_to(double lo, double hi) {
    return {lo, false, hi, true};
}

/// Parses all of `text` (surrounding blanks allowed) as a finite number in the C locale.
/// On failure returns nullopt and says why in `why`.
std::optional<double> to_number(std::string_view text, std::string& why) {
    text = trim(text);
    if (text.empty()) {
        why = "empty, expected a number";
        return std::nullopt;
    }
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    if (*begin == '+' && end - begin > 1 && begin[1] != '-' && begin[1] != '+')
        ++begin; // from_chars refuses a leading '+', people write it
    double v = 0.0;
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc::result_out_of_range) {
        why = "out of the range of a double";
        return std::nullopt;
    }
    if (ec != std::errc() || stop == begin) {
        why = "not a number";
        return std::nullopt;
    }
    if (stop != end) {
        why = "not a number (trailing '" + std::string(stop, end) + "')";
        return std::nullopt;
    }
    if (!std::isfinite(v)) {
        why = "not a finite number";
        return std::nullopt;
    }
    return v;
}

/// Parses all of `text` as a decimal integer that fits an int.
std::optional<int> to_integer(std::string_view text, std::string& why) {
    text = trim(text);
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    if (begin != end && *begin == '+' && end - begin > 1 && begin[1] != '-')
        ++begin;
    int v = 0;
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (text.empty() || ec != std::errc() || stop != end) {
        why = ec == std::errc::result_out_of_range ? "out of the range of an integer"
                                                   : "not an integer";
        return std::nullopt;
    }
    return v;
}

// ---------------------------------------------------------------------------------------------
// The helper layer: one element, its attributes and children, every error at its line.

template <class T>
using Choices = std::vector<std::pair<std::string_view, T>>;

template <class T>
Names names_of(const Choices<T>& choices) {
    Names names;
    for (const auto& c : choices)
        names.push_back(c.first);
    return names;
}

/// State shared by one parse.
struct Reader {
    std::string file;
    int dimension = 3; ///< known once the root is read; points are parsed after that

    [[noreturn]] void fail(int line, const std::string& message) const {
        throw CaseError(file, line, message);
    }
    /// The axes that exist: x, z in 2D; x, y, z in 3D.
    std::vector<int> axes() const {
        return dimension == 2 ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2};
    }
};

const char* axis_name(int axis) {
    return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

/// One XML element being read. The constructor rejects attributes and child elements not in
/// the given lists (with a near-miss hint) and any text content. The getters read one attribute
/// each: absent gives nullopt (the caller applies the default with value_or), present but
/// malformed or out of range throws CaseError at the attribute's own line.
class Element {
public:
    Element(const Reader& reader, const XMLElement& xml, Names attributes, Names children = {})
        : r_(reader), xml_(xml), children_(std::move(children)) {
        for (auto* a = xml.FirstAttribute(); a; a = a->Next())
            if (std::find(attributes.begin(), attributes.end(), a->Name()) == attributes.end())
                r_.fail(
                    a->GetLineNum(),
                    "unknown attribute '" + std::string(a->Name()) + "' of " + tag() +
                        (attributes.empty() ? " (it takes none)" : suggest(a->Name(), attributes)));
        for (auto* n = xml.FirstChild(); n; n = n->NextSibling()) {
            if (const auto* text = n->ToText()) {
                const auto t = trim(text->Value());
                if (!t.empty())
                    r_.fail(text->GetLineNum(), "unexpected text '" + std::string(t.substr(0, 20)) +
                                                    "' in " + tag() + "; values go in attributes");
            } else if (const auto* child = n->ToElement()) {
                const std::string_view name = child->Name();
                if (std::find(children_.begin(), children_.end(), name) != children_.end())
                    continue;
                if (children_.empty())
                    r_.fail(child->GetLineNum(), "unexpected element <" + std::string(name) +
                                                     "> inside " + tag() +
                                                     ", which takes no child elements");
                r_.fail(child->GetLineNum(), "unknown element <" + std::string(name) + "> in " +
                                                 tag() + suggest(name, children_));
            }
        }
    }

    int line() const { return xml_.GetLineNum(); }
    SourceLocation where() const { return {r_.file, line()}; }
    std::string tag() const { return "<" + std::string(xml_.Name()) + ">"; }

    [[noreturn]] void fail(const std::string& message) const { r_.fail(line(), message); }

    /// Fails at the attribute's line with `<tag attr="value">: problem`.
    [[noreturn]] void fail_attribute(const char* attr, const std::string& problem) const {
        const auto* a = xml_.FindAttribute(attr);
        r_.fail(a ? a->GetLineNum() : line(), "<" + std::string(xml_.Name()) + " " + attr + "=\"" +
                                                  (a ? a->Value() : "") + "\">: " + problem);
    }

    bool has(const char* attr) const { return xml_.FindAttribute(attr) != nullptr; }

    /// Fails unless the attribute is present; `what` says what it is, for the message.
    void require(const char* attr, const char* what) const {
        if (!has(attr))
            fail(tag() + " needs the attribute '" + attr + "' (" + what + ")");
    }

    std::optional<std::string> text(const char* attr) const {
        const char* v = xml_.Attribute(attr);
        return v ? std::optional<std::string>(v) : std::nullopt;
    }

    std::optional<double> number(const char* attr, Range range = {}) const {
        return checked(attr, range, to_number);
    }

    std::optional<int> integer(const char* attr, Range range = {}) const {
        return checked(attr, range, to_integer);
    }

    /// A required point: "x z" in 2D (stored as (x, 0, z)), "x y z" in 3D.
    Eigen::Vector3d point(const char* attr) const {
        const bool two_d = r_.dimension == 2;
        require(attr, two_d ? "a point \"x z\" in m" : "a point \"x y z\" in m");
        const std::string t = *text(attr);
        const auto words = split(t);
        if (static_cast<int>(words.size()) != r_.dimension)
            fail_attribute(attr, std::string("a ") +
                                     (two_d ? "2D point has 2 components \"x z\""
                                            : "3D point has 3 components "
                                              "\"x y z\"") +
                                     ", got " + std::to_string(words.size()));
        double c[3] = {0.0, 0.0, 0.0};
        for (std::size_t k = 0; k < words.size(); ++k) {
            std::string why;
            const auto v = to_number(words[k], why);
            if (!v)
                fail_attribute(attr, "component " + std::to_string(k + 1) + " '" +
                                         std::string(words[k]) + "' is " + why);
            c[k] = *v;
        }
        return two_d ? Eigen::Vector3d(c[0], 0.0, c[1]) : Eigen::Vector3d(c[0], c[1], c[2]);
    }

    /// One name of `choices`; `what` names the kind for the message ("kernel").
    template <class T>
    std::optional<T> choice(const char* attr, const char* what, const Choices<T>& choices) const {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        for (const auto& [name, value] : choices)
            if (name == *t)
                return value;
        const Names names = names_of(choices);
        const auto best = near_miss(*t, names);
        fail_attribute(attr, std::string("unknown ") + what +
                                 (best ? "; did you mean '" + std::string(*best) + "'?" : "") +
                                 " (valid: " + join(names) + ")");
    }

    /// Applies a parser that throws std::invalid_argument (neighbours/module.h) to the
    /// attribute; its message becomes "file:line: message".
    template <class ParserT>
    auto parsed(const char* attr, ParserT parser) const
        -> std::optional<decltype(parser(std::string_view()))> {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        try {
            return parser(*t);
        } catch (const std::invalid_argument& e) {
            r_.fail(xml_.FindAttribute(attr)->GetLineNum(), e.what());
        }
    }

    /// The child elements called `name` (already checked to be allowed here).
    std::vector<const XMLElement*> all(const char* name) const {
        std::vector<const XMLElement*> out;
        for (auto* c = xml_.FirstChildElement(name); c; c = c->NextSiblingElement(name))
            out.push_back(c);
        return out;
    }

    /// The child element called `name` if there is one; a second one is an error.
    const XMLElement* single(const char* name) const {
        const auto children = all(name);
        if (children.size() > 1)
            r_.fail(children[1]->GetLineNum(),
                    "second <" + std::string(name) + "> in " + tag() + " (the first is at line " +
                        std::to_string(children[0]->GetLineNum()) + "); only one is allowed");
        return children.empty() ? nullptr : children[0];
    }

private:
    /// The attribute parsed by `parse` (to_number, to_integer) and checked against `range`.
    template <class T>
    std::optional<T> checked(const char* attr, const Range& range,
                             std::optional<T> (*parse)(std::string_view, std::string&)) const {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        std::string why;
        const auto v = parse(*t, why);
        if (!v)
            fail_attribute(attr, why);
        if (!range.contains(*v))
            fail_attribute(attr, "out of range, must be " + range.describe());
        return v;
    }

    const Reader& r_;
    const XMLElement& xml_;
    Names children_;
};

// ---------------------------------------------------------------------------------------------
// Geometry.

/// Reads min/max; both required, min < max on every axis. With `dp` > 0 the box must also be
/// at least dp thick on every axis, else its lattice holds no particle.
Box read_box(const Reader& r, const Element& e, double dp) {
    Box b{e.point("min"), e.point("max")};
    for (const int k : r.axes()) {
        if (!(b.min[k] < b.max[k]))
            e.fail(e.tag() + " is empty: on " + axis_name(k) + " min = " + format_number(b.min[k]) +
                   " is not below max = " + format_number(b.max[k]));
        const double extent = b.max[k] - b.min[k];
        if (dp > 0.0 && extent < dp * (1.0 - 1e-6))
            e.fail(e.tag() + " is " + format_number(extent) + " m thick on " + axis_name(k) +
                   ", thinner than dp = " + format_number(dp) + " m: it holds no particle");
    }
    return b;
}

/// The faces of a tank; names as tank_faces_to_string spells them. Default: all but the top.
unsigned read_faces(const Reader& r, const Element& e) {
    const unsigned plane_faces = face_bottom | face_top | face_left | face_right;
    const unsigned valid = r.dimension == 2 ? plane_faces : plane_faces | face_front | face_back;
    const auto t = e.text("faces");
    if (!t)
        return valid & ~face_top;
    const auto words = split(*t);
    if (words.empty())
        e.fail_attribute("faces",
                         "empty faces list; name one or more of " + tank_faces_to_string(valid));
    std::vector<std::string> names; // names[k] is the face of bit k
    for (unsigned k = 0; k < 6; ++k)
        names.push_back(tank_faces_to_string(1u << k));
    unsigned faces = 0;
    for (const auto word : words) {
        const auto k =
            static_cast<unsigned>(std::find(names.begin(), names.end(), word) - names.begin());
        if (k == names.size()) {
            const auto best = near_miss(word, Names(names.begin(), names.end()));
            e.fail_attribute("faces",
                             "unknown face '" + std::string(word) + "'" +
                                 (best ? "; did you mean '" + std::string(*best) + "'?" : "") +
                                 " (valid: " + tank_faces_to_string(valid) + ")");
        }
        const unsigned bit = 1u << k;
        if (!(bit & valid))
            e.fail_attribute("faces", "face '" + std::string(word) +
                                          "' exists only in 3D; a 2D case lies in the x-z plane "
                                          "(faces: " +
                                          tank_faces_to_string(plane_faces) + ")");
        if (faces & bit)
            e.fail_attribute("faces", "face '" + std::string(word) + "' is listed twice");
        faces |= bit;
    }
    return faces;
}

/// The tank box grown by its wall layers on every chosen face.
Box tank_with_walls(const TankWalls& t, double dp) {
    Box b = t.box;
    const double w = t.layers * dp;
    const unsigned lo_faces[3] = {face_left, face_front, face_bottom};
    const unsigned hi_faces[3] = {face_right, face_back, face_top};
    for (int k = 0; k < 3; ++k) {
        if (t.faces & lo_faces[k])
            b.min[k] -= w;
        if (t.faces & hi_faces[k])
            b.max[k] += w;
    }
    return b;
}

/// Geometric comparisons allow dp·1e-6 of rounding.
bool overlaps(const Reader& r, const Box& a, const Box& b, double tol) {
    for (const int k : r.axes())
        if (std::min(a.max[k], b.max[k]) - std::max(a.min[k], b.min[k]) <= tol)
            return false;
    return true;
}

bool contains(const Reader& r, const Box& outer, const Box& inner, double tol) {
    for (const int k : r.axes())
        if (inner.min[k] < outer.min[k] - tol || inner.max[k] > outer.max[k] + tol)
            return false;
    return true;
}

void grow_to(Box& b, const Box& other) {
    b.min = b.min.cwiseMin(other.min);
    b.max = b.max.cwiseMax(other.max);
}

std::string describe_box(const Reader& r, const Box& b) {
    std::string lo, hi;
    for (const int k : r.axes()) {
        lo += (lo.empty() ? "" : " ") + format_number(b.min[k]);
        hi += (hi.empty() ? "" : " ") + format_number(b.max[k]);
    }
    return "[" + lo + "] .. [" + hi + "]";
}

std::string line_ref(const SourceLocation& where) {
    return "line " + std::to_string(where.line);
}

// ---------------------------------------------------------------------------------------------
// The sections of a case.

void read_constants(const Element& e, Constants& k) {
    k.gravity = e.number("gravity", at_least(0)).value_or(k.gravity);
    k.rho0 = e.number("rho0", greater_than(0)).value_or(k.rho0);
    k.gamma = e.number("gamma", greater_than(0)).value_or(k.gamma);
    if (e.has("coefSound") && e.has("speedOfSound"))
        e.fail_attribute("speedOfSound", "give either coefSound or speedOfSound, not both");
    k.coef_sound = e.number("coefSound", greater_than(0)).value_or(k.coef_sound);
    k.speed_of_sound = e.number("speedOfSound", greater_than(0));
    k.coefh = e.number("coefh", greater_than(0)).value_or(k.coefh);
    k.cfl = e.number("cfl", above_up_to(0, 1)).value_or(k.cfl);
}

void read_geometry(const Reader& r, const Element& g, Case& c) {
    g.require("dp", "the particle spacing in m");
    c.dp = *g.number("dp", greater_than(0));

    for (const XMLElement* x : g.all("fluid")) {
        const Element e(r, *x, {"min", "max"});
        c.fluids.push_back({read_box(r, e, c.dp), e.where()});
    }
    if (c.fluids.empty())
        g.fail("<geometry> needs at least one <fluid> box");

    if (const XMLElement* x = g.single("tank")) {
        const Element e(r, *x, {"min", "max", "faces", "layers"});
        TankWalls t;
        t.box = read_box(r, e, c.dp);
        t.faces = read_faces(r, e);
        t.layers = e.integer("layers", at_least(1)).value_or(t.layers);
        t.where = e.where();
        c.tank = t;
    }

    for (const XMLElement* x : g.all("obstacle")) {
        const Element e(r, *x, {"min", "max"});
        c.obstacles.push_back({read_box(r, e, c.dp), e.where()});
    }

    const double tol = 1e-6 * c.dp;
    for (std::size_t i = 0; i < c.fluids.size(); ++i) {
        const FluidRegion& f = c.fluids[i];
        const int line = f.where.line;
        if (c.tank && !contains(r, c.tank->box, f.box, tol))
            r.fail(line, "<fluid> " + describe_box(r, f.box) +
                             " reaches outside the tank interior " + describe_box(r, c.tank->box) +
                             " (<tank> at " + line_ref(c.tank->where) + ")");
        for (std::size_t j = 0; j < i; ++j)
            if (overlaps(r, f.box, c.fluids[j].box, tol))
                r.fail(line, "<fluid> overlaps the <fluid> at " + line_ref(c.fluids[j].where));
        for (const Obstacle& o : c.obstacles)
            if (overlaps(r, f.box, o.box, tol))
                r.fail(line, "<fluid> overlaps the <obstacle> at " + line_ref(o.where));
    }

    if (const XMLElement* x = g.single("domain")) {
        const Element e(r, *x, {"min", "max"});
        c.domain = read_box(r, e, 0.0);
        for (const FluidRegion& f : c.fluids)
            if (!contains(r, c.domain, f.box, tol))
                e.fail("<domain> " + describe_box(r, c.domain) + " does not contain the <fluid> " +
                       describe_box(r, f.box) + " at " + line_ref(f.where));
        if (c.tank && !contains(r, c.domain, tank_with_walls(*c.tank, c.dp), tol))
            e.fail("<domain> " + describe_box(r, c.domain) + " does not contain the tank walls " +
                   describe_box(r, tank_with_walls(*c.tank, c.dp)) + " (<tank> at " +
                   line_ref(c.tank->where) + ", " + std::to_string(c.tank->layers) +
                   " layers of dp outside each face)");
        for (const Obstacle& o : c.obstacles)
            if (!contains(r, c.domain, o.box, tol))
                e.fail("<domain> " + describe_box(r, c.domain) +
                       " does not contain the <obstacle> " + describe_box(r, o.box) + " at " +
                       line_ref(o.where));
    } else {
        // Bounding box of everything that holds particles, grown by 10 % of its largest
        // extent on every side (y stays 0 in 2D).
        Box b = c.fluids.front().box;
        for (const FluidRegion& f : c.fluids)
            grow_to(b, f.box);
        if (c.tank)
            grow_to(b, tank_with_walls(*c.tank, c.dp));
        for (const Obstacle& o : c.obstacles)
            grow_to(b, o.box);
        double largest = 0.0;
        for (const int k : r.axes())
            largest = std::max(largest, b.max[k] - b.min[k]);
        for (const int k : r.axes()) {
            b.min[k] -= 0.1 * largest;
            b.max[k] += 0.1 * largest;
        }
        c.domain = b;
    }
}

void read_physics(const Element& e, Physics& p) {
    static const Choices<KernelKind> kernels = {
        {to_string(KernelKind::wendland_c2), KernelKind::wendland_c2},
        {to_string(KernelKind::cubic_spline), KernelKind::cubic_spline}};
    static const Choices<ViscosityKind> viscosities = {
        {to_string(ViscosityKind::artificial), ViscosityKind::artificial},
        {to_string(ViscosityKind::laminar), ViscosityKind::laminar}};
    static const Choices<DensityDiffusionKind> diffusions = {
        {to_string(DensityDiffusionKind::none), DensityDiffusionKind::none},
        {to_string(DensityDiffusionKind::molteni), DensityDiffusionKind::molteni},
        {to_string(DensityDiffusionKind::fourtakas), DensityDiffusionKind::fourtakas}};
    static const Choices<IntegratorKind> integrators = {
        {to_string(IntegratorKind::symplectic), IntegratorKind::symplectic},
        {to_string(IntegratorKind::verlet), IntegratorKind::verlet}};

    p.kernel = e.choice("kernel", "kernel", kernels).value_or(p.kernel);
    p.viscosity = e.choice("viscosity", "viscosity", viscosities).value_or(p.viscosity);
    p.viscosity_value = e.number("viscosityValue", at_least(0)).value_or(p.viscosity_value);
    p.diffusion = e.choice("diffusion", "density diffusion", diffusions).value_or(p.diffusion);
    p.diffusion_coef = e.number("diffusionCoef", at_least(0)).value_or(p.diffusion_coef);
    p.integrator = e.choice("integrator", "integrator", integrators).value_or(p.integrator);
    p.verlet_reset_steps = e.integer("verletReset", at_least(1)).value_or(p.verlet_reset_steps);
    p.density_min_ratio = e.number("densityMin", between_open(0, 1)).value_or(p.density_min_ratio);
    p.density_max_ratio = e.number("densityMax", greater_than(1)).value_or(p.density_max_ratio);
}

void read_neighbours(const Element& e, NeighbourModule& m) {
    m.construction = e.parsed("construction", parse_construction).value_or(m.construction);
    m.query = e.parsed("query", parse_query).value_or(m.query);
    m.bin_width = e.parsed("binWidth", parse_bin_width).value_or(m.bin_width);
}

void read_run(const Element& e, RunControl& run, const std::string& case_name) {
    run.end_time = e.number("endTime", greater_than(0)).value_or(run.end_time);
    run.output_interval = e.number("outputInterval", greater_than(0)).value_or(run.output_interval);
    run.output_dir = e.text("output").value_or("out/" + case_name);
    if (trim(run.output_dir).empty())
        e.fail_attribute("output",
                         "empty; give a folder or leave the attribute out for out/" + case_name);
}

Case read_document(const std::string& file, const tinyxml2::XMLDocument& doc) {
    Reader r;
    r.file = file;
    const XMLElement* root = doc.RootElement();
    if (!root)
        r.fail(1, "no root element; a case file is one <sluice> element");
    if (std::string_view(root->Name()) != "sluice")
        r.fail(root->GetLineNum(),
               "root element is <" + std::string(root->Name()) + ">, expected <sluice>");
    if (const XMLElement* extra = root->NextSiblingElement())
        r.fail(extra->GetLineNum(), "<" + std::string(extra->Name()) +
                                        "> after </sluice>; a case file holds exactly one "
                                        "<sluice> element");

    const Element s(r, *root, {"name", "dimension"},
                    {"constants", "geometry", "physics", "neighbours", "run"});
    Case c;
    c.where = s.where();

    s.require("name", "the case name, also the default output folder out/<name>");
    c.name = *s.text("name");
    const bool name_ok = !c.name.empty() && std::all_of(c.name.begin(), c.name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
    });
    if (!name_ok)
        s.fail_attribute("name", "a case name is one or more letters, digits, '_', '-' or '.'");

    s.require("dimension", "2 or 3");
    c.dimension = *s.integer("dimension");
    if (c.dimension != 2 && c.dimension != 3)
        s.fail_attribute("dimension", "must be 2 or 3");
    r.dimension = c.dimension;

    if (const XMLElement* x = s.single("constants"))
        read_constants(
            Element(r, *x,
                    {"gravity", "rho0", "gamma", "coefSound", "speedOfSound", "coefh", "cfl"}),
            c.constants);

    const XMLElement* geometry = s.single("geometry");
    if (!geometry)
        s.fail("<sluice> needs a <geometry> element (dp and the fluid boxes)");
    read_geometry(r, Element(r, *geometry, {"dp"}, {"domain", "fluid", "tank", "obstacle"}), c);

    if (const XMLElement* x = s.single("physics"))
        read_physics(Element(r, *x,
                             {"kernel", "viscosity", "viscosityValue", "diffusion", "diffusionCoef",
                              "integrator", "verletReset", "densityMin", "densityMax"}),
                     c.physics);

    if (const XMLElement* x = s.single("neighbours"))
        read_neighbours(Element(r, *x, {"construction", "query", "binWidth"}), c.neighbours);

    c.run.output_dir = "out/" + c.name;
    if (const XMLElement* x = s.single("run"))
        read_run(Element(r, *x, {"endTime", "outputInterval", "output"}), c.run, c.name);
    return c;
}

// ---------------------------------------------------------------------------------------------
// Malformed XML.

/// TinyXML-2 reports a repeated attribute only as XML_ERROR_PARSING_ATTRIBUTE of element `tag`
/// at the line of the repeat. Re-lex that start tag to name the repeated attribute; returns it
/// with its line, or nullopt when the attribute error is something else (e.g. missing quotes).
std::optional<std::pair<std::string, int>>
find_repeated_attribute(const std::string& text, const std::string& tag, int line) {
    std::size_t end_of_line = 0;
    for (int l = 0; l < line && end_of_line != std::string::npos; ++l)
        end_of_line = text.find('\n', end_of_line + (l > 0));
    const std::size_t start = text.rfind("<" + tag, end_of_line);
    if (start == std::string::npos)
        return std::nullopt;
    int cur_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + start, '\n'));
    std::vector<std::string> seen;
    std::size_t p = start + 1 + tag.size();
    const auto skip_blanks = [&] {
        for (; p < text.size() && is_space(text[p]); ++p)
            cur_line += text[p] == '\n';
    };
    while (true) {
        skip_blanks();
        const std::size_t name_begin = p;
        while (p < text.size() && !is_space(text[p]) && text[p] != '=' && text[p] != '>' &&
               text[p] != '/')
            ++p;
        if (p == name_begin)
            return std::nullopt;
        std::string name = text.substr(name_begin, p - name_begin);
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
            return std::make_pair(name, cur_line);
        seen.push_back(std::move(name));
        skip_blanks();
        if (p >= text.size() || text[p] != '=')
            return std::nullopt;
        ++p;
        skip_blanks();
        if (p >= text.size() || (text[p] != '"' && text[p] != '\''))
            return std::nullopt;
        const std::size_t close = text.find(text[p], p + 1);
        if (close == std::string::npos)
            return std::nullopt;
        cur_line += static_cast<int>(std::count(text.begin() + p, text.begin() + close, '\n'));
        p = close + 1;
    }
}

[[noreturn]] void fail_malformed(const std::string& file, const std::string& text,
                                 const tinyxml2::XMLDocument& doc) {
    using namespace tinyxml2;
    const int line = std::max(1, doc.ErrorLineNum());
    // ErrorStr() ends in "...: XMLElement name=TAG" when an element is involved.
    const std::string detail = doc.ErrorStr();
    const std::string marker = "XMLElement name=";
    const auto at = detail.find(marker);
    const std::string tag = at == std::string::npos ? "" : detail.substr(at + marker.size());
    const std::string in_tag = tag.empty() ? "" : " in <" + tag + ">";

    std::string what;
    switch (doc.ErrorID()) {
    case XML_ERROR_EMPTY_DOCUMENT:
        throw CaseError(file, line, "the file is empty; a case file is one <sluice> element");
    case XML_ERROR_PARSING_ATTRIBUTE:
        if (const auto repeated = find_repeated_attribute(text, tag, line))
            throw CaseError(file, repeated->second,
                            "duplicate attribute '" + repeated->first + "'" + in_tag);
        what = "bad attribute" + in_tag + " (expected name=\"value\")";
        break;
    case XML_ERROR_MISMATCHED_ELEMENT:
        what = (tag.empty() ? std::string("an element") : "<" + tag + ">") +
               " is not closed, or is closed by the wrong end tag";
        break;
    case XML_ERROR_PARSING_ELEMENT:
        what = "cannot parse the element" + in_tag;
        break;
    case XML_ERROR_PARSING_TEXT:
        what = "cannot parse text (a stray '<' or '&', or text after the root element?)";
        break;
    case XML_ERROR_PARSING_COMMENT:
        what = "unterminated comment (expected -->)";
        break;
    default:
        what = std::string(doc.ErrorName()) + in_tag;
        break;
    }
    throw CaseError(file, line, "malformed XML: " + what);
}

} // namespace

Case parse_case(const std::string& xml_text, const std::string& file_name_for_messages) {
    tinyxml2::XMLDocument doc;
    doc.Parse(xml_text.c_str(), xml_text.size());
    if (doc.Error())
        fail_malformed(file_name_for_messages, xml_text, doc);
    return read_document(file_name_for_messages, doc);
}

Case read_case(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw CaseError(path, 0, std::string("cannot open the case file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw CaseError(path, 0, "cannot read the case file");
    return parse_case(text.str(), path);
}

} // namespace sluice
