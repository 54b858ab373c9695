#include "app/preflight.h"

#include "backends/backend_options.h"
#include "case/constants.h"
#include "case/domain_grid.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace sluice {

namespace {

/// Host bytes per particle beyond the backend's own state: generate_particles' arrays
/// (position, velocity: 3 doubles each; type; density) at up to twice their size while they
/// grow, and three snapshots in flight (id, type, position, velocity, density, pressure).
constexpr double generation_bytes = 2.0 * (24 + 24 + 1 + 4);
constexpr double snapshot_bytes = 3.0 * (4 + 1 + 12 + 12 + 4 + 4);

/// Bins of the grid over the domain at the case's module: domain_grid itself, so that the
/// pre-flight refuses what the grid would (its limit, a box not finite in float); ∞ and the
/// grid's reason when it refuses.
double grid_bins(const Case& c, std::string& problem) {
    const double radius = 2.0 * smoothing_length(c);
    try {
        return c.dimension == 2 ? domain_grid<2>(c, radius).bin_count()
                                : domain_grid<3>(c, radius).bin_count();
    } catch (const std::invalid_argument& why) {
        problem = why.what();
        return std::numeric_limits<double>::infinity();
    }
}

} // namespace

std::string format_count(double count) {
    std::ostringstream s;
    s.precision(0);
    s << std::fixed << count;
    return s.str();
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    std::ostringstream s;
    s.precision(u == 0 ? 0 : 1);
    s << std::fixed << bytes << ' ' << units[u];
    return s.str();
}

double host_memory_available() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0.0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024.0;
    return 0.0;
}

PreflightReport preflight(const Case& c, Backend backend) {
    PreflightReport r;
    r.particles = estimate_particle_count(c);
    r.bins = grid_bins(c, r.grid_problem);
    if (!r.grid_problem.empty())
        return r; // require_fits refuses it; no estimate holds for a grid that cannot exist
    const double n = r.particles.total();
    double backend_host = 0.0;
    if (backend == Backend::cpu) {
        // estimate_cpu_memory's per-particle figure does not depend on n; ask it for one.
        const MemoryEstimate one = estimate_cpu_memory(c, 1);
        backend_host = one.bytes_per_particle * n + (r.bins + 2) * 4.0;
    } else {
        const CudaMemoryEstimate gpu = estimate_cuda_memory(c, n, r.bins);
        r.device_needed = gpu.device_bytes;
        r.device_available = static_cast<double>(cuda_memory_info().free);
        backend_host = gpu.host_bytes_per_particle * n;
    }
    r.host_needed = (generation_bytes + snapshot_bytes) * n + backend_host;
    r.host_available = host_memory_available();
    return r;
}

void require_fits(const PreflightReport& r, Backend backend) {
    const double n = r.particles.total();
    std::ostringstream about;
    about << "about " << format_count(n) << " particles (" << format_count(r.particles.fluid)
          << " fluid, " << format_count(r.particles.boundary) << " boundary)";
    if (n > static_cast<double>(std::numeric_limits<std::uint32_t>::max()))
        throw ResourceError("the case has " + about.str() +
                            ", more than the 4294967295 that 32-bit particle ids allow; "
                            "use a larger dp");
    if (!r.grid_problem.empty())
        throw ResourceError("the neighbour grid over the domain: " + r.grid_problem +
                            "; use a smaller <domain>, a larger dp or a larger binWidth");
    if (r.host_available > 0.0 && r.host_needed > r.host_available)
        throw ResourceError("the case does not fit in this machine's memory: " + about.str() +
                            " need about " + format_bytes(r.host_needed) + " of host memory, " +
                            format_bytes(r.host_available) +
                            " are available; use a larger dp or a machine with more memory");
    if (backend == Backend::cuda && r.device_available > 0.0 &&
        r.device_needed > r.device_available)
        throw ResourceError("the case does not fit on the GPU: " + about.str() + " need about " +
                            format_bytes(r.device_needed) + " of device memory, " +
                            format_bytes(r.device_available) +
                            " are free; use a larger dp, a binWidth closer to 1 (fewer bins), or "
                            "--backend cpu");
}

} // namespace sluice
