#pragma once
/// \file damping.h
/// Damping zones, where the fluid's velocity relaxes to rest so that waves are absorbed at the
/// end of a flume (Altomare, Domínguez, Crespo, González-Cao, Suzuki, Gómez-Gesteira, Troch
/// 2017, Coastal Engineering 127, 37–54, §2.3, eq. 14: DualSPHysics's damping zone). A zone
/// starts at the plane through `start` normal to n = (end − start)/L, L = |end − start|; a fluid
/// particle a distance d past that plane has f = min(d/L, 1) (0 before the plane), and each step
///   v ← v · max(0, 1 − dt β f²),
/// β (1/s) the zone's reduction (DualSPHysics's redumax, 10 by default). The quadratic ramp keeps
/// the zone's own reflection small (Altomare et al. 2017 found it under 10 % over a zone of one
/// to two wavelengths).

#include "neighbours/vec.h"

#include <cstdint>

namespace sluice {

/// A zone in the solver's vectors (2D: x–z).
template <int D>
struct DampingZoneData {
    Vec<D> start{};      ///< m
    Vec<D> direction{};  ///< (end − start)/L² (1/m): d/L = (x − start)·direction
    float reduction = 0; ///< β (1/s)
};

/// The factor a fluid particle at x takes over a step of dt (s) from `count` zones (the
/// product of each zone's; 1 outside them all).
template <int D>
SLUICE_HD SLUICE_INLINE float damping_factor(const DampingZoneData<D>* zones, std::uint32_t count,
                                             const Vec<D>& x, float dt) {
    float factor = 1.0f;
    for (std::uint32_t z = 0; z < count; ++z) {
        const float f = fminf(dot(x - zones[z].start, zones[z].direction), 1.0f);
        if (f > 0.0f)
            factor *= fmaxf(0.0f, 1.0f - dt * zones[z].reduction * f * f);
    }
    return factor;
}

} // namespace sluice
