#pragma once
/// \file checkpoint.h
/// Checkpoints: the whole state of a run in one file, to continue it later (`sluice run CASE.xml
/// --restart DIR`). A checkpoint holds the particles in the backend's own order (so the CPU
/// backend continues bit for bit), the integrator's step n−1 (Verlet), the time, the step
/// count, the exclusions already reported and the output series so far.
///
/// A run over several processes writes one file per process at each checkpoint,
/// `<name>_checkpoint_<step>_<process>.chk`, holding the particles it owns and the slab faces;
/// it continues with the same number of processes from its own file, or with another number
/// (one included) from the pieces merged into the whole run's state (read_latest_whole_checkpoint).
///
/// File: `<dir>/<name>_checkpoint_<step, 12 digits>.chk`, binary little-endian:
///   "SLUICECK" · u32 version · header · arrays · u64 FNV-1a checksum of everything before it.
/// Written through a temporary file, fsync'ed and renamed (atomic_file.h): a crash, kill -9 or
/// power cut during a write leaves the previous checkpoint intact and at most a hidden
/// temporary, which is ignored and cleaned up.

#include "io/snapshot.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {

/// The state of a simulation, particle arrays in the backend's internal order (id[k] names the
/// particle at k). 2D vectors are stored as (x, 0, z).
/// Doubles per floating body in SimulationState::body_states (physics/rigid_body.h's BodyState).
constexpr std::size_t body_state_doubles = 36;

struct SimulationState {
    int dimension = 2;
    double time = 0.0;    ///< s
    double last_dt = 0.0; ///< s
    std::uint64_t steps = 0;
    double fluid_height = 0.0; ///< H_max of the initial fluid (m): the derived constants follow
    std::vector<std::uint32_t> id;
    std::vector<ParticleType> type;
    std::vector<std::array<float, 3>> position; ///< m
    std::vector<std::array<float, 3>> velocity; ///< m/s
    std::vector<float> density;                 ///< kg/m³
    /// Verlet: the state at step n−1 (same order); empty for the symplectic scheme, which keeps
    /// nothing across steps.
    std::vector<std::array<float, 3>> previous_velocity;
    std::vector<float> previous_density;
    /// Particles excluded (left the domain) and already reported, ascending.
    std::vector<std::uint32_t> excluded;
    /// Floating bodies: each body's state (physics/rigid_body.h, BodyState: body_state_doubles
    /// doubles), body after body in case order; empty without bodies. The same on every process.
    std::vector<double> body_states;

    std::size_t size() const { return id.size(); }
};

/// The state with its particles in id order (the order they were generated in). A backend saves
/// its state in its own order: bin order for the reorder layout. A benchmark that hands a
/// developed state to an index layout gives it this order, the one a run with that layout keeps.
SimulationState in_id_order(SimulationState state);

/// A checkpoint: the state plus what the run loop needs to continue its output without gaps or
/// duplicates, and what identifies the case it belongs to.
struct Checkpoint {
    std::string case_name;
    double dp = 0.0;        ///< m: a restart with another dp is refused
    std::string integrator; ///< "symplectic" or "verlet"
    SimulationState state;
    std::uint64_t next_output = 1;     ///< the next output time is next_output · interval
    std::vector<double> output_times;  ///< s, the series' snapshots so far (file k = time k)
    double next_checkpoint_time = 0.0; ///< s
    std::filesystem::path source;      ///< the file it was read from (read_checkpoint)
    /// A run over several processes: this file is process `process` of `processes`, its state
    /// holds the particles that process owns (ids < total_particles), cut along `slab_axis` at
    /// `slab_faces` (m). One process: 0 of 1, no faces.
    std::uint32_t process = 0;
    std::uint32_t processes = 1;
    std::uint64_t total_particles = 0; ///< of the whole run (one process: the state's size)
    std::int32_t slab_axis = 0;
    std::vector<double> slab_faces;
};

/// Unreadable, corrupt or foreign checkpoint; the message names the file and the reason.
struct CheckpointError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// `<dir>/<name>_checkpoint_<step>.chk`; of process p of several: `..._<step>_<p>.chk`.
std::filesystem::path checkpoint_path(const std::filesystem::path& dir, const std::string& name,
                                      std::uint64_t step);
std::filesystem::path checkpoint_path(const std::filesystem::path& dir, const std::string& name,
                                      std::uint64_t step, std::uint32_t process);

/// The steps of process `process`'s checkpoints of case `name` in `dir`, oldest first.
std::vector<std::uint64_t> list_process_checkpoints(const std::filesystem::path& dir,
                                                    const std::string& name, std::uint32_t process);

/// Writes `c` atomically and durably, then deletes all but the newest `keep` checkpoints of the
/// case in `dir` (and leftover temporaries of interrupted writes); of its process's, when
/// c.processes > 1.
/// \returns the path written.
/// \throws std::runtime_error naming the path and the cause (e.g. No space left on device).
std::filesystem::path write_checkpoint(const std::filesystem::path& dir, const Checkpoint& c,
                                       int keep = 2);

/// Reads and verifies one checkpoint file (magic, version, sizes, checksum).
/// \throws CheckpointError.
Checkpoint read_checkpoint(const std::filesystem::path& path);

/// The checkpoints of case `name` in `dir`, oldest first.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& dir,
                                                    const std::string& name);

/// The newest checkpoint of case `name` in `dir` that reads and verifies; a newer one that does
/// not is skipped, and `warnings` gets a line saying why.
/// \throws CheckpointError when there is none (naming the folder) or none verifies.
Checkpoint read_latest_checkpoint(const std::filesystem::path& dir, const std::string& name,
                                  std::vector<std::string>& warnings);

/// How many processes wrote the newest checkpoint step of case `name` in `dir` (1: a single
/// file `<name>_checkpoint_<step>.chk`; otherwise its pieces `..._<step>_<p>.chk` found), from
/// the file names alone; 0 when there is none.
std::uint32_t newest_checkpoint_processes(const std::filesystem::path& dir,
                                          const std::string& name);

/// The pieces of one checkpoint of a run over several processes as the whole run's state, in id
/// order (the order a fresh cut of the domain starts from); the time, step and constants of the
/// first.
/// \throws CheckpointError when there are none, or they disagree on dimension, time or step.
SimulationState merge_pieces(const std::vector<SimulationState>& pieces);

/// The newest checkpoint of case `name` in `dir` as the whole run, whichever number of processes
/// wrote it, for a restart with another number: a single file as it is, or every piece of a
/// step (each verifying, as many as their header says, holding every particle) merged by
/// merge_pieces, with the first piece's output bookkeeping and `processes` = how many wrote it.
/// A newer step that does not read is skipped, and `warnings` gets a line saying why.
/// \throws CheckpointError when there is none (naming the folder) or none reads.
Checkpoint read_latest_whole_checkpoint(const std::filesystem::path& dir, const std::string& name,
                                        std::vector<std::string>& warnings);

} // namespace sluice
