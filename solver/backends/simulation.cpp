#include "backends/simulation.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"

namespace sluice {

std::future<Snapshot> Simulation::begin_snapshot() {
    std::promise<Snapshot> ready;
    ready.set_value(snapshot());
    return ready.get_future();
}

std::unique_ptr<Simulation> make_simulation(const Case& c, Backend backend) {
    if (backend == Backend::cuda)
        return make_cuda_simulation(c);
    return make_cpu_simulation(c);
}

} // namespace sluice
