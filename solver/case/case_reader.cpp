#include "case/case_reader.h"

#include "case/floating_reader.h"
#include "case/gauge_reader.h"
#include "case/geometry_checks.h"
#include "case/motion_reader.h"
#include "case/resolution_checks.h"
#include "case/surface_mesh.h"
#include "case/xml_reading.h"

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
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

using namespace case_xml;

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

/// A radius attribute: > 0 and, so that the shape holds a particle, at least dp/2.
double read_radius(const Element& e, double dp) {
    e.require("radius", "in m");
    const double radius = *e.number("radius", greater_than(0));
    if (radius < 0.5 * dp * (1.0 - 1e-6))
        e.fail_attribute("radius", "smaller than dp/2 = " + format_number(0.5 * dp) +
                                       " m: the shape would hold no particle");
    return radius;
}

/// <cylinder>: 3D start, end (centres of the end discs) and radius; 2D (a circle in the x–z
/// plane, axis y) center and radius.
Cylinder read_cylinder(const Reader& r, const Element& e, double dp) {
    Cylinder cyl;
    if (r.dimension == 2) {
        cyl.start = cyl.end = e.point("center");
    } else {
        cyl.start = e.point("start");
        cyl.end = e.point("end");
        const double length = (cyl.end - cyl.start).norm();
        if (length < dp * (1.0 - 1e-6))
            e.fail("<cylinder> is " + format_number(length) +
                   " m long, shorter than dp = " + format_number(dp) + " m: it holds no particle");
    }
    cyl.radius = read_radius(e, dp);
    return cyl;
}

Sphere read_sphere(const Element& e, double dp) {
    Sphere s;
    s.center = e.point("center");
    s.radius = read_radius(e, dp);
    return s;
}

/// A <fluid> or <obstacle>: exactly one of a box (min, max), a surface file (stl, with optional
/// scale, rotate, translate) or one <cylinder>/<sphere> child. Sets the region's bounding box
/// and shape. A surface file is read here, relative to the case file's folder, so that every
/// error in it is reported at this element.
void read_region(const Reader& r, const Element& e, double dp, Box& box, Shape& shape) {
    const auto cylinders = e.all("cylinder");
    const auto spheres = e.all("sphere");
    const int given = (e.has("min") || e.has("max") ? 1 : 0) + (e.has("stl") ? 1 : 0) +
                      static_cast<int>(cylinders.size() + spheres.size());
    if (given != 1)
        e.fail(e.tag() + " needs exactly one of: min and max (a box), stl=\"FILE\" (a closed " +
               "surface), or one <cylinder> or <sphere> child; " + std::to_string(given) +
               " given");
    if (!e.has("stl"))
        for (const char* attr : {"scale", "rotate", "translate"})
            if (e.has(attr))
                e.fail_attribute(attr, "places a surface file; give it with stl=\"FILE\"");
    if (e.has("min") || e.has("max")) {
        box = read_box(r, e, dp);
        shape = BoxShape{};
        return;
    }
    if (!cylinders.empty() || !spheres.empty()) {
        if (!cylinders.empty()) {
            // 2D: a circle in the x–z plane (axis y); 3D: from start to end.
            const Element cylinder(r, *cylinders[0],
                                   r.dimension == 2 ? Names{"center", "radius"}
                                                    : Names{"start", "end", "radius"});
            shape = read_cylinder(r, cylinder, dp);
        } else {
            shape = read_sphere(Element(r, *spheres[0], {"center", "radius"}), dp);
        }
        primitive_bounds(shape, r.dimension, box.min, box.max);
        return;
    }
    SurfacePlacement placement;
    placement.scale = e.number("scale", greater_than(0)).value_or(1.0);
    if (e.has("rotate"))
        placement.rotate_degrees = e.triple("rotate", "degrees about x, y and z");
    if (e.has("translate"))
        placement.translate = e.triple("translate", "x y z in m, also in 2D");
    SurfaceMesh surface;
    surface.file = *e.text("stl");
    const std::filesystem::path relative(surface.file);
    const std::filesystem::path resolved =
        relative.is_absolute() ? relative : std::filesystem::path(r.file).parent_path() / relative;
    try {
        surface.mesh = load_surface_mesh(resolved.string(), placement);
    } catch (const SurfaceMeshError& error) {
        e.fail_attribute("stl", error.what());
    }
    box.min = surface.mesh->min();
    box.max = surface.mesh->max();
    if (r.dimension == 2) {
        if (box.min.y() > 0.0 || box.max.y() < 0.0)
            e.fail_attribute("stl", "the surface spans y = " + format_number(box.min.y()) + " .. " +
                                        format_number(box.max.y()) +
                                        " m and does not cross the plane y = 0 of a 2D case");
        box.min.y() = box.max.y() = 0.0;
    }
    for (const int k : r.axes())
        if (box.max[k] - box.min[k] < dp * (1.0 - 1e-6))
            e.fail_attribute("stl", std::string("the surface is ") +
                                        format_number(box.max[k] - box.min[k]) + " m thick on " +
                                        axis_name(k) + ", thinner than dp = " + format_number(dp) +
                                        " m: it holds no particle (check scale and units)");
    shape = std::move(surface);
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
    // h = coefh·√D·dp: at coefh 4 a 3D particle has about 10⁴ neighbours; far beyond that the
    // step is an all-pairs sum (the fuzzer's coefh of 10²⁶).
    k.coefh = e.number("coefh", above_up_to(0, 4)).value_or(k.coefh);
    k.cfl = e.number("cfl", above_up_to(0, 1)).value_or(k.cfl);
}

