#pragma once
/// \file constants.h
/// Derived constants of a case (h, c0, B, mass, initial dt) and the FluidConstants the physics
/// functors take. Host code; both backends and `sluice check` use it.

#include "case/case_model.h"
#include "physics/physics.h"

namespace sluice {

/// Derived constants of a case (what `sluice check` prints).
struct DerivedConstants {
    double h = 0.0;              ///< smoothing length (m) = coefh·sqrt(D)·dp
    double support = 0.0;        ///< kernel support = search radius R = 2h (m)
    double speed_of_sound = 0.0; ///< c0 (m/s)
    double mass = 0.0;           ///< particle mass ρ0·dp^D (kg)
    double initial_dt = 0.0;     ///< s
    double b = 0.0;              ///< Tait coefficient c0²ρ0/γ (Pa)
};

/// Smoothing length h = coefh·sqrt(D)·dp (m) (DualSPHysics's definition).
double smoothing_length(const Case& c);

/// h = smoothing_length(c), R = 2h, c0 = speedOfSound or coefSound·sqrt(g·H_max)
/// (Crespo et al. 2015 §2.3; DualSPHysics's hswl is H_max), B = c0²ρ0/γ, m = ρ0·dp^D,
/// initial dt = the time-step limit of fluid at rest (|f| = g, μ = 0; integrators.h).
/// \param fluid_height H_max (m), the vertical extent of the fluid (ParticleSet::fluid_height).
/// \throws std::invalid_argument when c0 comes out non-positive (no fluid and no speedOfSound).
DerivedConstants derive_constants(const Case& c, double fluid_height);

/// Shifting's free-surface threshold of ∇·r (physics/shifting.h): the case's, else
/// DualSPHysics's ShiftTFS, "typically 1.5 for 2D and 2.75 for 3D".
double shifting_surface_threshold(const Case& c);

/// The constants the interaction functors take: η² = 0.01h², δ-term prefactor 2δ·h·c0,
/// Fourtakas's ρ0·g/B.
FluidConstants make_fluid_constants(const Case& c, const DerivedConstants& derived);

} // namespace sluice
