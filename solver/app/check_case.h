#pragma once
/// \file check_case.h
/// What `sluice check` does with a case once the reader has accepted it: the pre-flight and
/// require_fits, particle generation, the wall normals (wall_ghosts), each wave maker's theory,
/// the motion tables of a run (run_motion_tables: the speed bound and the domain check) and the
/// boxes the moving objects sweep, the gauge plan (with the sensors' sample points) and the
/// memory estimate, each printed. check_command.cpp calls it on the command line's case; the
/// fuzz target (tests/fuzz/) calls it on arbitrary input, so its contract is the reader's: a
/// case the reader accepts either passes through here or is refused with ResourceError (too
/// large for the machine), never with another exception, a crash or a hang.

#include "backends/backend_options.h"
#include "case/case_model.h"

#include <iosfwd>
#include <limits>

namespace sluice {

struct CheckLimits {
    /// Particles are generated (and the wall normals found) only when the pre-flight estimates
    /// at most this many; above it those lines say they were skipped. `sluice check` has no
    /// limit; the fuzz target keeps each input fast with one.
    double max_generated_particles = std::numeric_limits<double>::infinity();
    /// Bytes of host memory require_fits takes as available instead of this machine's
    /// MemAvailable, when smaller (the fuzz target's; 0: the machine's).
    double host_memory = 0.0;
};

/// Prints check's report of `c` on `backend` after its "valid" line, as `sluice check` does.
/// \throws ResourceError from require_fits, after the pre-flight line is written and flushed.
void check_case(std::ostream& out, const Case& c, Backend backend, const CheckLimits& limits = {});

} // namespace sluice
