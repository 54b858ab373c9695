#pragma once
/// \file failure.h
/// The message of a SimulationFailure, worded the same by both backends.

#include "case/case_model.h"
#include "case/state_conversion.h"
#include "neighbours/vec.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {

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

} // namespace sluice
