// The case reader's part for floating objects (floating_reader.h): <floating>, <hinge> and
// <spring>, and the checks that need the whole case.

#include "case/floating_reader.h"

#include "case/body_table.h"
#include "case/constants.h"
#include "case/geometry_checks.h"
#include "case/resolution_checks.h"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace sluice::case_xml {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

/// The numbers of a blank-separated list attribute, each a finite number.
std::vector<double> numbers(const Element& e, const char* attr) {
    std::vector<double> out;
    const std::string text = *e.text(attr); // split's words point into it
    for (std::string_view word : split(text)) {
        std::string why;
        const auto v = to_number(word, why);
        if (!v)
            e.fail_attribute(attr, "'" + std::string(word) + "' is " + why);
        out.push_back(*v);
    }
    return out;
}

/// A vector: "x z" in 2D (stored as (x, 0, z)), "x y z" in 3D, like a point.
Vector3d vector_of(const Element& e, const char* attr) {
    return e.point(attr);
}

/// The inertia tensor: 2D "I_yy"; 3D "I_xx I_yy I_zz" (principal axes along x, y, z) or
/// "I_xx I_yy I_zz I_xy I_xz I_yz" (the tensor's entries, I_xy = −∫ x y dm).
Matrix3d read_inertia(const Reader& r, const Element& e) {
    const std::vector<double> v = numbers(e, "inertia");
    Matrix3d m = Matrix3d::Zero();
    if (r.dimension == 2) {
        if (v.size() != 1)
            e.fail_attribute("inertia", "a 2D body's inertia is one number, I_yy about the centre "
                                        "of mass (kg·m² per m of width), got " +
                                            std::to_string(v.size()));
        m(1, 1) = v[0];
        return m;
    }
    if (v.size() != 3 && v.size() != 6)
        e.fail_attribute("inertia", "needs 3 numbers \"Ixx Iyy Izz\" or 6 \"Ixx Iyy Izz Ixy Ixz "
                                    "Iyz\" (kg·m² about the centre of mass), got " +
                                        std::to_string(v.size()));
    m(0, 0) = v[0], m(1, 1) = v[1], m(2, 2) = v[2];
    if (v.size() == 6) {
        m(0, 1) = m(1, 0) = v[3];
        m(0, 2) = m(2, 0) = v[4];
        m(1, 2) = m(2, 1) = v[5];
    }
    return m;
}

unsigned read_fixed(const Reader& r, const Element& e) {
    const Names valid =
        r.dimension == 2 ? Names{"x", "z", "ry"} : Names{"x", "y", "z", "rx", "ry", "rz"};
    const Choices<unsigned> bits = {{"x", fixed_x},   {"y", fixed_y},   {"z", fixed_z},
                                    {"rx", fixed_rx}, {"ry", fixed_ry}, {"rz", fixed_rz}};
    unsigned fixed = 0;
    const std::string text = *e.text("fixed"); // split's words point into it
    for (std::string_view word : split(text)) {
        if (std::find(valid.begin(), valid.end(), word) == valid.end())
            e.fail_attribute("fixed", "unknown degree of freedom '" + std::string(word) + "'" +
                                          suggest(word, valid));
        for (const auto& [name, bit] : bits)
            if (name == word)
                fixed |= bit;
    }
    if (r.dimension == 3) {
        const int free_rotations = !(fixed & fixed_rx) + !(fixed & fixed_ry) + !(fixed & fixed_rz);
        if (free_rotations == 2)
            e.fail_attribute("fixed", "two free rotations about world axes are no rigid "
                                      "constraint; fix none, two or all three of rx ry rz (or "
                                      "use a <hinge>)");
    }
    return fixed;
}

FloatingHinge read_hinge(const Reader& r, const Element& e) {
    FloatingHinge h;
    h.point = e.point("point");
    h.line = e.line();
    if (r.dimension == 3) {
        h.axis = e.triple("axis", "the hinge line's direction \"x y z\"");
        if (!(h.axis.norm() > 0.0))
            e.fail_attribute("axis", "the hinge's axis must not be the zero vector");
        h.axis.normalize();
    } else if (e.has("axis")) {
        e.fail_attribute("axis", "a 2D hinge turns about y; give only its point");
    }
    return h;
}

