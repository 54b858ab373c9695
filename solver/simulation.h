#pragma once
/// \file simulation.h
/// The backend-independent face of a running simulation. The CLI drives it; the CPU backend
/// (cpu_backend.cpp) and the CUDA backend implement it. Virtual calls happen on the host only,
/// once per step at most.

#include "case_model.h"
#include "snapshot.h"

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {

enum class Backend { cpu, cuda };

/// Thrown by step() when the state became non-physical (NaN, density outside the configured
/// range). The message names the step, the time and the offending particle(s) by id. The state
/// the failure was detected in stays readable through snapshot().
class SimulationFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Derived constants of a case (what `sluice check` prints).
struct DerivedConstants {
    double h = 0.0;              ///< smoothing length (m) = coefh·sqrt(D)·dp
    double support = 0.0;        ///< kernel support = search radius R = 2h (m)
    double speed_of_sound = 0.0; ///< c0 (m/s)
    double mass = 0.0;           ///< particle mass ρ0·dp^D (kg)
    double initial_dt = 0.0;     ///< s
    double b = 0.0;              ///< Tait coefficient c0²ρ0/γ (Pa)
};

/// A fluid particle that left the domain. The first neighbour-structure build that finds it
/// outside excludes it: from then on it is frozen, invisible to every neighbour query, left out
/// of snapshots and counted in ParticleCounts::excluded.
struct Exclusion {
    std::uint32_t id = 0;
    std::uint64_t step = 0;          ///< the step (1-based) during which it was excluded
    double time = 0.0;               ///< s, the time at the end of that step
    std::array<float, 3> position{}; ///< m, where it stays frozen (2D: y = 0)
};

class Simulation {
public:
    virtual ~Simulation() = default;

    /// Advances one time step (dt from the CFL, force and viscous limits).
    /// \throws SimulationFailure when the new state is non-physical.
    virtual void step() = 0;

    virtual double time() const = 0;         ///< s
    virtual std::uint64_t steps() const = 0; ///< steps taken
    virtual double last_dt() const = 0;      ///< s
    virtual ParticleCounts counts() const = 0;
    virtual Snapshot snapshot() const = 0; ///< copies the state to the host
    virtual StageTimes stage_times() const = 0;
    virtual const DerivedConstants& constants() const = 0;
    virtual std::string backend_name() const = 0;

    /// Exclusions since the last call, by ascending id; each is reported exactly once. The CLI
    /// logs them (summary.json has the count from counts()).
    virtual std::vector<Exclusion> take_exclusions() = 0;
};

/// Generates the particles of the case and sets up the chosen backend.
/// \throws std::runtime_error when the backend is unavailable (e.g. cuda without a GPU or
///         without CUDA support in this build), with a message saying so.
std::unique_ptr<Simulation> make_simulation(const Case& c, Backend backend);

} // namespace sluice
