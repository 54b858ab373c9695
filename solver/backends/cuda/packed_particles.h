#pragma once
/// \file packed_particles.h
/// The CUDA backend's particle layout and its per-particle work, as host/device code so that the
/// host can check it against the shared CPU path
/// (tests/solver/backends/cuda/test_packed_particles.cpp).
///
/// What one interaction pass reads of a neighbour j is packed into as few 16-byte loads as the
/// dimension allows:
///
/// | D | position array (sorted by the builder)  | motion array (Float4)          |
/// |---|------------------------------------------|--------------------------------|
/// | 3 | Vec<3> (x, y, z, **p/ρ²**)               | (vx, vy, vz, ±ρ)               |
/// | 2 | Vec<2> (x, z)                            | (vx, vz, ±ρ, p/ρ²)             |
///
/// In 3D, p/ρ² rides in the padding component of the position: every neighbour builder copies
/// whole Vec<3>s into bin order and reads only components 0–2, and the query only forms
/// x − x_j, whose padding stays 0. ±ρ is the density with the sign bit set for boundary
/// particles: ρ is positive for every valid state, and the sign bit decodes the type even when ρ
/// became NaN (the failure check still names the particle's type right).
///
/// p/ρ² = tait_pressure(ρ)/(ρ·ρ) is computed once per particle when its density changes, which
/// gives bit for bit the value that InteractionVisitor (physics.h) computes per pair from the
/// pressure array; PackedInteractionVisitor otherwise runs the same physics.h functions in the
/// same order, so on the host both give identical sums (tested), and on the device they differ
/// from the CPU only by the device's rounding (fused multiply-add, powf).

#include "io/snapshot.h"
#include "neighbours/query.h"
#include "neighbours/vec.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <cmath>
#include <cstdint>

namespace sluice {

/// Four floats, 16-byte aligned: one vector load on the device.
struct alignas(16) Float4 {
    float x = 0.0f, y = 0.0f, z = 0.0f, w = 0.0f;
};

/// ±ρ: the density with the sign bit set for boundary particles.
SLUICE_HD SLUICE_INLINE float encode_density(float rho, ParticleType type) {
    return type == ParticleType::fluid ? rho : -rho;
}
SLUICE_HD SLUICE_INLINE float decode_density(float signed_rho) {
    return fabsf(signed_rho);
}
SLUICE_HD SLUICE_INLINE ParticleType decode_type(float signed_rho) {
#if defined(__CUDA_ARCH__)
    const bool negative = signbit(signed_rho);
#else
    const bool negative = std::signbit(signed_rho);
#endif
    return negative ? ParticleType::boundary : ParticleType::fluid;
}

/// p/ρ², the pressure term of particle i in the symmetric momentum equation (physics.h).
SLUICE_HD SLUICE_INLINE float pressure_over_rho2(const FluidConstants& c, float rho) {
    return tait_pressure(c, rho) / (rho * rho);
}

/// The unpacked state of one particle.
template <int D>
struct ParticleState {
    Vec<D> position{}; ///< padding component 0
    Vec<D> velocity{};
    float density = 0.0f;
    ParticleType type = ParticleType::fluid;
    float p_rho2 = 0.0f; ///< as stored (not recomputed)
};

/// Packs a particle into (position, motion), with p/ρ² computed from its density.
template <int D>
SLUICE_HD SLUICE_INLINE void pack_particle(const FluidConstants& c, const Vec<D>& x,
                                           const Vec<D>& v, float rho, ParticleType type,
                                           Vec<D>& position, Float4& motion) {
    const float p_rho2 = pressure_over_rho2(c, rho);
    position = x;
    motion.x = v[0];
    motion.y = v[1];
    if constexpr (D == 3) {
        position.c[3] = p_rho2;
        motion.z = v[2];
        motion.w = encode_density(rho, type);
    } else {
        motion.z = encode_density(rho, type);
        motion.w = p_rho2;
    }
}

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> motion_velocity(const Float4& m) {
    Vec<D> v{};
    v[0] = m.x;
    v[1] = m.y;
    if constexpr (D == 3)
        v[2] = m.z;
    return v;
}

template <int D>
SLUICE_HD SLUICE_INLINE float motion_signed_density(const Float4& m) {
    if constexpr (D == 3)
        return m.w;
    else
        return m.z;
}

template <int D>
SLUICE_HD SLUICE_INLINE float packed_p_rho2(const Vec<D>& position, const Float4& m) {
    if constexpr (D == 3)
        return position.c[3];
    else
        return m.w;
}

/// The position with its padding component cleared (3D p/ρ² removed).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> plain_position(const Vec<D>& position) {
    Vec<D> x = position;
    if constexpr (D == 3)
        x.c[3] = 0.0f;
    return x;
}

