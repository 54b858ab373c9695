#pragma once
/// \file diagnostics.h
/// diagnostics.csv: whole-flow quantities at every output time, computed from the snapshot on
/// the output thread (no cost to the step).

#include "io/snapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

struct DiagnosticsConstants {
    double mass = 0.0;           ///< kg per particle
    double gravity = 0.0;        ///< m/s², along −z
    std::uint64_t particles = 0; ///< all particles of the run, excluded ones included
};

/// Columns after t: kinetic_energy (J; 2D: per metre of depth, J/m), potential_energy (same
/// units, m·g·z of the fluid, z measured from the case's z = 0), max_speed (m/s), min_density,
/// max_density (kg/m³, fluid), fluid, boundary, excluded (counts), dt (s). With no fluid left
/// the fluid columns are empty.
std::vector<std::string> diagnostics_columns();
/// Comment lines naming the units.
std::vector<std::string> diagnostics_comments();
std::vector<double> diagnostics_row(const Snapshot& s, const DiagnosticsConstants& k);
/// The row of a run over several processes from each one's diagnostics_row of its own
/// particles: energies and counts summed, extremes of the extremes, excluded from k.particles.
std::vector<double> combine_diagnostics_rows(const std::vector<std::vector<double>>& rows,
                                             const DiagnosticsConstants& k);

} // namespace sluice
