#include "case/case_model.h"

#include "case/geometry_checks.h"

namespace sluice {

const char* to_string(KernelKind k) {
    return k == KernelKind::wendland_c2 ? "wendland" : "cubic-spline";
}

const char* to_string(ViscosityKind v) {
    return v == ViscosityKind::artificial ? "artificial" : "laminar";
}

const char* to_string(DensityDiffusionKind d) {
    switch (d) {
    case DensityDiffusionKind::none:
        return "none";
    case DensityDiffusionKind::molteni:
        return "molteni";
    case DensityDiffusionKind::fourtakas:
        return "fourtakas";
    case DensityDiffusionKind::antuono:
        return "antuono";
    }
    return "?";
}

const char* to_string(FormulationKind f) {
    return f == FormulationKind::riemann ? "riemann" : "classical";
}

void PhysicsOverrides::apply(Physics& p) const {
    if (boundary)
        p.boundary = *boundary;
    if (shifting)
        p.shifting = *shifting;
    if (formulation)
        set_formulation(p, *formulation);
    if (diffusion)
        p.diffusion = *diffusion;
}

void set_formulation(Physics& p, FormulationKind f) {
    if (f == p.formulation)
        return;
    p.formulation = f;
    if (p.viscosity == ViscosityKind::artificial)
        p.viscosity_value = f == FormulationKind::riemann ? 0.0 : Physics{}.viscosity_value;
    p.diffusion = f == FormulationKind::riemann ? DensityDiffusionKind::none : Physics{}.diffusion;
}

SlipKind wall_slip(const Physics& p) {
    return p.formulation == FormulationKind::riemann ? SlipKind::free_slip : p.slip;
}

const char* to_string(IntegratorKind i) {
    return i == IntegratorKind::symplectic ? "symplectic" : "verlet";
}

const char* to_string(BoundaryKind b) {
    return b == BoundaryKind::dbc ? "dbc" : "mdbc";
}

const char* to_string(SlipKind s) {
    return s == SlipKind::no_slip ? "noslip" : "freeslip";
}

const char* to_string(ShiftingKind s) {
    return s == ShiftingKind::none ? "none" : "fickian";
}

const char* to_string(ProbeField f) {
    switch (f) {
    case ProbeField::pressure:
        return "pressure";
    case ProbeField::velocity:
        return "velocity";
    case ProbeField::density:
        return "density";
    case ProbeField::fraction:
        return "fraction";
    }
    return "?";
}

std::string tank_faces_to_string(unsigned faces) {
    static const char* const names[] = {"bottom", "top", "left", "right", "front", "back"};
    std::string out;
    for (unsigned k = 0; k < 6; ++k) {
        if (faces & (1u << k)) {
            if (!out.empty())
                out += ' ';
            out += names[k];
        }
    }
    return out;
}

std::vector<BoundaryObjectRef> boundary_objects(const Case& c) {
    std::vector<BoundaryObjectRef> out;
    if (c.tank)
        out.push_back({&c.tank->object, c.tank->where, tank_with_walls(*c.tank, c.dp), "tank"});
    for (const Obstacle& o : c.obstacles)
        out.push_back({&o.object, o.where, o.box, "obstacle"});
    return out;
}

bool has_motion(const Case& c) {
    for (const BoundaryObjectRef& o : boundary_objects(c))
        if (o.properties->motion || o.properties->floating)
            return true;
    return false;
}

bool has_floating(const Case& c) {
    for (const BoundaryObjectRef& o : boundary_objects(c))
        if (o.properties->floating)
            return true;
    return false;
}

const char* segment_name(const SegmentMotion& m) {
    static const char* const names[] = {"rectilinear", "rotation", "sinusoidal", "sinusoidal",
                                        "file",        "file",     "wavemaker"};
    return names[m.index()];
}

} // namespace sluice
