#pragma once
/// \file cpu_backend.h
/// The OpenMP CPU backend. Use make_simulation(case, Backend::cpu); this header is for it.

#include "backends/simulation.h"
#include "case/case_model.h"

#include <cstdint>
#include <memory>

namespace sluice {

class Communicator;
struct SlabDecomposition;

/// Generates the particles of the case and returns the CPU simulation at t = 0.
/// \throws std::invalid_argument when a particle lies outside the domain at t = 0, or as
///         generate_particles does.
std::unique_ptr<Simulation> make_cpu_simulation(const Case& c);

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

namespace sluice {

/// Memory the CPU backend needs for a case (what `sluice check` prints).
struct MemoryEstimate {
    std::uint64_t bytes_per_particle = 0; ///< state, integrator copies, derivatives, gather
                                          ///< scratch and neighbour-builder buffers
    std::uint64_t particle_bytes = 0;     ///< bytes_per_particle × particles
    std::uint64_t bins = 0;               ///< bins of the grid over the domain
    std::uint64_t grid_bytes = 0;         ///< the PBM and the builder's bin counters
    std::uint64_t total() const { return particle_bytes + grid_bytes; }
};

/// Estimates the CPU backend's memory for `particles` particles of case c (the count comes from
/// generate_particles). Excludes the one-off generation buffers (about 30 bytes per particle).
/// \throws std::invalid_argument when the grid is invalid, as make_grid.
MemoryEstimate estimate_cpu_memory(const Case& c, std::uint64_t particles);

} // namespace sluice
