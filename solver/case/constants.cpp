#include "case/constants.h"

#include "physics/integrators.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sluice {

double smoothing_length(const Case& c) {
    return c.constants.coefh * std::sqrt(static_cast<double>(c.dimension)) * c.dp;
}

DerivedConstants derive_constants(const Case& c, double fluid_height) {
    const Constants& k = c.constants;
    DerivedConstants d;
    d.h = smoothing_length(c);
    d.support = 2.0 * d.h;
    d.speed_of_sound =
        k.speed_of_sound ? *k.speed_of_sound : k.coef_sound * std::sqrt(k.gravity * fluid_height);
    if (!(d.speed_of_sound > 0.0)) {
        std::ostringstream msg;
        msg << "speed of sound c0 = " << d.speed_of_sound
            << " m/s: give speedOfSound or a fluid of non-zero height (H_max = " << fluid_height
            << " m) with gravity";
        throw std::invalid_argument(msg.str());
    }
    d.mass = k.rho0 * std::pow(c.dp, c.dimension);
    d.b = d.speed_of_sound * d.speed_of_sound * k.rho0 / k.gamma;
    d.initial_dt = time_step(make_fluid_constants(c, d), k.cfl, k.gravity, 0.0);
    return d;
}

double shifting_surface_threshold(const Case& c) {
    if (c.physics.shifting_surface > 0.0)
        return c.physics.shifting_surface;
    return c.dimension == 2 ? 1.5 : 2.75;
}

FluidConstants make_fluid_constants(const Case& c, const DerivedConstants& d) {
    const Constants& k = c.constants;
    const Physics& p = c.physics;
    FluidConstants f;
    f.rho0 = static_cast<float>(k.rho0);
    f.inv_rho0 = static_cast<float>(1.0 / k.rho0);
    f.gamma = static_cast<float>(k.gamma);
    f.inv_gamma = static_cast<float>(1.0 / k.gamma);
    f.b = static_cast<float>(d.b);
    f.c0 = static_cast<float>(d.speed_of_sound);
    f.mass = static_cast<float>(d.mass);
    f.h = static_cast<float>(d.h);
    f.eta2 = static_cast<float>(0.01 * d.h * d.h);
    f.gravity = static_cast<float>(k.gravity);
    f.viscosity = p.viscosity == ViscosityKind::artificial ? ViscosityModel::artificial_monaghan1992
                                                           : ViscosityModel::laminar_lo_shao2002;
    f.alpha = p.viscosity == ViscosityKind::artificial ? static_cast<float>(p.viscosity_value) : 0;
    f.nu = p.viscosity == ViscosityKind::laminar ? static_cast<float>(p.viscosity_value) : 0;
    switch (p.diffusion) {
    case DensityDiffusionKind::none:
        f.diffusion = DensityDiffusion::none;
        break;
    case DensityDiffusionKind::molteni:
        f.diffusion = DensityDiffusion::molteni2009;
        break;
    case DensityDiffusionKind::fourtakas:
        f.diffusion = DensityDiffusion::fourtakas2019;
        break;
    case DensityDiffusionKind::antuono:
        f.diffusion = DensityDiffusion::antuono2010;
        break;
    }
    f.formulation = p.formulation == FormulationKind::riemann ? Formulation::riemann_zhang2017
                                                              : Formulation::classical;
    f.riemann_eta = static_cast<float>(p.riemann_limiter);
    f.inv_rho0_c0 = static_cast<float>(1.0 / (k.rho0 * d.speed_of_sound));
    f.ddt_coef = static_cast<float>(2.0 * p.diffusion_coef * d.h * d.speed_of_sound);
    f.hydro_coef = static_cast<float>(k.rho0 * k.gravity / d.b);
    f.wall_continuity = c.physics.boundary == BoundaryKind::dbc;
    f.moving_walls = c.physics.boundary == BoundaryKind::mdbc && has_motion(c);
    f.shifting.on = p.shifting == ShiftingKind::fickian;
    f.shifting.coef = static_cast<float>(p.shifting_coef);
    f.shifting.interior_divergence = static_cast<float>(c.dimension);
    f.shifting.surface_threshold = static_cast<float>(shifting_surface_threshold(c));
    return f;
}

} // namespace sluice
