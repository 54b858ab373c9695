#pragma once
/// \file preflight.h
/// The pre-flight check of `sluice check`, `run` and `bench`: particle counts worked out from the
/// geometry (no particle generated) and the host and device memory the chosen backend and
/// neighbour module will need, against what this machine has. A case that does not fit is
/// refused in well under a second, before anything is allocated.

#include "backends/simulation.h"
#include "case/case_model.h"
#include "case/particles.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sluice {

/// A case too large for this machine (or for 32-bit particle ids); the CLI maps it to exit 2.
struct ResourceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct PreflightReport {
    ParticleCountEstimate particles;
    double bins = 0.0;             ///< bins of the neighbour grid over the domain
    std::string grid_problem;      ///< why make_grid refuses the domain (then bins is ∞), or ""
    double host_needed = 0.0;      ///< bytes: particle generation, backend state, output buffers
    double host_available = 0.0;   ///< bytes (MemAvailable), 0 when unknown
    double device_needed = 0.0;    ///< bytes on the GPU (cuda backend), else 0
    double device_available = 0.0; ///< bytes free on the GPU (cuda backend), else 0
};

/// Estimates what a run of `c` on `backend` needs and what the machine offers.
PreflightReport preflight(const Case& c, Backend backend);

/// Throws ResourceError with the numbers (particles, bytes needed, bytes available) when the
/// report does not fit: more particles than 32-bit ids allow, more host memory than available,
/// more device memory than free.
void require_fits(const PreflightReport& report, Backend backend);

/// "1047844": a count estimate as a whole number.
std::string format_count(double count);

/// "12.3 GiB".
std::string format_bytes(double bytes);

/// Bytes the kernel says can be allocated without swapping (MemAvailable of /proc/meminfo),
/// 0 when unknown.
double host_memory_available();

} // namespace sluice
