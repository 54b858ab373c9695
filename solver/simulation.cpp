#include "simulation.h"

#include "cpu_backend.h"

namespace sluice {

std::unique_ptr<Simulation> make_simulation(const Case& c, Backend backend) {
    if (backend == Backend::cuda)
        throw std::runtime_error("the CUDA backend is not available yet: use --backend cpu");
    return make_cpu_simulation(c);
}

} // namespace sluice
