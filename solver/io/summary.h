#pragma once
/// \file summary.h
/// summary.json: what a run did, machine-readable (nlohmann/json).

#include "io/snapshot.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace sluice {

/// Everything summary.json records about one run.
struct RunSummary {
    std::string case_name;
    std::string case_file;
    std::string backend;          ///< "cpu" or "cuda"
    std::string neighbour_module; ///< e.g. "counting-sort/strips/0.5"
    std::string status;           ///< "completed" or "failed"
    std::string failure;          ///< message when failed, else empty
    ParticleCounts initial;       ///< at t = 0
    ParticleCounts final_counts;  ///< at the end (excluded > 0 if particles left the domain)
    std::uint64_t steps = 0;
    double simulated_time = 0.0;   ///< s
    double end_time = 0.0;         ///< s, requested
    double wall_time = 0.0;        ///< s, whole run
    StageTimes stages;             ///< s per stage
    std::uint64_t snapshots = 0;   ///< .vtp files written (not counting a failure snapshot)
    double smoothing_length = 0.0; ///< h (m)
    double speed_of_sound = 0.0;   ///< c0 (m/s)
    double dp = 0.0;               ///< m
    std::uint64_t checkpoints = 0; ///< checkpoint files written
    std::string restart_file;      ///< the checkpoint a restarted run continued from, else ""
    double restart_time = 0.0;     ///< s, its time
    std::uint64_t restart_step = 0;
};

/// Writes `summary` as JSON to `path` (atomic_file.h). Keys, in this order: case, case_file,
/// backend, neighbour_module, status, failure, particles {initial, final: {fluid, boundary,
/// excluded}}, steps, simulated_time_s, end_time_s, wall_time_s, stages_s {name: s, …, in
/// order}, snapshots, h_m, c0_m_per_s, dp_m, checkpoints, restart (null, or {file, time_s,
/// step} for a restarted run). Non-finite numbers are written as null.
/// \throws std::runtime_error naming `path` when writing or renaming fails.
void write_summary_json(const std::filesystem::path& path, const RunSummary& summary);

} // namespace sluice