Names with_object_attributes(Names names) {
    names.insert(names.end(), object_attributes.begin(), object_attributes.end());
    return names;
}

void read_geometry(const Reader& r, const Element& g, Case& c, const CaseOverrides& overrides) {
    g.require("dp", "the particle spacing in m");
    c.file_dp = *g.number("dp", greater_than(0));
    c.dp = overrides.dp.value_or(c.file_dp);

    for (const XMLElement* x : g.all("fluid")) {
        const Element e(r, *x, {"min", "max", "stl", "scale", "rotate", "translate", "velocity"},
                        {"cylinder", "sphere"});
        FluidRegion f;
        f.where = e.where();
        read_region(r, e, c.dp, f.box, f.shape);
        if (e.has("velocity"))
            f.velocity = e.point("velocity");
        c.fluids.push_back(std::move(f));
    }
    if (c.fluids.empty())
        g.fail("<geometry> needs at least one <fluid> region");

    if (const XMLElement* x = g.single("tank")) {
        const Element e(r, *x, with_object_attributes({"min", "max", "faces", "layers"}),
                        {"motion"});
        TankWalls t;
        t.box = read_box(r, e, c.dp);
        t.faces = read_faces(r, e);
        t.layers = e.integer("layers", at_least(1)).value_or(t.layers);
        t.where = e.where();
        t.object = read_object_properties(r, e, c.constants);
        c.tank = t;
    }

    for (const XMLElement* x : g.all("obstacle")) {
        const Element e(
            r, *x,
            with_object_attributes({"min", "max", "stl", "scale", "rotate", "translate", "layers"}),
            {"cylinder", "sphere", "motion", "floating"});
        Obstacle o;
        o.where = e.where();
        read_region(r, e, c.dp, o.box, o.shape);
        o.layers = e.integer("layers", at_least(1)).value_or(0);
        o.object = read_object_properties(r, e, c.constants);
        c.obstacles.push_back(std::move(o));
    }
    for (const XMLElement* x : g.all("damping"))
        c.damping.push_back(read_damping(r, Element(r, *x, {"start", "end", "reduction"})));

    check_fluid_placement(c);
}

/// The domain: <geometry>'s <domain>, checked, or the default (geometry_checks.h); after
/// <run>, since a moving object's sweep over the run belongs in it. Either way the neighbour
/// grid must hold it (resolution_checks.h).
void read_domain(const Reader& r, const Element& g, Case& c) {
    if (const XMLElement* x = g.single("domain")) {
        const Element e(r, *x, {"min", "max"});
        c.domain = read_box(r, e, 0.0);
        check_domain(c, e.where());
        check_domain_grid(c, e.where(), "<domain>");
    } else {
        c.domain = default_domain(c);
        check_default_domain_grid(c, g.where());
    }
}

/// "dp = X m", and where it came from when the command line replaced the file's.
std::string dp_text(const Case& c) {
    if (c.dp == c.file_dp)
        return "dp = " + format_number(c.dp) + " m";
    return "dp = " + format_number(c.dp) + " m from --dp (the case file gives " +
           format_number(c.file_dp) + " m)";
}

