#include "io/diagnostics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sluice {

std::vector<std::string> diagnostics_columns() {
    return {"kinetic_energy", "potential_energy", "max_speed", "min_density", "max_density",
            "fluid",          "boundary",         "excluded",  "dt"};
}

std::vector<std::string> diagnostics_comments() {
    return {"sluice diagnostics at every output time (fluid particles only for energies, speed "
            "and densities)",
            "t: s; kinetic_energy, potential_energy: J (2D: J per metre of depth; potential from "
            "z = 0); max_speed: m/s; min_density, max_density: kg/m3; fluid, boundary, "
            "excluded: particles; dt: s (the last step's)"};
}

std::vector<double> diagnostics_row(const Snapshot& s, const DiagnosticsConstants& k) {
    double kinetic = 0.0, potential = 0.0, max_speed2 = 0.0;
    double rho_min = HUGE_VAL, rho_max = -HUGE_VAL;
    std::uint64_t fluid = 0, boundary = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.type[i] != ParticleType::fluid) {
            ++boundary;
            continue;
        }
        ++fluid;
        const auto& v = s.velocity[i];
        const double v2 = double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2];
        kinetic += 0.5 * k.mass * v2;
        potential += k.mass * k.gravity * s.position[i][2];
        max_speed2 = std::max(max_speed2, v2);
        rho_min = std::min<double>(rho_min, s.density[i]);
        rho_max = std::max<double>(rho_max, s.density[i]);
    }
    const double none = std::numeric_limits<double>::quiet_NaN();
    const bool any = fluid > 0;
    return {any ? kinetic : none,
            any ? potential : none,
            any ? std::sqrt(max_speed2) : none,
            any ? rho_min : none,
            any ? rho_max : none,
            static_cast<double>(fluid),
            static_cast<double>(boundary),
            static_cast<double>(k.particles - fluid - boundary),
            s.dt};
}

std::vector<double> combine_diagnostics_rows(const std::vector<std::vector<double>>& rows,
                                             const DiagnosticsConstants& k) {
    double kinetic = 0.0, potential = 0.0, max_speed = -HUGE_VAL;
    double rho_min = HUGE_VAL, rho_max = -HUGE_VAL, fluid = 0.0, boundary = 0.0;
    for (const std::vector<double>& r : rows) {
        fluid += r[5];
        boundary += r[6];
        if (r[5] == 0.0) // no fluid there: its fluid columns are empty
            continue;
        kinetic += r[0];
        potential += r[1];
        max_speed = std::max(max_speed, r[2]);
        rho_min = std::min(rho_min, r[3]);
        rho_max = std::max(rho_max, r[4]);
    }
    const double none = std::numeric_limits<double>::quiet_NaN();
    const bool any = fluid > 0.0;
    return {any ? kinetic : none,
            any ? potential : none,
            any ? max_speed : none,
            any ? rho_min : none,
            any ? rho_max : none,
            fluid,
            boundary,
            static_cast<double>(k.particles) - fluid - boundary,
            rows.empty() ? none : rows.front()[8]};
}

} // namespace sluice
