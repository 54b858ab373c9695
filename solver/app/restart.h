#pragma once
/// \file restart.h
/// `sluice run --restart DIR`: which checkpoint a run continues from. One process reads the
/// newest usable checkpoint; several read each its own piece of the newest step they all wrote;
/// a checkpoint written by another number of processes is read whole and cut afresh
/// (regrouped), as a run's start cuts its particles. Output newer than the checkpoint (a run
/// killed after it, or a damaged newer checkpoint skipped) is dropped only when asked for.

#include "case/case_model.h"
#include "io/checkpoint.h"
#include "parallel/communicator.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace sluice {

/// What a restart continues from.
struct Restart {
    Checkpoint checkpoint; ///< this process's state (a regrouped one: its slab of the whole)
    std::filesystem::path directory;
    /// Written by another number of processes than this run has (0: the same): the whole
    /// state, cut afresh.
    std::uint32_t regrouped_from = 0;
};

/// The restart `--restart DIR` asks for: from the newest checkpoint's own pieces when as many
/// processes wrote it as this run has (comm: several, collective; null: one), else regrouped.
/// Warnings about newer checkpoints skipped go to std::cerr.
///
/// When DIR holds output newer than the checkpoint (io/newer_output.h: snapshots, CSV rows,
/// checkpoints), continuing would drop it: without `discard_newer` that is refused, naming it;
/// with it, it is named on std::cerr and the newer checkpoints are removed here (the snapshots
/// and rows as the run's output opens: io/run_output.h).
/// \throws UsageError (the checkpoint is of another dp, integrator or dimension, or already at
///         the case's end time; newer output without discard_newer), CheckpointError (none
///         reads).
Restart load_any_restart(const Case& c, const std::string& directory, const Communicator* comm,
                         bool discard_newer);

} // namespace sluice
