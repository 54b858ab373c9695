#pragma once
/// \file backend_common.h
/// Host-side pieces both backends share: conversions between the case's Eigen points and the
/// solver's Vec<D>, the kernel choice, and the wording of a failure. Plain C++ (included by the
/// CPU backend and by the CUDA backend's host code).

#include "backends/simulation.h"
#include "case/case_model.h"
#include "case/particles.h"
#include "io/checkpoint.h"
#include "io/snapshot.h"
#include "neighbours/vec.h"
#include "physics/kernels.h"

#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <variant>
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

/// The stages both backends time in a step, in the order summary.json lists them; a backend
/// keeps one accumulated time per stage in an array indexed by this enum.
/// A run over several processes adds `halo` (sending and receiving halo copies, and refreshing
/// them), `migration` (particles that crossed a face) and `waiting` (the reductions over every
/// process: dt, checks, load balancing; mostly the wait for the slowest); they are listed only
/// in such a run.
enum StepStage {
    construction,
    reorder,
    interaction,
    integration,
    checks,
    halo,
    migration,
    waiting,
    step_stage_count
};

/// The named stage times of a backend: its step stages, then the gauges' time.
inline StageTimes named_stage_times(const double (&seconds)[step_stage_count],
                                    double gauge_seconds) {
    StageTimes out = {{"construction", seconds[construction]},
                      {"reorder", seconds[reorder]},
                      {"interaction", seconds[interaction]},
                      {"integration", seconds[integration]},
                      {"checks", seconds[checks]},
                      {"halo", seconds[halo]},
                      {"migration", seconds[migration]},
                      {"waiting", seconds[waiting]},
                      {"gauges", gauge_seconds}};
    if (seconds[halo] == 0.0 && seconds[migration] == 0.0 && seconds[waiting] == 0.0)
        out.erase(out.begin() + halo, out.begin() + waiting + 1);
    return out;
}

/// "(x, y, z)" for messages.
template <int D>
std::string describe(const Vec<D>& v) {
    const std::array<float, 3> a = to_array3(v);
    std::ostringstream out;
    out << '(' << a[0] << ", " << a[1] << ", " << a[2] << ')';
    return out.str();
}

template <int D>
using KernelVariant = std::variant<WendlandC2<D>, CubicSpline<D>>;

template <int D>
KernelVariant<D> make_kernel(KernelKind kind, double h) {
    if (kind == KernelKind::wendland_c2)
        return WendlandC2<D>(h);
    return CubicSpline<D>(h);
}

/// One particle named in a failure message.
template <int D>
struct Offender {
    std::uint32_t id = 0;
    ParticleType type = ParticleType::fluid;
    float density = 0.0f; ///< kg/m³
    Vec<D> position{};    ///< m
    Vec<D> velocity{};    ///< m/s
};

/// The message of a SimulationFailure, the same from both backends: step, time, how many
/// particles are bad, and the first five by ascending id with their state. Sorts `offenders`.
template <int D>
std::string failure_message(std::uint64_t step, double time, std::size_t bad_count,
                            float density_min, float density_max,
                            std::vector<Offender<D>>& offenders) {
    std::sort(offenders.begin(), offenders.end(),
              [](const Offender<D>& a, const Offender<D>& b) { return a.id < b.id; });
    std::ostringstream msg;
    msg << "simulation failed at step " << step << ", t = " << time << " s: " << bad_count
        << " particle(s) with a non-finite state or a density outside [" << density_min << ", "
        << density_max << "] kg/m³";
    for (std::size_t e = 0; e < std::min<std::size_t>(offenders.size(), 5); ++e) {
        const Offender<D>& p = offenders[e];
        msg << (e == 0 ? ": " : "; ") << "id " << p.id
            << (p.type == ParticleType::fluid ? " (fluid)" : " (boundary)")
            << " density = " << p.density << " kg/m³, position = " << describe(p.position)
            << " m, velocity = " << describe(p.velocity) << " m/s";
    }
    if (offenders.size() > 5)
        msg << "; …";
    return msg.str();
}

/// Which particles have left the domain, so that Simulation::take_exclusions reports each once.
class ExclusionLog {
public:
    explicit ExclusionLog(std::size_t particles = 0) : recorded_(particles, false) {}

    /// Records the particles ids[0, count) (excluded at the end of `step`, time `time`) that
    /// were not recorded before; position_of(k) gives the position (x, y, z) of ids[k].
    template <class PositionOfT>
    void record(std::uint32_t count, const std::uint32_t* ids, PositionOfT position_of,
                std::uint64_t step, double time) {
        const std::size_t first = pending_.size();
        for (std::uint32_t k = 0; k < count; ++k) {
            if (recorded_[ids[k]])
                continue;
            recorded_[ids[k]] = true;
            pending_.push_back({ids[k], step, time, position_of(k)});
        }
        std::sort(pending_.begin() + static_cast<std::ptrdiff_t>(first), pending_.end(),
                  [](const Exclusion& a, const Exclusion& b) { return a.id < b.id; });
    }

    /// Marks particles as already reported (a restored run's earlier exclusions).
    void mark_reported(const std::vector<std::uint32_t>& ids) {
        for (const std::uint32_t id : ids)
            if (id < recorded_.size())
                recorded_[id] = true;
    }

    /// Every particle reported so far, ascending.
    std::vector<std::uint32_t> reported() const {
        std::vector<std::uint32_t> out;
        for (std::size_t id = 0; id < recorded_.size(); ++id)
            if (recorded_[id])
                out.push_back(static_cast<std::uint32_t>(id));
        return out;
    }

    /// The exclusions recorded since the last call, by step and then id.
    std::vector<Exclusion> take() {
        std::vector<Exclusion> out;
        out.swap(pending_);
        return out;
    }

private:
    std::vector<bool> recorded_; ///< by id
    std::vector<Exclusion> pending_;
};

} // namespace sluice
