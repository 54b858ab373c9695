#pragma once
/// \file state_conversion.h
/// Host-side conversions both backends share between the case's points, the saved state and the
/// solver's Vec<D>, and the checks of a saved state against its case. Plain C++.

#include "case/case_model.h"
#include "case/constants.h"
#include "case/particles.h"
#include "io/checkpoint.h"
#include "neighbours/vec.h"

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {

/// A case point (x, y, z) as a solver vector: (x, z) in 2D, (x, y, z) in 3D.
template <int D>
Vec<D> to_vec(const Eigen::Vector3d& p) {
    Vec<D> v{};
    v[0] = static_cast<float>(p.x());
    if constexpr (D == 2) {
        v[1] = static_cast<float>(p.z());
    } else {
        v[1] = static_cast<float>(p.y());
        v[2] = static_cast<float>(p.z());
    }
    return v;
}

/// A solver vector as (x, y, z) for output (2D: y = 0).
template <int D>
std::array<float, 3> to_array3(const Vec<D>& v) {
    if constexpr (D == 2)
        return {v[0], 0.0f, v[1]};
    else
        return {v[0], v[1], v[2]};
}

/// (x, y, z) as a solver vector: the inverse of to_array3 (2D: y is dropped).
template <int D>
Vec<D> from_array3(const std::array<float, 3>& a) {
    Vec<D> v{};
    v[0] = a[0];
    if constexpr (D == 2) {
        v[1] = a[2];
    } else {
        v[1] = a[1];
        v[2] = a[2];
    }
    return v;
}

/// The state at t = 0 of generated particles: in id order, velocities from the case, no step
/// n−1 (a backend takes the state itself for it), nothing excluded. Values are rounded to float
/// exactly as the backends always did (to_vec).
SimulationState initial_state(const ParticleSet& particles);

/// The particles i of `state` for which keep(i) holds, in their order (the step n−1 arrays and
/// the time with them; `excluded` is left empty).
template <class KeepT>
SimulationState select_particles(const SimulationState& state, KeepT keep) {
    SimulationState out;
    out.dimension = state.dimension;
    out.time = state.time;
    out.last_dt = state.last_dt;
    out.steps = state.steps;
    out.fluid_height = state.fluid_height;
    for (std::size_t i = 0; i < state.size(); ++i) {
        if (!keep(i))
            continue;
        out.id.push_back(state.id[i]);
        out.type.push_back(state.type[i]);
        out.position.push_back(state.position[i]);
        out.velocity.push_back(state.velocity[i]);
        out.density.push_back(state.density[i]);
        if (!state.previous_velocity.empty()) {
            out.previous_velocity.push_back(state.previous_velocity[i]);
            out.previous_density.push_back(state.previous_density[i]);
        }
    }
    return out;
}

/// Checks that `state` can be the state of case `c` (dimension, sizes, ids a permutation,
/// integrator's arrays) and returns its derived constants (from its fluid height).
/// \throws std::invalid_argument saying what does not match.
DerivedConstants restored_constants(const Case& c, const SimulationState& state);

/// "(x, y, z)" for messages.
template <int D>
std::string describe(const Vec<D>& v) {
    const std::array<float, 3> a = to_array3(v);
    std::ostringstream out;
    out << '(' << a[0] << ", " << a[1] << ", " << a[2] << ')';
    return out.str();
}

} // namespace sluice
