#include "case/state_conversion.h"

#include <stdexcept>
#include <string>

namespace sluice {

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