void read_physics(const Element& e, int dimension, Physics& p) {
    static const Choices<KernelKind> kernels = {
        {to_string(KernelKind::wendland_c2), KernelKind::wendland_c2},
        {to_string(KernelKind::cubic_spline), KernelKind::cubic_spline}};
    static const Choices<ViscosityKind> viscosities = {
        {to_string(ViscosityKind::artificial), ViscosityKind::artificial},
        {to_string(ViscosityKind::laminar), ViscosityKind::laminar}};
    static const Choices<DensityDiffusionKind> diffusions = {
        {to_string(DensityDiffusionKind::none), DensityDiffusionKind::none},
        {to_string(DensityDiffusionKind::molteni), DensityDiffusionKind::molteni},
        {to_string(DensityDiffusionKind::fourtakas), DensityDiffusionKind::fourtakas},
        {to_string(DensityDiffusionKind::antuono), DensityDiffusionKind::antuono}};
    static const Choices<FormulationKind> formulations = {
        {to_string(FormulationKind::classical), FormulationKind::classical},
        {to_string(FormulationKind::riemann), FormulationKind::riemann}};
    static const Choices<IntegratorKind> integrators = {
        {to_string(IntegratorKind::symplectic), IntegratorKind::symplectic},
        {to_string(IntegratorKind::verlet), IntegratorKind::verlet}};
    static const Choices<BoundaryKind> boundaries = {
        {to_string(BoundaryKind::dbc), BoundaryKind::dbc},
        {to_string(BoundaryKind::mdbc), BoundaryKind::mdbc}};
    static const Choices<SlipKind> slips = {{to_string(SlipKind::no_slip), SlipKind::no_slip},
                                            {to_string(SlipKind::free_slip), SlipKind::free_slip}};

    // The formulation first, with its defaults (set_formulation); the attributes below override.
    set_formulation(p,
                    e.choice("formulation", "formulation", formulations).value_or(p.formulation));
    const bool riemann = p.formulation == FormulationKind::riemann;
    if (e.has("riemannLimiter") && !riemann)
        e.fail_attribute("riemannLimiter", "applies to formulation=\"riemann\" only");
    // η: β = min(η max(ΔU, 0), c0) (physics/riemann.h); at 100 the limiter is already the full
    // acoustic dissipation for any ΔU > c0/100.
    p.riemann_limiter = e.number("riemannLimiter", above_up_to(0, 100)).value_or(p.riemann_limiter);
    p.kernel = e.choice("kernel", "kernel", kernels).value_or(p.kernel);
    p.viscosity = e.choice("viscosity", "viscosity", viscosities).value_or(p.viscosity);
    if (riemann && e.has("viscosity") && p.viscosity == ViscosityKind::artificial)
        e.fail_attribute("viscosity",
                         "formulation=\"riemann\" dissipates through its Riemann solver: leave "
                         "viscosity out, or give viscosity=\"laminar\" for a physical one");
    if (riemann && e.has("viscosityValue") && p.viscosity != ViscosityKind::laminar)
        e.fail_attribute("viscosityValue", "with formulation=\"riemann\" applies to "
                                           "viscosity=\"laminar\" only (ν, m²/s)");
    p.viscosity_value = e.number("viscosityValue", at_least(0)).value_or(p.viscosity_value);
    p.diffusion = e.choice("diffusion", "density diffusion", diffusions).value_or(p.diffusion);
    p.diffusion_coef = e.number("diffusionCoef", at_least(0)).value_or(p.diffusion_coef);
    p.integrator = e.choice("integrator", "integrator", integrators).value_or(p.integrator);
    // The Riemann terms' continuity carries a pressure diffusion of δ ≈ r/2h (riemann.h), five
    // times Molteni's usual 0.1; Verlet's leapfrog ρ^{n+1} = ρ^{n−1} + 2 dt dρ/dt amplifies a
    // diffusion term (the 2D dam break at dp = 0.04 failed in 28 steps), the symplectic scheme
    // does not.
    if (riemann && p.integrator == IntegratorKind::verlet)
        e.fail_attribute("integrator",
                         "formulation=\"riemann\" needs integrator=\"symplectic\": Verlet's "
                         "leapfrog amplifies the Riemann solver's dissipation");
    p.boundary = e.choice("boundary", "boundary condition", boundaries).value_or(p.boundary);
    if (e.has("slip") && p.boundary != BoundaryKind::mdbc)
        e.fail_attribute("slip", "applies to boundary=\"mdbc\" only (DBC walls have no ghost "
                                 "node to take the fluid's velocity from)");
    // The Riemann terms take free slip (wall_slip); no-slip written out is refused.
    if (riemann && e.has("slip") && e.choice("slip", "wall slip", slips) == SlipKind::no_slip)
        e.fail_attribute("slip", "formulation=\"riemann\" sees walls through the fluid's "
                                 "mirrored normal velocity (free slip): give slip=\"freeslip\" "
                                 "or leave it out");
    p.slip = e.choice("slip", "wall slip", slips).value_or(p.slip);
    static const Choices<ShiftingKind> shiftings = {
        {to_string(ShiftingKind::none), ShiftingKind::none},
        {to_string(ShiftingKind::fickian), ShiftingKind::fickian}};
    p.shifting = e.choice("shifting", "particle shifting", shiftings).value_or(p.shifting);
    for (const char* attribute : {"shiftingCoef", "shiftingSurface"})
        if (e.has(attribute) && p.shifting == ShiftingKind::none)
            e.fail_attribute(attribute, "applies to shifting=\"fickian\" only");
    // Skillen et al.'s D = A·h·|v|·dt is an explicit diffusion step, stable while
    // D·dt/h² = A·|v|·dt/h ≤ ½; with dt ≤ cfl·h/c0 (cfl ≤ 1) and |v| ≤ 0.1·c0, the weakly
    // compressible model's own limit, A up to 5 is stable at any CFL and 10 at CFL ≤ 0.5.
    p.shifting_coef = e.number("shiftingCoef", above_up_to(0, 10)).value_or(p.shifting_coef);
    p.shifting_surface =
        e.number("shiftingSurface", between_open(0, dimension)).value_or(p.shifting_surface);
    p.verlet_reset_steps = e.integer("verletReset", at_least(1)).value_or(p.verlet_reset_steps);
    p.density_min_ratio = e.number("densityMin", between_open(0, 1)).value_or(p.density_min_ratio);
    p.density_max_ratio = e.number("densityMax", greater_than(1)).value_or(p.density_max_ratio);
}