FloatingSpring read_spring(const Element& e) {
    FloatingSpring s;
    s.line = e.line();
    s.point = e.point("point");
    if (e.has("anchor") == e.has("body"))
        e.fail("<spring> needs exactly one of 'anchor' (a fixed point, m) and 'body' (another "
               "floating object's name, with 'bodyPoint')");
    if (e.has("anchor")) {
        s.anchor = e.point("anchor");
        if (e.has("bodyPoint"))
            e.fail_attribute("bodyPoint", "a spring to a fixed anchor has no other body");
    } else {
        s.body = *e.text("body");
        s.body_point = e.point("bodyPoint");
    }
    e.require("stiffness", "N/m; 2D: N/m per m of width");
    s.stiffness = *e.number("stiffness", at_least(0));
    s.damping = e.number("damping", at_least(0)).value_or(0.0);
    s.rest_length = e.number("length", at_least(0));
    static const Choices<bool> yes_no = {{"true", true}, {"false", false}};
    s.slack = e.choice("slack", "value", yes_no).value_or(false);
    return s;
}

/// The longest step the fluid takes (s): the acoustic part of the CFL limit, cfl h / c0.
double step_bound(const Case& c) {
    return c.constants.cfl * smoothing_length(c) / estimated_speed_of_sound(c);
}

/// What makes no body a step can integrate: a mass far from the fluid's for its volume (overflow
/// of density × volume included), an inertia far from M L² (L the shape's bounding diagonal),
/// and a start faster than sound (the fluid follows walls well below c0, as a <motion>'s).
void check_magnitudes(const Reader& r, const Case& c, const Obstacle& o, const Floating& f,
                      const std::string& tag) {
    const BodyMass m = body_mass(c, o);
    const double relative = m.mass / (c.constants.rho0 * m.volume);
    if (!std::isfinite(m.mass) || !(relative >= 1e-4 && relative <= 1e4))
        r.fail(f.line, "the " + tag + " weighs " + format_number(m.mass) +
                           (c.dimension == 2 ? " kg/m" : " kg") + ", " + format_number(relative) +
                           " times the fluid it displaces; a floating body's mean density lies "
                           "within 1e-4 and 1e4 times rho0 (check the units)");
    const double size = (o.box.max - o.box.min).norm();
    const double scale = m.mass * size * size;
    if (f.inertia) {
        const double largest = f.inertia->cwiseAbs().maxCoeff();
        if (!(largest >= 1e-8 * scale && largest <= 1e4 * scale))
            r.fail(f.line, "the inertia of the " + tag + " (largest entry " +
                               format_number(largest) +
                               " kg·m²) is far from its mass times its size squared, " +
                               format_number(scale) + " kg·m² (check the units)");
    }
    const double speed = f.velocity.norm() + f.angular_velocity.norm() * size;
    const double c0 = estimated_speed_of_sound(c);
    if (!(speed < 0.1 * c0))
        r.fail(f.line,
               "the " + tag + " starts at up to " + format_number(speed) +
                   " m/s, not below a tenth of the speed of sound c0 = " + format_number(c0) +
                   " m/s: a weakly compressible fluid follows bodies well below c0");
}

/// A spring the step cannot follow: its period 2π √(M/k) (M the lighter end's mass; a fixed
/// anchor's is infinite) must span at least 20 of the fluid's longest steps, and its damping
/// time M/c at least 2 of them.
void check_springs(const Reader& r, const Case& c, double own_mass, const Floating& f,
                   const std::map<std::string, double>& masses) {
    constexpr double two_pi = 2.0 * 3.14159265358979323846;
    const double dt = step_bound(c);
    for (const FloatingSpring& s : f.springs) {
        const double mass = s.anchor ? own_mass : std::min(own_mass, masses.at(s.body));
        if (s.stiffness > 0.0 && !(two_pi * std::sqrt(mass / s.stiffness) >= 20.0 * dt))
            r.fail(s.line, "the spring's stiffness " + format_number(s.stiffness) +
                               " gives a period of " +
                               format_number(two_pi * std::sqrt(mass / s.stiffness)) +
                               " s, shorter than 20 of the fluid's steps (" + format_number(dt) +
                               " s each): too stiff for the step");
        if (s.damping > 0.0 && !(mass / s.damping >= 2.0 * dt))
            r.fail(s.line, "the spring's damping " + format_number(s.damping) +
                               " stops the body within " + format_number(mass / s.damping) +
                               " s, shorter than 2 of the fluid's steps (" + format_number(dt) +
                               " s each): too strong for the step");
        if (s.rest_length && !(*s.rest_length <= 1e3 * (c.domain.max - c.domain.min).norm()))
            r.fail(s.line, "the spring's length " + format_number(*s.rest_length) +
                               " m is far beyond the domain's size");
    }
}

} // namespace

