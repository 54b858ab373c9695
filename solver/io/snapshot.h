#pragma once
/// \file snapshot.h
/// Host-side copies of the particle state and run statistics that output and the CLI consume.
/// Backends fill them; output writes them; neither knows the other.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

enum class ParticleType : std::uint8_t {
    fluid = 0,
    boundary = 1, ///< dynamic boundary particle (DBC): fixed, takes part in continuity
};

/// The particles in the domain at one time, in original particle order (ascending id).
/// Excluded particles (left the domain) are not in a snapshot; ParticleCounts counts them.
struct Snapshot {
    int dimension = 2;
    double time = 0.0; ///< s, simulated
    std::uint64_t step = 0;
    double dt = 0.0;               ///< s, the last step's time step (0 at t = 0)
    std::vector<std::uint32_t> id; ///< original particle index (generation order)
    std::vector<ParticleType> type;
    std::vector<std::array<float, 3>> position; ///< m; in 2D y = 0
    std::vector<std::array<float, 3>> velocity; ///< m/s; in 2D v_y = 0
    std::vector<float> density;                 ///< kg/m³
    std::vector<float> pressure;                ///< Pa (Tait EOS)
    /// mDBC wall normals (physics/mdbc.h), in the first snapshot of a run (step 0) only, for
    /// viewing: per particle the unit vector from a wall particle towards its ghost node
    /// (2D: y = 0), zero for fluid particles and for wall particles without a ghost node.
    /// Empty (the other snapshots, DBC runs): none; else as long as `id`.
    std::vector<std::array<float, 3>> normal;

    std::size_t size() const { return id.size(); }
};

struct ParticleCounts {
    std::uint64_t fluid = 0; ///< fluid particles still in the domain
    std::uint64_t boundary = 0;
    std::uint64_t excluded = 0; ///< fluid particles that left the domain
};

/// Wall-clock seconds spent per stage of the time step, accumulated over a run.
/// Stage names are the backend's (e.g. "construction", "reorder", "interaction",
/// "integration", "checks", "output").
using StageTimes = std::vector<std::pair<std::string, double>>;

} // namespace sluice
