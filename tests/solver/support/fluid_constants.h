#pragma once
/// \file fluid_constants.h
/// Water's interaction constants for tests that call the physics functions directly
/// (physics/physics.h FluidConstants), without a case: ρ0 = 1000 kg/m³, γ = 7, c0 = 30 m/s,
/// |g| = 9.81 m/s², m = ρ0·dp² (2D), h = √2·dp.

#include "physics/physics.h"

#include <cmath>

namespace sluice::test {

inline FluidConstants water_constants(float dp) {
    FluidConstants c{};
    c.rho0 = 1000.0f;
    c.inv_rho0 = 1.0f / c.rho0;
    c.gamma = 7.0f;
    c.inv_gamma = 1.0f / c.gamma;
    c.c0 = 30.0f;
    c.b = c.c0 * c.c0 * c.rho0 / c.gamma;
    c.gravity = 9.81f;
    c.mass = c.rho0 * dp * dp;
    c.h = std::sqrt(2.0f) * dp;
    c.eta2 = 0.01f * c.h * c.h;
    return c;
}

} // namespace sluice::test
