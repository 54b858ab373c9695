#include "backends/simulation.h"

#include "case/state_conversion.h"

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

std::future<GaugeResponse> Simulation::step_and_sample(const GaugeRequest& request, double before) {
    step();
    if (time() < before)
        return begin_gauges(request);
    return {};
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

} // namespace sluice