template <int D>
SLUICE_HD SLUICE_INLINE ParticleState<D> unpack_particle(const Vec<D>& position, const Float4& m) {
    ParticleState<D> s;
    s.position = plain_position(position);
    s.velocity = motion_velocity<D>(m);
    const float signed_rho = motion_signed_density<D>(m);
    s.density = decode_density(signed_rho);
    s.type = decode_type(signed_rho);
    s.p_rho2 = packed_p_rho2(position, m);
    return s;
}

/// Derivatives of one pass packed in 16 bytes: 3D (ax, ay, az, dρ/dt), 2D (ax, az, dρ/dt, 0).
template <int D>
SLUICE_HD SLUICE_INLINE Float4 pack_derivatives(const Vec<D>& acceleration, float density_rate) {
    Float4 d;
    d.x = acceleration[0];
    d.y = acceleration[1];
    if constexpr (D == 3) {
        d.z = acceleration[2];
        d.w = density_rate;
    } else {
        d.z = density_rate;
    }
    return d;
}
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> derivatives_acceleration(const Float4& d) {
    return motion_velocity<D>(d);
}
template <int D>
SLUICE_HD SLUICE_INLINE float derivatives_density_rate(const Float4& d) {
    if constexpr (D == 3)
        return d.w;
    else
        return d.z;
}

namespace detail {
/// A motion entry (read-only cache on the device: 16-byte load).
SLUICE_HD SLUICE_INLINE Float4 load_motion(const Float4* p) {
#if defined(__CUDA_ARCH__)
    const float4 q = __ldg(reinterpret_cast<const float4*>(p));
    Float4 m;
    m.x = q.x, m.y = q.y, m.z = q.z, m.w = q.w;
    return m;
#else
    return *p;
#endif
}
} // namespace detail

/// Velocity, density and type of a particle from its motion entry.
template <int D>
SLUICE_HD SLUICE_INLINE NeighbourMotion<D> unpack_motion(const Float4& m) {
    const float signed_rho = motion_signed_density<D>(m);
    return {motion_velocity<D>(m), decode_density(signed_rho),
            decode_type(signed_rho) == ParticleType::fluid};
}

/// Read-only packed arrays in bin order (device pointers on the CUDA backend).
template <int D>
struct PackedParticlesView {
    const Vec<D>* position = nullptr; ///< the neighbour view's sorted positions
    const Float4* motions = nullptr;  ///< one per particle, bin order
    /// mDBC with moving walls (FluidConstants::moving_walls): the ids in bin order and the
    /// walls' motion; else unset.
    const std::uint32_t* ids = nullptr;
    MovingWallsView<D> walls{};
    /// diffusion antuono2010: the renormalised density gradients in bin order (delta_sph.h).
    const Vec<D>* density_gradient = nullptr;

