#pragma once
/// \file contact.h
/// Contacts of floating bodies with walls and with each other: a normal linear spring–dashpot
/// between a body's particle b and each boundary particle j of another object closer than the
/// contact distance d (Cundall & Strack 1979, Géotechnique 29(1) §"Force–displacement law"):
/// with r = |x_b − x_j|, n = (x_b − x_j)/r, the overlap δ = d − r > 0 and its rate
/// δ' = −(v_b − v_j)·n,
///   f_b = max(0, k δ + c δ') n,     k = κ m*,  c = 2 ζ √(k m*) = 2 ζ √κ m*,
/// where m* = m_b m_j / (m_b + m_j) is the reduced mass of the two particles' shares of their
/// bodies (a wall's share is infinite: m* = m_b), so that j feels −f_b when it is a body's too.
/// For an isolated pair the contact lasts t_c = π / (√κ √(1 − ζ²)) and rebounds with the
/// coefficient of restitution e = exp(−ζ π / √(1 − ζ²)), i.e. ζ = −ln e / √(π² + ln² e) (Luding
/// 2008, Granular Matter 10 §2.1). Frictionless: no tangential force.
///
/// d is the particle spacing dp: two objects' surfaces touch when their outermost particles,
/// dp/2 inside each surface, are dp apart. κ (1/s²) sets the stiffness from the time step the
/// fluid allows (body_table.h): √κ = 2π / (40 dt_ref), so that a contact spans about 40 steps
/// (a stable explicit integration for up to a few contacts per particle) — contacts are as stiff
/// as the step allows, not a material's.

#include "neighbours/vec.h"

#include <cmath>

namespace sluice {

/// The constants of the contact model (the file comment).
struct ContactConstants {
    float distance = 0.0f; ///< d, m
    float rate2 = 0.0f;    ///< κ, 1/s²
};

/// ζ of restitution coefficient e ∈ (0, 1].
inline double contact_damping_ratio(double restitution) {
    const double l = std::log(restitution);
    return -l / std::sqrt(3.14159265358979323846 * 3.14159265358979323846 + l * l);
}

/// f_b of the pair (the file comment); rbj = x_b − x_j, r2 = |rbj|², vbj = v_b − v_j, m_star
/// the reduced mass (kg; 2D kg/m), zeta the pair's damping ratio. Zero beyond the contact
/// distance or when the dashpot would pull.
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> contact_force(const ContactConstants& c, const Vec<D>& rbj, float r2,
                                             const Vec<D>& vbj, float m_star, float zeta) {
    if (!(r2 < c.distance * c.distance) || !(r2 > 0.0f))
        return Vec<D>{};
    const float r = sqrtf(r2);
    const Vec<D> n = (1.0f / r) * rbj;
    const float overlap = c.distance - r;
    const float rate = -dot(vbj, n);
    const float root = sqrtf(c.rate2);
    const float f = m_star * (c.rate2 * overlap + 2.0f * zeta * root * rate);
    return f > 0.0f ? f * n : Vec<D>{};
}

} // namespace sluice
