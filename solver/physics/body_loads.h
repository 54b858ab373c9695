#pragma once
/// \file body_loads.h
/// A floating body's particle's share of its body's loads at one stage (the BodyLoads pass):
/// the fluid's pair terms on it (forces.h: f_b = m Σ_j fluid …) and its contacts with the
/// boundary particles of other objects (contact.h), and the moments of both about the body's
/// centre of mass. The backends sum the shares per body (and over processes).

#include "neighbours/vec.h"
#include "physics/contact.h"
#include "physics/forces.h"
#include "physics/motion.h"

#include <cstdint>

namespace sluice {

/// Per body, what its particles' contacts need: its ids, a particle's share of its mass and the
/// damping ratio of its contacts (contact.h).
struct BodyContactData {
    std::uint32_t first_id = 0, id_count = 0;
    float particle_mass = 0.0f; ///< kg (2D: kg/m)
    float zeta = 0.0f;          ///< contact_damping_ratio(restitution)
};

/// The body of boundary id `id` among `count` bodies, or count when none.
SLUICE_HD SLUICE_INLINE std::uint32_t body_of_id(const BodyContactData* bodies, std::uint32_t count,
                                                 std::uint32_t id) {
    std::uint32_t b = 0;
    while (b < count && id - bodies[b].first_id >= bodies[b].id_count) // unsigned
        ++b;
    return b;
}

/// The query's visitor for particle b of body `body`: the fluid's pair terms (WallForceVisitor)
/// and the contact forces with boundary neighbours of other objects. ParticlesT as
/// WallForceVisitor's; `ids` by particle index, `walls` the moving objects' states (a
/// neighbour's own velocity: 0 for a fixed wall, its object's, floating bodies' among them).
template <int D, class KernelT, class ParticlesT>
struct BodyLoadVisitor {
    WallForceVisitor<D, KernelT, ParticlesT> fluid;
    const std::uint32_t* ids;
    const BodyContactData* bodies;
    std::uint32_t body_count;
    std::uint32_t body;
    MovingWallsView<D> walls;
    ContactConstants contact;
    Vec<D> position;       ///< x_b, m
    Vec<D> rigid_velocity; ///< b's own (its body's) velocity, m/s
    Vec<D> contact_force{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rbj, float r2) {
        const NeighbourMotion<D> mj = fluid.particles.motion(j);
        if (mj.fluid) {
            fluid.visit(j, rbj, r2, mj);
            return;
        }
        if (!(r2 < contact.distance * contact.distance))
            return;
        const std::uint32_t id = ids[j];
        const BodyContactData& own = bodies[body];
        if (id - own.first_id < own.id_count) // its own body
            return;
        const std::uint32_t other = body_of_id(bodies, body_count, id);
        float m_star = own.particle_mass, zeta = own.zeta;
        if (other < body_count) {
            const float mj = bodies[other].particle_mass;
            m_star = own.particle_mass * mj / (own.particle_mass + mj);
            zeta = 0.5f * (own.zeta + bodies[other].zeta);
        }
        const Vec<D> vj = walls.wall_velocity(id, position - rbj);
        contact_force += sluice::contact_force(contact, rbj, r2, rigid_velocity - vj, m_star, zeta);
    }
};

/// Adds a particle's force f at x to `sums` (fluid: [0, 6), contact: [6, 12)): the force, then
/// its moment about `center` (x, y, z; 2D: the y moment only).
template <int D>
SLUICE_HD SLUICE_INLINE void body_share(const Vec<D>& x, const double* center, const Vec<D>& f,
                                        double* sums) {
    float xf[3], ff[3], arm[3], m[3];
    detail::to_xyz(x, xf);
    detail::to_xyz(f, ff);
    for (int a = 0; a < 3; ++a)
        arm[a] = static_cast<float>(xf[a] - center[a]);
    detail::cross3f(arm, ff, m);
    for (int a = 0; a < 3; ++a) {
        sums[a] += ff[a];
        sums[3 + a] += m[a];
    }
}

} // namespace sluice