    /// Velocity, density and type of neighbour j from its one 16-byte motion entry.
    SLUICE_HD SLUICE_INLINE NeighbourMotion<D> motion(std::uint32_t j) const {
        return unpack_motion<D>(detail::load_motion(motions + j));
    }
    /// Wall particle j's own velocity at x_j (m/s; moving walls only, physics.h).
    SLUICE_HD SLUICE_INLINE Vec<D> wall_velocity(std::uint32_t j, const Vec<D>& x_j) const {
        return walls.wall_velocity(ids[j], x_j);
    }
    /// ⟨∇ρ⟩_j^L (kg/m⁴; diffusion antuono2010 only).
    SLUICE_HD SLUICE_INLINE Vec<D> gradient(std::uint32_t j) const {
        return detail::load_position(density_gradient + j);
    }
    /// p_j/ρ_j², stored in the padding of the position (3D) or the motion (2D).
    SLUICE_HD SLUICE_INLINE float p_rho2(std::uint32_t j, float /*rho_j*/) const {
        if constexpr (D == 3)
            return detail::load_position(position + j).c[3];
        else
            return detail::load_motion(motions + j).w;
    }
};

/// InteractionVisitor (physics.h) over the packed layout: the same pair terms, read through
/// PackedParticlesView (test_packed_particles.cpp checks that both layouts agree bit for bit).
template <int D, class KernelT, class ModelT = RuntimeModel>
using PackedInteractionVisitor = InteractionVisitor<D, KernelT, PackedParticlesView<D>, ModelT>;

/// The visitor for bin-order particle index_i, before any neighbour.
template <int D, class KernelT, class ModelT = RuntimeModel>
SLUICE_HD SLUICE_INLINE PackedInteractionVisitor<D, KernelT, ModelT>
make_packed_visitor(const PackedParticlesView<D>& particles, const KernelT& kernel,
                    const FluidConstants& c, const Vec<D>& position_i, const Float4& motion_i,
                    std::uint32_t index_i) {
    const float signed_rho = motion_signed_density<D>(motion_i);
    PackedInteractionVisitor<D, KernelT, ModelT> visitor{particles,
                                                         kernel,
                                                         c,
                                                         motion_velocity<D>(motion_i),
                                                         decode_density(signed_rho),
                                                         packed_p_rho2(position_i, motion_i),
                                                         decode_type(signed_rho) ==
                                                             ParticleType::fluid,
                                                         position_i};
    if (ModelT::diffusion(c) == DensityDiffusion::antuono2010)
        visitor.grad_rho_i = particles.gradient(index_i);
    return visitor;
}

/// interact_particle (physics.h) over the packed layout: one neighbour query, all derivatives of
/// particle i (the view's index), with the pair terms' model ModelT (physics.h).
template <class QueryT, class ModelT = RuntimeModel, class ViewT, class KernelT,
          int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE Derivatives<D>
interact_packed_particle(const ViewT& view, const PackedParticlesView<D>& particles,
                         const KernelT& kernel, const FluidConstants& c, std::uint32_t i) {
    const Vec<D> x = detail::load_position(view.positions + i);
    PackedInteractionVisitor<D, KernelT, ModelT> visitor = make_packed_visitor<D, KernelT, ModelT>(
        particles, kernel, c, x, detail::load_motion(particles.motions + i), i);
    for_each_neighbour<QueryT>(view, x, visitor);
    return visitor.result();
}

// ---------------------------------------------------------------------------------------------
// Integration of one particle through integrators.h: the scheme functions run on an
// IntegratorArrays whose "arrays" are this particle's registers (index 0).

/// What the symplectic predictor, corrector and Verlet read and write of one particle besides
/// its packed state.
template <int D>
struct PreviousState {
    Vec<D> position{}; ///< symplectic only
    Vec<D> velocity{};
    float density = 0.0f;
};

template <int D>
struct IntegrationResult {
    Vec<D> position;        ///< packed: 3D padding = p/ρ² of the new density
    Float4 motion;          ///< packed
    ParticleState<D> state; ///< unpacked new state (for the failure check)
};