void read_neighbours(const Element& e, NeighbourModule& m, bool& automatic) {
    static const Choices<bool> yes_no = {{"true", true}, {"false", false}};
    automatic = e.choice("auto", "value", yes_no).value_or(false);
    if (automatic)
        for (const char* attr : {"construction", "query", "binWidth", "layout"})
            if (e.has(attr))
                e.fail_attribute(attr, "is chosen by auto=\"true\" (sluice run times every "
                                       "module first); give one or the other");
    m.construction = e.parsed("construction", parse_construction).value_or(m.construction);
    m.query = e.parsed("query", parse_query).value_or(m.query);
    m.bin_width = e.parsed("binWidth", parse_bin_width).value_or(m.bin_width);
    const std::optional<Layout> layout = e.parsed("layout", parse_layout);
    m.layout = layout.value_or(default_layout(m.construction));
    try {
        validate_neighbour_module(m);
    } catch (const std::invalid_argument& why) {
        e.fail(e.tag() + ": " + why.what());
    }
}

void read_run(const Element& e, RunControl& run, const std::string& case_name) {
    run.end_time = e.number("endTime", greater_than(0)).value_or(run.end_time);
    run.output_interval = e.number("outputInterval", greater_than(0)).value_or(run.output_interval);
    run.checkpoint_interval = e.number("checkpointInterval", greater_than(0));
    run.balance_interval = e.integer("balanceInterval", at_least(0)).value_or(run.balance_interval);
    run.max_loss_percent =
        e.number("maxLoss", Range{0.0, true, 100.0, true}).value_or(run.max_loss_percent);
    run.output_dir = e.text("output").value_or("out/" + case_name);
    if (trim(run.output_dir).empty())
        e.fail_attribute("output",
                         "empty; give a folder or leave the attribute out for out/" + case_name);
}

