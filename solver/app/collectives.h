#pragma once
/// \file collectives.h
/// What the processes of a run over several send each other about the run as a whole (the
/// restart's choice of checkpoint, counts, diagnostics, exclusions, the summary's figures).

#include "backends/simulation.h"
#include "io/run_output.h"
#include "io/summary.h"
#include "parallel/communicator.h"

#include <vector>

namespace sluice {

/// Each process's values, on every process, in rank order (collective).
std::vector<std::vector<double>> gather_values(const Communicator& comm,
                                               const std::vector<double>& mine);

/// Counts over every process (each counts the particles it owns); collective when comm.
ParticleCounts run_counts(const Simulation& sim, const Communicator* comm);

/// The collectives a run's output needs (io/run_output.h), over comm; comm must outlive them.
OutputGroup output_group(const Communicator& comm);

/// Exclusions and an interrupt on any process, known to all (one small reduction a step; the
/// exclusions are gathered, in id order, only when there are any). \returns whether to stop.
bool combine_step_flags(const Communicator& comm, bool stop, std::vector<Exclusion>& exclusions);

/// The slabs and each process's counts and stage times, for summary.json (collective).
DecompositionSummary decomposition_summary(const Case& c, const Simulation& sim,
                                           const Communicator& comm);

} // namespace sluice
