#include "case/resolution_checks.h"

#include "case/case_reader.h"
#include "case/constants.h"
#include "case/domain_grid.h"
#include "case/geometry_checks.h"
#include "case/motion_table.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace sluice {

namespace {

/// The axes that exist: x, z in 2D; x, y, z in 3D.
std::vector<int> axes(const Case& c) {
    return c.dimension == 2 ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2};
}

const char* axis_name(int axis) {
    return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

std::string number(double v) {
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

[[noreturn]] void fail(const SourceLocation& where, const std::string& message) {
    throw CaseError(where.file, where.line, message);
}

/// Lattice points of [lo, hi] at spacing dp (particles.cpp's axis_lattice: the points
/// lo + (i + ½)·dp below hi, rounding half down).
double lattice_rows(double lo, double hi, double dp) {
    return std::max(0.0, std::ceil((hi - lo) / dp - 0.5 - 1e-6));
}

/// Particle layers across a filled obstacle, the thinnest axis: a box's lattice count, a
/// cylinder's or sphere's diameter in spacings (a cylinder's length too in 3D), a surface's
/// bounding box.
double layers_across(const Case& c, const Obstacle& o, int& thinnest_axis) {
    double fewest = HUGE_VAL;
    thinnest_axis = 0;
    auto take = [&](double layers, int axis) {
        if (layers < fewest) {
            fewest = layers;
            thinnest_axis = axis;
        }
    };
    if (const auto* cylinder = std::get_if<Cylinder>(&o.shape)) {
        take(2.0 * cylinder->radius / c.dp, -1);
        if (c.dimension == 3)
            take((cylinder->end - cylinder->start).norm() / c.dp, -2);
        return fewest;
    }
    if (const auto* sphere = std::get_if<Sphere>(&o.shape)) {
        take(2.0 * sphere->radius / c.dp, -1);
        return fewest;
    }
    for (const int k : axes(c))
        take(std::holds_alternative<BoxShape>(o.shape)
                 ? lattice_rows(o.box.min[k], o.box.max[k], c.dp)
                 : (o.box.max[k] - o.box.min[k]) / c.dp,
             k);
    return fewest;
}

/// What make_grid says of `box` as the domain, or nothing when the grid holds it.
std::optional<std::string> grid_problem(const Case& c, const Box& box) {
    const double radius = 2.0 * smoothing_length(c);
    try {
        if (c.dimension == 2)
            (void)box_grid<2>(box, radius, c.neighbours.bin_width);
        else
            (void)box_grid<3>(box, radius, c.neighbours.bin_width);
    } catch (const std::invalid_argument& why) {
        return std::string(why.what());
    }
    // 32-bit positions: a float's spacing at |x| is at most |x|·2⁻²³; a step moves a particle
    // about 10⁻² dp (cfl·h·Ma), which a spacing above dp/100 cannot record.
    const double far = 0.01 * c.dp * 8388608.0;
    for (const int k : axes(c))
        for (const double x : {box.min[k], box.max[k]})
            if (std::abs(x) > far)
                return "its corner at " + std::string(axis_name(k)) + " = " + number(x) +
                       " m lies so far from the origin that 32-bit positions there are spaced "
                       "more than dp/100 apart (they resolve dp = " +
                       number(c.dp) + " m within " + number(far) +
                       " m of the origin); move the case nearer to the origin";
    return std::nullopt;
}

std::string grid_advice() {
    return "; the neighbour grid covers the whole domain with bins of binWidth·2h";
}

} // namespace

int required_wall_layers(const Case& c) {
    // coefh ≤ 4 (the reader's range) keeps this below 28; the clamp keeps the cast defined
    // whatever calls it.
    const double needed = std::min(2.0 * smoothing_length(c) / c.dp - 1.0, 1e6);
    return std::max(1, static_cast<int>(std::ceil(needed - 1e-9)));
}

void check_wall_thickness(const Case& c, const std::string& dp_text) {
    const int needed = required_wall_layers(c);
    const std::string why =
        " layers: the kernel's support 2h = " + number(2.0 * smoothing_length(c)) +
        " m (h = coefh·√D·dp, " + dp_text +
        ") reaches through a thinner wall, and the water with it";
    if (c.tank && c.tank->layers < needed)
        fail(c.tank->where, "<tank layers=\"" + std::to_string(c.tank->layers) +
                                "\">: too few wall layers; the walls need at least " +
                                std::to_string(needed) + why);
    for (const Obstacle& o : c.obstacles) {
        int axis = 0;
        const double filled = layers_across(c, o, axis);
        // A shell of `layers` is that thick unless the solid itself is thinner.
        const double layers = o.layers > 0 ? std::min<double>(o.layers, filled) : filled;
        if (layers + 1e-6 >= needed)
            continue;
        std::string across;
        if (o.layers > 0 && o.layers < filled)
            across = "its shell is " + std::to_string(o.layers) + " layers (layers=\"" +
                     std::to_string(o.layers) + "\")";
        else if (axis == -1)
            across = "its diameter is " + number(layers) + " spacings";
        else if (axis == -2)
            across = "its length is " + number(layers) + " spacings";
        else
            across = "it is " + number(layers) + " particle layer(s) thick along " +
                     axis_name(axis) + " (" + number(o.box.max[axis] - o.box.min[axis]) + " m)";
        fail(o.where, "<obstacle> too thin for this resolution: " + across +
                          "; a wall needs at least " + std::to_string(needed) + why);
    }
}

void check_wave_maker_depths(const Case& c, const std::string& dp_text) {
    const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
    for (const BoundaryObjectRef& o : objects) {
        if (!o.properties->motion)
            continue;
        for (const MotionSegment& segment : o.properties->motion->segments) {
            const auto* maker = std::get_if<WaveMakerMotion>(&segment.motion);
            if (!maker)
                continue;
            // The box fluid regions beside the paddle (within 2 dp of its box at t = 0).
            double top = -HUGE_VAL, floor = HUGE_VAL;
            int fluid_line = 0;
            for (const FluidRegion& f : c.fluids) {
                if (!std::holds_alternative<BoxShape>(f.shape))
                    continue;
                double gap = 0.0;
                for (const int k : axes(c))
                    gap = std::max({gap, f.box.min[k] - o.box.max[k], o.box.min[k] - f.box.max[k]});
                if (gap > 2.0 * c.dp)
                    continue;
                const double rows = lattice_rows(f.box.min.z(), f.box.max.z(), c.dp);
                if (f.box.min.z() + rows * c.dp > top) {
                    top = f.box.min.z() + rows * c.dp;
                    fluid_line = f.where.line;
                }
                floor = std::min(floor, f.box.min.z());
            }
            if (fluid_line == 0)
                continue;
            if (c.tank && (c.tank->faces & face_bottom) && floor >= c.tank->box.min.z())
                floor = c.tank->box.min.z();
            const double water = top - floor;
            const double depth = maker->spec.depth;
            if (std::abs(water - depth) > 0.25 * c.dp * (1.0 + 1e-6))
                fail({c.where.file, segment.line},
                     "<wavemaker depth=\"" + number(depth) +
                         "\">: the water in front of the paddle (the <fluid> at line " +
                         std::to_string(fluid_line) + ") is " + number(water) +
                         " m deep on the lattice at " + dp_text +
                         ", more than dp/4 from the depth the paddle's stroke is tuned for; "
                         "give the depth the lattice holds, or a dp that divides the water "
                         "depth");
        }
    }
}

void check_tank_lattice(const Case& c, const std::string& dp_text) {
    if (!c.tank)
        return;
    const unsigned faces[3][2] = {
        {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
    for (const int k : axes(c)) {
        // The walls along axis k are laid on the inside's lattice from its min face, so a
        // misfit opens a gap at the max face only: where that face is chosen and meets the
        // wall of another axis.
        const unsigned others = c.tank->faces & ~(faces[k][0] | faces[k][1]);
        if (!(c.tank->faces & faces[k][1]) || others == 0)
            continue;
        const double extent = c.tank->box.max[k] - c.tank->box.min[k];
        const double spacings = extent / c.dp;
        const double whole = std::round(spacings);
        if (std::abs(spacings - whole) <= 0.25 + 1e-6)
            continue;
        const double below = std::floor(spacings), above = std::ceil(spacings);
        fail(c.tank->where,
             "<tank> is " + number(extent) + " m inside along " + axis_name(k) + ", " +
                 number(spacings) + " spacings at " + dp_text +
                 ": its walls close their corners only on a whole number of spacings (within "
                 "dp/4; a misfit leaves a gap where two walls meet, through which water "
                 "leaks); give an extent of whole spacings or dp = " +
                 number(extent / above) + " or " + number(extent / below) + " m");
    }
}

std::string dp_override_note(const Case& c) {
    if (c.file_dp <= 0.0 || c.dp == c.file_dp)
        return "";
    const double ratio = c.dp / c.file_dp;
    const bool coarser = ratio > 1.0;
    std::ostringstream s;
    s.precision(3);
    s << "dp = " << c.dp << " m from --dp, " << (coarser ? ratio : 1.0 / ratio) << "x "
      << (coarser ? "coarser" : "finer") << " than the case's " << c.file_dp << " m: about "
      << std::pow(1.0 / ratio, c.dimension)
      << "x the particles; every wall, obstacle and water depth is resolved by " << 1.0 / ratio
      << "x the layers (checked: walls of at least " << required_wall_layers(c)
      << " layers, wave makers' depths on the lattice), and h = " << smoothing_length(c) << " m";
    return s.str();
}

namespace {

/// H_max as derive_constants takes it, from the fluid regions' boxes (within dp of the
/// generated particles' height).
double estimated_fluid_height(const Case& c) {
    double top = -HUGE_VAL, bottom = HUGE_VAL;
    for (const FluidRegion& f : c.fluids) {
        top = std::max(top, f.box.max.z());
        bottom = std::min(bottom, f.box.min.z());
    }
    return top - bottom;
}

} // namespace

double estimated_speed_of_sound(const Case& c) {
    if (c.constants.speed_of_sound)
        return *c.constants.speed_of_sound;
    return c.constants.coef_sound * std::sqrt(c.constants.gravity * estimated_fluid_height(c));
}

void check_derived_constants(const Case& c, const SourceLocation& where) {
    const double c0 = estimated_speed_of_sound(c);
    if (!(c0 > 0.0) || !std::isfinite(c0))
        fail(where, "the speed of sound c0 = coefSound·√(g·H) comes out " + number(c0) +
                        " m/s (gravity " + number(c.constants.gravity) +
                        " m/s²); give speedOfSound, or gravity and a fluid of some height");
    for (const FluidRegion& f : c.fluids)
        if (!(f.velocity.norm() < c0))
            fail(f.where, "<fluid velocity>: " + number(f.velocity.norm()) +
                              " m/s is not below the speed of sound c0 = " + number(c0) +
                              " m/s of the case: a weakly compressible fluid flows well below c0 "
                              "(Mach 0.1)");
    const DerivedConstants d = derive_constants(c, estimated_fluid_height(c)); // c0 > 0 here
    const FluidConstants f = make_fluid_constants(c, d);
    const std::pair<const char*, float> values[] = {
        {"the smoothing length h", f.h},
        {"the speed of sound c0", f.c0},
        {"Tait's B = c0²ρ0/γ", f.b},
        {"the particle mass ρ0·dp^D", f.mass},
        {"ρ0", f.rho0},
        {"1/ρ0", f.inv_rho0},
        {"γ", f.gamma},
        {"1/γ", f.inv_gamma},
        {"the initial time step", static_cast<float>(d.initial_dt)}};
    if (!std::isfinite(f.gravity))
        fail(where, "gravity " + number(c.constants.gravity) +
                        " m/s² is not a 32-bit float; give it in m/s²");
    for (const auto& [what, value] : values)
        if (!(value > 0.0f) || !std::isfinite(value))
            fail(where, "with these constants " + std::string(what) + " is " +
                            number(static_cast<double>(value)) +
                            " in the 32-bit floats the physics uses; use values of the fluid's "
                            "own scale (SI units)");
}

void check_run_length(const Case& c, const SourceLocation& where) {
    // After check_derived_constants: c0 > 0.
    const double dt = derive_constants(c, estimated_fluid_height(c)).initial_dt;
    const double steps = c.run.end_time / dt;
    if (steps > 1e10)
        fail(where, "the end time " + number(c.run.end_time) + " s is about " + number(steps) +
                        " steps of the initial time step " + number(dt) +
                        " s, more than the 10^10 a run can take (months of a small case on a "
                        "GPU); give the time you mean to simulate in s");
}

void check_domain_grid(const Case& c, const SourceLocation& where, const std::string& what) {
    if (const auto problem = grid_problem(c, c.domain))
        fail(where, what + " " + describe_box(c, c.domain) + ": " + *problem + grid_advice());
}

void check_default_domain_grid(const Case& c, const SourceLocation& geometry_where) {
    const auto problem = grid_problem(c, c.domain);
    if (!problem)
        return;
    // The element that is too large by itself.
    for (const FluidRegion& f : c.fluids)
        if (const auto own = grid_problem(c, f.box))
            fail(f.where, "<fluid> " + describe_box(c, f.box) + ": " + *own + grid_advice());
    const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
    for (const BoundaryObjectRef& o : objects)
        if (const auto own = grid_problem(c, o.box))
            fail(o.where, "<" + std::string(o.element) + "> " + describe_box(c, o.box) + ": " +
                              *own + grid_advice());
    // The moving object whose sweep is.
    if (has_motion(c)) {
        const MotionTables tables = make_motion_tables(c, c.run.end_time);
        for (std::uint32_t k = 0; k < tables.objects(); ++k) {
            if (!objects[k].properties->motion) // fixed, or floating: no prescribed sweep
                continue;
            const Box swept = swept_box(tables, k, objects[k].box, c.run.end_time);
            const SourceLocation motion{c.where.file, objects[k].properties->motion->line};
            const std::string intro = "under its motion to t = " + number(c.run.end_time) +
                                      " s the <" + objects[k].element + "> at line " +
                                      std::to_string(objects[k].where.line) + " sweeps ";
            if (!swept.min.allFinite() || !swept.max.allFinite())
                fail(motion, intro + "an unbounded region (its poses are not finite numbers); "
                                     "check the motion's magnitudes");
            if (const auto own = grid_problem(c, swept))
                fail(motion, intro + describe_box(c, swept) +
                                 ", which the default domain must "
                                 "hold: " +
                                 *own + grid_advice() +
                                 "; check the motion's magnitudes, or give a <domain> (an "
                                 "object that leaves it is refused)");
        }
    }
    fail(geometry_where, "the default domain " + describe_box(c, c.domain) +
                             " around the "
                             "geometry: " +
                             *problem + grid_advice() + "; give a smaller <domain>");
}

} // namespace sluice
