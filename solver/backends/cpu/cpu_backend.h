#pragma once
/// \file cpu_backend.h
/// The OpenMP CPU backend. Use make_simulation(case, Backend::cpu); this header is for it.

#include "backends/simulation.h"
#include "case/case_model.h"
#include "case/particles.h"

#include <cstdint>
#include <memory>

namespace sluice {

class Communicator;
struct SlabDecomposition;

/// Generates the particles of the case and returns the CPU simulation at t = 0.
/// \throws std::invalid_argument when a particle lies outside the domain at t = 0, or as
///         generate_particles does.
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c);

/// As above, from particles already generated for the case (benchmarks reuse one set).
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const ParticleSet& particles);

/// This process's part of a run spread over comm.size() processes (DESIGN.md, Scale-out): the
/// particles of its slab of the domain, cut along the longest axis with about the same number
/// of particles per slab. Collective. \throws std::invalid_argument as above, or when the
/// domain is too short for that many slabs (slabs.h).
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const Communicator& comm);

/// This process's part of a run over several processes, continued from its checkpoint
/// (make_simulation with a piece); of `slabs` only the axis and the faces are read (the bin and
/// halo widths follow from the case). Collective.
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const Communicator& comm,
                                                const SimulationState& piece,
                                                const SlabDecomposition& slabs,
                                                std::uint64_t total_particles);

/// Continues a saved state of case c (Simulation::save_state, a checkpoint).
/// \throws std::invalid_argument when the state does not fit the case.
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c, const SimulationState& state);

} // namespace sluice
