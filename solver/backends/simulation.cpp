#include "backends/simulation.h"

#include "backends/state_conversion.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"

namespace sluice {

std::future<Snapshot> Simulation::begin_snapshot() {
    std::promise<Snapshot> ready;
    ready.set_value(snapshot());
    return ready.get_future();
}

std::future<GaugeResponse> Simulation::begin_gauges(const GaugeRequest& request) {
    std::promise<GaugeResponse> ready;
    ready.set_value(sample_gauges(request));
    return ready.get_future();
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& b) {
    if (b.backend == Backend::cuda)
        return make_cuda_simulation(c, b.cuda);
    return make_cpu_simulation(c);
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const ParticleSet& particles,
                                            const BackendOptions& b) {
    if (b.backend == Backend::cuda)
        return make_cuda_simulation(c, particles, b.cuda);
    return make_cpu_simulation(c, particles);
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& b,
                                            const Communicator& comm) {
    if (b.backend == Backend::cuda)
        return make_cuda_simulation(c, comm, b.cuda);
    return make_cpu_simulation(c, comm);
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& b,
                                            const Communicator& comm, const SimulationState& piece,
                                            const SlabDecomposition& slabs,
                                            std::uint64_t total_particles) {
    if (b.backend == Backend::cuda)
        return make_cuda_simulation(c, comm, piece, slabs, total_particles, b.cuda);
    return make_cpu_simulation(c, comm, piece, slabs, total_particles);
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const BackendOptions& b,
                                            const SimulationState& state) {
    if (b.backend == Backend::cuda)
        return make_cuda_simulation(c, state, b.cuda);
    return make_cpu_simulation(c, state);
}

SimulationState initial_state(const ParticleSet& particles) {
    const std::size_t n = particles.size();
    SimulationState s;
    s.dimension = particles.dimension;
    s.fluid_height = particles.fluid_height;
    s.id.resize(n);
    s.position.resize(n);
    s.velocity.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.id[i] = static_cast<std::uint32_t>(i);
        for (int k = 0; k < 3; ++k) {
            s.position[i][k] = static_cast<float>(particles.position[i][k]);
            s.velocity[i][k] = static_cast<float>(particles.velocity[i][k]);
        }
        if (s.dimension == 2)
            s.position[i][1] = s.velocity[i][1] = 0.0f;
    }
    s.type = particles.type;
    s.density = particles.density;
    return s;
}

DerivedConstants restored_constants(const Case& c, const SimulationState& s) {
    auto fail = [](const std::string& why) {
        throw std::invalid_argument("the saved state does not fit the case: " + why);
    };
    if (s.dimension != c.dimension)
        fail("it is " + std::to_string(s.dimension) + "D, the case " + std::to_string(c.dimension) +
             "D");
    const std::size_t n = s.size();
    if (s.type.size() != n || s.position.size() != n || s.velocity.size() != n ||
        s.density.size() != n)
        fail("its arrays differ in length");
    if (!s.previous_velocity.empty() &&
        (s.previous_velocity.size() != n || s.previous_density.size() != n))
        fail("its step n-1 arrays differ in length");
    std::vector<bool> seen(n, false);
    for (const std::uint32_t id : s.id) {
        if (id >= n || seen[id])
            fail("its particle ids are not a permutation of 0.." + std::to_string(n - 1));
        seen[id] = true;
    }
    return derive_constants(c, s.fluid_height);
}

} // namespace sluice