Floating read_floating(const Reader& r, const Element& e) {
    Floating f;
    f.line = e.line();
    if (e.has("mass") == e.has("density"))
        e.fail(std::string("<floating> needs exactly one of 'mass' (") +
               (r.dimension == 2 ? "kg per m of width" : "kg") +
               ") and 'density' (kg/m³, of the shape's volume)");
    f.mass = e.number("mass", greater_than(0));
    f.density = e.number("density", greater_than(0));
    if (e.has("center"))
        f.center = e.point("center");
    if (e.has("inertia"))
        f.inertia = read_inertia(r, e);
    if (e.has("velocity"))
        f.velocity = vector_of(e, "velocity");
    if (e.has("angularVelocity")) {
        if (r.dimension == 2)
            f.angular_velocity.y() = *e.number("angularVelocity");
        else
            f.angular_velocity = e.triple("angularVelocity", "rad/s about x, y and z");
    }
    if (e.has("fixed"))
        f.fixed = read_fixed(r, e);
    if (r.dimension == 2)
        f.fixed |= fixed_y | fixed_rx | fixed_rz;
    f.start = e.number("start", at_least(0)).value_or(0.0);
    f.restitution = e.number("restitution", above_up_to(0, 1)).value_or(f.restitution);
    if (const XMLElement* x = e.single("hinge")) {
        const Element h(r, *x, {"point", "axis"});
        if (e.has("fixed"))
            h.fail("a <hinge> fixes every degree of freedom but the turn about it; leave out "
                   "<floating fixed>");
        f.hinge = read_hinge(r, h);
    }
    for (const XMLElement* x : e.all("spring"))
        f.springs.push_back(read_spring(Element(
            r, *x,
            {"point", "anchor", "body", "bodyPoint", "stiffness", "damping", "length", "slack"})));
    return f;
}

void check_floating(const Reader& r, const Case& c) {
    std::map<std::string, const Floating*> floating;
    for (const BoundaryObjectRef& o : boundary_objects(c))
        if (o.properties->floating)
            floating[o.properties->name] = &*o.properties->floating;
    // Each body's mass (given, or its density times its shape's volume), for the springs.
    std::map<std::string, double> masses;
    for (const Obstacle& o : c.obstacles)
        if (o.object.floating)
            masses[o.object.name] = body_mass(c, o).mass;
    const auto inside = [&](const Vector3d& p, int line, const std::string& what) {
        for (int a : r.axes())
            if (p[a] < c.domain.min[a] || p[a] > c.domain.max[a])
                r.fail(line, what + " lies outside the domain " + describe_box(c, c.domain));
    };
    for (const BoundaryObjectRef& o : boundary_objects(c)) {
        const auto& f = o.properties->floating;
        if (!f)
            continue;
        const std::string tag =
            "<" + std::string(o.element) + "> at line " + std::to_string(o.where.line);
        if (o.properties->name.empty())
            r.fail(f->line, "a floating " + tag + " needs a name (its columns in bodies.csv)");
        if (o.properties->motion)
            r.fail(f->line, "the " + tag +
                                " has a <motion> and a <floating>: a body either "
                                "follows a prescribed path or the water moves it");
        if (f->center)
            inside(*f->center, f->line, "the centre of mass of the " + tag);
        if (f->inertia) {
            const Matrix3d& m = *f->inertia;
            if (c.dimension == 2) {
                if (!(m(1, 1) > 0.0))
                    r.fail(f->line, "the inertia of the " + tag + " must be positive");
            } else {
                const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(m);
                const Vector3d p = eig.eigenvalues(); // ascending
                // A rigid body's principal moments satisfy I_a + I_b ≥ I_c (equality: a lamina).
                if (!(p.x() > 0.0) || p.x() + p.y() < p.z() * (1.0 - 1e-9))
                    r.fail(f->line, "the inertia tensor of the " + tag +
                                        " is no rigid body's (principal moments " +
                                        format_number(p.x()) + ", " + format_number(p.y()) + ", " +
                                        format_number(p.z()) +
                                        " kg·m²: each must be positive and no larger than the "
                                        "sum of the other two)");
            }
        }
        if (f->hinge)
            inside(f->hinge->point, f->hinge->line, "the hinge of the " + tag);
        for (const FloatingSpring& s : f->springs) {
            inside(s.point, s.line, "the spring's point on the " + tag);
            if (s.anchor) {
                inside(*s.anchor, s.line, "the spring's anchor");
                continue;
            }
            if (s.body == o.properties->name)
                r.fail(s.line, "a spring from the body '" + s.body + "' to itself");
            if (floating.count(s.body) == 0)
                r.fail(s.line, "the spring's body '" + s.body +
                                   "' is no floating object of "
                                   "the case");
            inside(s.body_point, s.line, "the spring's point on '" + s.body + "'");
        }
        check_springs(r, c, masses.at(o.properties->name), *f, masses);
    }
    // Last: the body's own checks above name a malformed inertia or a missing name first.
    for (const Obstacle& o : c.obstacles)
        if (o.object.floating)
            check_magnitudes(r, c, o, *o.object.floating,
                             "<obstacle> at line " + std::to_string(o.where.line));
}

} // namespace sluice::case_xml
