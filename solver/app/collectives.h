#pragma once
/// \file collectives.h
/// What the processes of a run over several send each other about the run as a whole (the
/// restart's choice of checkpoint, counts, diagnostics, exclusions, the summary's figures).

#include "backends/simulation.h"
#include "io/run_output.h"
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

} // namespace sluice