namespace detail {
template <int D>
SLUICE_HD SLUICE_INLINE IntegrationResult<D> repack(const FluidConstants& c,
                                                    const ParticleState<D>& s) {
    IntegrationResult<D> r;
    pack_particle<D>(c, s.position, s.velocity, s.density, s.type, r.position, r.motion);
    r.state = s;
    return r;
}
} // namespace detail

/// symplectic_predict (integrators.h) of one packed particle; `previous` receives state n.
template <int D>
SLUICE_HD SLUICE_INLINE IntegrationResult<D>
predict_packed(const FluidConstants& c, const Vec<D>& position, const Float4& motion,
               const Float4& derivatives, float dt, PreviousState<D>& previous) {
    ParticleState<D> s = unpack_particle(position, motion);
    const Vec<D> acceleration = derivatives_acceleration<D>(derivatives);
    const float density_rate = derivatives_density_rate<D>(derivatives);
    const IntegratorArrays<D> a{&s.position,        &s.velocity,        &s.density,
                                &previous.position, &previous.velocity, &previous.density,
                                &acceleration,      &density_rate,      &s.type};
    symplectic_predict(a, 0, dt, c.rho0);
    return detail::repack(c, s);
}

/// symplectic_correct (integrators.h) of one packed particle with its state n in `previous`;
/// shift_velocity: its shifting velocity, or null (no shifting).
template <int D>
SLUICE_HD SLUICE_INLINE IntegrationResult<D>
correct_packed(const FluidConstants& c, const Vec<D>& position, const Float4& motion,
               const Float4& derivatives, float dt, PreviousState<D> previous,
               const Vec<D>* shift_velocity = nullptr) {
    ParticleState<D> s = unpack_particle(position, motion);
    const Vec<D> acceleration = derivatives_acceleration<D>(derivatives);
    const float density_rate = derivatives_density_rate<D>(derivatives);
    const IntegratorArrays<D> a{&s.position,        &s.velocity,        &s.density,
                                &previous.position, &previous.velocity, &previous.density,
                                &acceleration,      &density_rate,      &s.type,
                                shift_velocity};
    symplectic_correct(a, 0, dt, c.rho0);
    return detail::repack(c, s);
}

/// verlet_update (integrators.h) of one packed particle; `previous` holds step n−1 on entry and
/// step n on return; shift_velocity as correct_packed's.
template <int D>
SLUICE_HD SLUICE_INLINE IntegrationResult<D>
verlet_packed(const FluidConstants& c, const Vec<D>& position, const Float4& motion,
              const Float4& derivatives, float dt, bool euler, PreviousState<D>& previous,
              const Vec<D>* shift_velocity = nullptr) {
    ParticleState<D> s = unpack_particle(position, motion);
    const Vec<D> acceleration = derivatives_acceleration<D>(derivatives);
    const float density_rate = derivatives_density_rate<D>(derivatives);
    const IntegratorArrays<D> a{&s.position,        &s.velocity,        &s.density,
                                &previous.position, &previous.velocity, &previous.density,
                                &acceleration,      &density_rate,      &s.type,
                                shift_velocity};
    verlet_update(a, 0, dt, euler, c.rho0);
    return detail::repack(c, s);
}

/// The failure check of the CPU backend (cpu/checks.cpp): a non-finite position, velocity or
/// density, or a density outside [density_min, density_max].
SLUICE_HD SLUICE_INLINE bool finite_value(float v) {
#if defined(__CUDA_ARCH__)
    return isfinite(v);
#else
    return std::isfinite(v);
#endif
}

template <int D>
SLUICE_HD SLUICE_INLINE bool state_is_bad(const ParticleState<D>& s, float density_min,
                                          float density_max) {
    bool finite = finite_value(s.density);
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        finite = finite && finite_value(s.position[k]) && finite_value(s.velocity[k]);
    return !finite || s.density < density_min || s.density > density_max;
}

} // namespace sluice