/// <output compressor level fields boundary writers>.
void read_output(const Element& e, OutputSettings& o) {
    static const Choices<Compressor> compressors = {
        {to_string(Compressor::lz4), Compressor::lz4},
        {to_string(Compressor::zlib), Compressor::zlib},
        {to_string(Compressor::none), Compressor::none}};
    static const Choices<bool> boundary = {{"every", false}, {"first", true}};
    o.format.compressor =
        e.choice("compressor", "compressor", compressors).value_or(o.format.compressor);
    if (const auto level = e.integer("level", {1, true, 9, true})) {
        if (o.format.compressor == Compressor::none)
            e.fail_attribute("level", "has no meaning with compressor=\"none\"");
        o.format.level = *level;
    }
    if (e.has("fields"))
        e.parsed("fields", [&](std::string_view text) {
            parse_fields(std::string(text), o.format);
            return true;
        });
    o.boundary_only_first =
        e.choice("boundary", "boundary output", boundary).value_or(o.boundary_only_first);
    o.writers = static_cast<unsigned>(e.integer("writers", {1, true, 64, true}).value_or(0));
}

Case read_document(const std::string& file, const tinyxml2::XMLDocument& doc,
                   const CaseOverrides& overrides) {
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
                    {"constants", "geometry", "physics", "neighbours", "run", "output", "gauges"});
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

    SourceLocation constants_where = c.where;
    if (const XMLElement* x = s.single("constants")) {
        constants_where.line = x->GetLineNum();
        read_constants(
            Element(r, *x,
                    {"gravity", "rho0", "gamma", "coefSound", "speedOfSound", "coefh", "cfl"}),
            c.constants);
    }
    if (overrides.coef_sound) { // before anything derived from c0 is checked
        c.constants.coef_sound = *overrides.coef_sound;
        c.constants.speed_of_sound.reset();
    }

    const XMLElement* geometry = s.single("geometry");
    if (!geometry)
        s.fail("<sluice> needs a <geometry> element (dp and the fluid boxes)");
    const Element geometry_element(r, *geometry, {"dp"},
                                   {"domain", "fluid", "tank", "obstacle", "damping"});
    read_geometry(r, geometry_element, c, overrides);
    check_derived_constants(c, constants_where);

    if (const XMLElement* x = s.single("physics"))
        read_physics(Element(r, *x,
                             {"formulation", "riemannLimiter", "kernel", "viscosity",
                              "viscosityValue", "diffusion", "diffusionCoef", "integrator",
                              "verletReset", "densityMin", "densityMax", "boundary", "slip",
                              "shifting", "shiftingCoef", "shiftingSurface"}),
                     c.dimension, c.physics);

    if (const XMLElement* x = s.single("neighbours"))
        read_neighbours(Element(r, *x, {"construction", "query", "binWidth", "layout", "auto"}),
                        c.neighbours, c.neighbours_auto);

    c.run.output_dir = "out/" + c.name;
    SourceLocation run_where = c.where;
    if (const XMLElement* x = s.single("run")) {
        run_where.line = x->GetLineNum();
        read_run(Element(r, *x,
                         {"endTime", "outputInterval", "output", "checkpointInterval",
                          "balanceInterval", "maxLoss"}),
                 c.run, c.name);
    }
    if (overrides.end_time)
        c.run.end_time = *overrides.end_time;
    check_run_length(c, run_where); // before the motion's bounds over the run are made
    read_domain(r, geometry_element, c);
    check_objects(r, c);
    check_floating(r, c);
    const std::string spacing = dp_text(c);
    check_wall_thickness(c, spacing);
    check_wave_maker_depths(c, spacing);
    if (overrides.tank_lattice)
        check_tank_lattice(c, spacing);
    if (const XMLElement* x = s.single("output"))
        read_output(Element(r, *x, {"compressor", "level", "fields", "boundary", "writers"}),
                    c.output);
    if (const XMLElement* x = s.single("gauges"))
        read_gauges(r, Element(r, *x, {"interval"}, {"height", "probe", "front", "sensor"}), c,
                    c.gauges);
    return c;
}

} // namespace

Case parse_case(const std::string& xml_text, const std::string& file_name_for_messages,
                const CaseOverrides& overrides) {
    tinyxml2::XMLDocument doc;
    doc.Parse(xml_text.c_str(), xml_text.size());
    if (doc.Error())
        fail_malformed(file_name_for_messages, xml_text, doc);
    return read_document(file_name_for_messages, doc, overrides);
}

Case read_case(const std::string& path, const CaseOverrides& overrides) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw CaseError(path, 0, std::string("cannot open the case file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw CaseError(path, 0, "cannot read the case file");
    return parse_case(text.str(), path, overrides);
}

} // namespace sluice
