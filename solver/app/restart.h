#pragma once
/// \file restart.h
/// `sluice run --restart DIR`: which checkpoint a run continues from. One process reads the
/// newest usable checkpoint; several read each its own piece of the newest step they all wrote;
/// a checkpoint written by another number of processes is read whole and cut afresh
/// (regrouped), as a run's start cuts its particles.

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
/// \throws UsageError (the checkpoint is of another dp, integrator or dimension, or already at
///         the case's end time), CheckpointError (none reads).
Restart load_any_restart(const Case& c, const std::string& directory, const Communicator* comm);

} // namespace sluice
