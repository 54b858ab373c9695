// `sluice check CASE.xml`: validates a case and prints what a run would use.

#include "app/command_line.h"

#include "app/preflight.h"

#include "backends/backend_common.h"
#include "backends/cpu/cpu_backend.h"
#include "case/particles.h"
#include "io/async_output.h"
#include "neighbours/grid.h"

#include <iostream>
#include <sstream>
#include <string>

namespace sluice {

namespace {

/// The pre-flight line: particles and memory estimated from the geometry against what the
/// machine has.
void print_preflight(std::ostream& out, const PreflightReport& r, Backend backend) {
    out << "  pre-flight      about " << format_count(r.particles.total()) << " particles ("
        << format_count(r.particles.fluid) << " fluid, " << format_count(r.particles.boundary)
        << " boundary) from the geometry; host memory " << format_bytes(r.host_needed) << " of "
        << (r.host_available > 0 ? format_bytes(r.host_available) : std::string("unknown"))
        << " available";
    if (backend == Backend::cuda)
        out << "; GPU memory " << format_bytes(r.device_needed) << " of "
            << (r.device_available > 0 ? format_bytes(r.device_available) + " free"
                                       : std::string("? (no GPU visible)"));
    out << "\n";
}

/// "nx × nz" or "nx × ny × nz": the bins of the grid over the case's domain.
std::string grid_dims_text(const Case& c, double support) {
    auto text = [](const auto& grid, int d) {
        std::ostringstream s;
        for (int k = 0; k < d; ++k)
            s << (k ? " x " : "") << grid.dims[k];
        return s.str();
    };
    const float radius = static_cast<float>(support);
    if (c.dimension == 2)
        return text(make_grid<2>(to_vec<2>(c.domain.min), to_vec<2>(c.domain.max), radius,
                                 c.neighbours.bin_width),
                    2);
    return text(make_grid<3>(to_vec<3>(c.domain.min), to_vec<3>(c.domain.max), radius,
                             c.neighbours.bin_width),
                3);
}

} // namespace

int check_command(const Options& o) {
    const Case c = load_case(o);
    std::cout << o.case_path << ": valid\n"
              << "  case            " << c.name << " (" << c.dimension << "D)\n";
    const PreflightReport preflight_report = preflight(c, o.backend);
    print_preflight(std::cout, preflight_report, o.backend);
    std::cout.flush();
    require_fits(preflight_report, o.backend);
    const ParticleSet particles = generate_particles(c);
    const DerivedConstants& k = particles.constants;
    std::cout << "  particles       " << particles.size() << " (" << particles.fluid_count
              << " fluid, " << particles.boundary_count << " boundary)\n"
              << "  dp              " << c.dp << " m\n"
              << "  h               " << k.h << " m (support 2h = " << k.support << " m)\n"
              << "  c0              " << k.speed_of_sound << " m/s\n"
              << "  initial dt      " << k.initial_dt << " s\n";
    const MemoryEstimate memory = estimate_cpu_memory(c, particles.size());
    std::cout << "  neighbours      " << c.neighbours.name() << ", grid "
              << grid_dims_text(c, k.support) << " = " << memory.bins << " bins of "
              << c.neighbours.bin_width * k.support << " m"
              << (c.neighbours_auto ? " (auto: run times every module first and takes the fastest)"
                                    : "")
              << "\n"
              << "  memory (est.)   " << format_bytes(static_cast<double>(memory.total())) << " ("
              << memory.bytes_per_particle << " B per particle + "
              << format_bytes(static_cast<double>(memory.grid_bytes))
              << " grid) on the CPU backend\n"
              << "  run             end time " << c.run.end_time << " s, output every "
              << c.run.output_interval << " s to " << c.run.output_dir << "\n"
              << "  snapshots       " << to_string(c.output.format.compressor)
              << (c.output.format.level ? " level " + std::to_string(c.output.format.level) : "")
              << ", fields: id type " << fields_to_string(c.output.format) << ", walls "
              << (c.output.boundary_only_first ? "in the first only" : "in every snapshot") << ", "
              << (c.output.writers ? c.output.writers : default_writer_count())
              << " writer thread(s)\n";
    return exit_ok;
}

} // namespace sluice
