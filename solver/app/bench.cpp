#include "app/bench.h"

#include "app/preflight.h"

#include "backends/cpu/cpu_backend.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/constants.h"
#include "case/particles.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace sluice {

namespace {

std::string trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return "";
    const auto last = s.find_last_not_of(" \t");
    return std::string(s.substr(first, last - first + 1));
}

struct ModuleResult {
    NeighbourModule module;
    double ms_per_step = 0.0;
    double stage_ms[4] = {}; ///< construction, reorder, interaction, integration
    double rest_ms = 0.0;
    double mparticle_steps = 0.0;
    double bytes_per_particle = 0.0;
    std::uint64_t final_particles = 0; ///< binned at the end (fluid + boundary)
    double max_dx_over_dp = 0.0;
    double max_drho_over_rho0 = 0.0;
    bool agrees = true;
    std::string disagreement;
    Snapshot final_state;
};

double stage_seconds(const StageTimes& times, const std::string& name) {
    for (const auto& [stage, seconds] : times)
        if (stage == name)
            return seconds;
    return 0.0;
}

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

std::string general(double v) {
    std::ostringstream s;
    s << std::setprecision(3) << v;
    return s.str();
}

/// Compares a module's final state with the reference module's.
void compare(ModuleResult& r, const Snapshot& reference, double dp, double rho0, double tolerance) {
    const Snapshot& s = r.final_state;
    if (s.size() != reference.size() || s.id != reference.id) {
        r.agrees = false;
        r.disagreement =
            "particles " + std::to_string(s.size()) + " vs " + std::to_string(reference.size());
        r.max_dx_over_dp = r.max_drho_over_rho0 = HUGE_VAL;
        return;
    }
    double dx = 0.0, drho = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (int k = 0; k < 3; ++k)
            dx = std::max<double>(dx, std::fabs(s.position[i][k] - reference.position[i][k]));
        drho = std::max<double>(drho, std::fabs(s.density[i] - reference.density[i]));
        if (!std::isfinite(s.position[i][0]) || !std::isfinite(s.density[i]))
            dx = HUGE_VAL;
    }
    r.max_dx_over_dp = dx / dp;
    r.max_drho_over_rho0 = drho / rho0;
    if (!(r.max_dx_over_dp <= tolerance)) {
        r.agrees = false;
        r.disagreement = "max |dx| = " + general(r.max_dx_over_dp) + " dp";
    }
}

} // namespace

std::vector<NeighbourModule> parse_module_list(std::string_view text) {
    const std::string all = trim(text);
    std::vector<NeighbourModule> modules;
    if (all == "all") {
        for (Construction c : {Construction::counting_sort, Construction::radix_sort})
            for (const QueryTag& q : {QueryTag(StripsQuery{}), QueryTag(MooreQuery{})})
                for (float w : {1.0f, 0.5f, 1.0f / 3.0f})
                    modules.push_back({c, q, w});
        return modules;
    }
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = all.find(',', start);
        const std::string item = trim(std::string_view(all).substr(
            start, comma == std::string::npos ? std::string::npos : comma - start));
        if (item.empty())
            throw std::invalid_argument(
                "--modules expects 'all' or a comma-separated list of CONSTRUCTION/QUERY/WIDTH "
                "(constructions: " +
                std::string(construction_names()) + "; queries: " + std::string(query_names()) +
                "), got '" + std::string(text) + "'");
        modules.push_back(parse_neighbour_module(item));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return modules;
}

int run_bench(const BenchOptions& options, std::ostream& out) {
    if (options.steps < 1)
        throw std::invalid_argument("--steps expects a positive number of steps, got " +
                                    std::to_string(options.steps));
    if (options.warmup_steps < 0)
        throw std::invalid_argument("warm-up steps must not be negative");
    const std::vector<NeighbourModule> modules = parse_module_list(options.modules);
    Case c = read_case(options.case_path);
    if (options.dp)
        apply_dp_override(c, *options.dp);
    const bool gpu = options.backend == Backend::cuda;
    if (gpu)
        require_cuda_device(); // BackendUnavailable with the reason
    require_fits(preflight(c, options.backend), options.backend);

    const auto setup_start = std::chrono::steady_clock::now();
    const ParticleSet particles = generate_particles(c);
    const double setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    const std::uint64_t n = particles.size();
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    const double h = particles.constants.h;

    out << "sluice bench: " << c.name << " (" << c.dimension << "D), dp = " << c.dp
        << " m, h = " << fixed(h / c.dp, 3) << " dp, " << n << " particles ("
        << particles.fluid_count << " fluid, " << particles.boundary_count << " boundary), "
        << to_string(c.physics.integrator) << " ("
        << (symplectic ? "2 constructions and 2 interaction passes" : "1 construction and 1 pass")
        << " per step), " << to_string(c.physics.kernel) << " kernel\n"
        << "backend: " << (gpu ? "cuda, " + cuda_device_name() : std::string("cpu"))
        << "; each module: " << options.warmup_steps << " warm-up + " << options.steps
        << " timed steps from the same initial state (generated in " << fixed(setup_seconds, 1)
        << " s)\n\n"
        << std::flush;

    std::vector<ModuleResult> results;
    for (const NeighbourModule& module : modules) {
        Case mc = c;
        mc.neighbours = module;
        std::unique_ptr<Simulation> sim;
        GpuSimulation* gpu_sim = nullptr;
        if (gpu) {
            auto g = make_cuda_simulation(mc, particles, options.cuda);
            gpu_sim = g.get();
            sim = std::move(g);
        } else {
            sim = make_simulation(mc, Backend::cpu);
        }
        for (int k = 0; k < options.warmup_steps; ++k)
            sim->step();
        const StageTimes before = sim->stage_times();
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < options.steps; ++k)
            sim->step();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const StageTimes after = sim->stage_times();

        ModuleResult r;
        r.module = module;
        r.ms_per_step = 1e3 * seconds / options.steps;
        const char* const names[4] = {"construction", "reorder", "interaction", "integration"};
        double staged = 0.0;
        for (int s = 0; s < 4; ++s) {
            r.stage_ms[s] = 1e3 *
                            (stage_seconds(after, names[s]) - stage_seconds(before, names[s])) /
                            options.steps;
            staged += r.stage_ms[s];
        }
        r.rest_ms = std::max(0.0, r.ms_per_step - staged);
        r.mparticle_steps = static_cast<double>(n) * options.steps / seconds / 1e6;
        r.bytes_per_particle =
            gpu_sim ? static_cast<double>(gpu_sim->device_bytes()) / static_cast<double>(n)
                    : static_cast<double>(estimate_cpu_memory(mc, n).bytes_per_particle);
        const ParticleCounts counts = sim->counts();
        r.final_particles = counts.fluid + counts.boundary;
        r.final_state = sim->snapshot();
        results.push_back(std::move(r));
        sim.reset();
    }

    bool all_agree = true;
    for (ModuleResult& r : results) {
        compare(r, results.front().final_state, c.dp, c.constants.rho0, options.tolerance);
        all_agree = all_agree && r.agrees;
    }

    out << "| module | ms/step | construction | reorder | interaction | integration | rest | "
           "neighbour share | M particle-steps/s | bytes/particle | max dx/dp | max drho/rho0 |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const ModuleResult& r : results) {
        const double share = (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step;
        out << "| " << r.module.name() << " | " << fixed(r.ms_per_step, 3) << " | "
            << fixed(r.stage_ms[0], 3) << " | " << fixed(r.stage_ms[1], 3) << " | "
            << fixed(r.stage_ms[2], 3) << " | " << fixed(r.stage_ms[3], 3) << " | "
            << fixed(r.rest_ms, 3) << " | " << fixed(100.0 * share, 1) << " % | "
            << fixed(r.mparticle_steps, 1) << " | " << fixed(r.bytes_per_particle, 0) << " | "
            << general(r.max_dx_over_dp) << " | " << general(r.max_drho_over_rho0)
            << (r.agrees ? "" : " (DIFFERS: " + r.disagreement + ")") << " |\n";
    }
    const auto fastest = std::min_element(
        results.begin(), results.end(),
        [](const ModuleResult& a, const ModuleResult& b) { return a.ms_per_step < b.ms_per_step; });
    out << "\nms per step: wall time of the timed steps over their number; the stages are "
        << (gpu ? "CUDA-event" : "stage-clock")
        << " times per step (interaction includes the neighbour queries), rest = ms/step − "
           "the four stages (dt, checks, the per-step host synchronisation). Neighbour share = "
           "(construction + reorder) / ms per step. Final states compared with "
        << results.front().module.name() << " after " << options.warmup_steps + options.steps
        << " steps: " << (all_agree ? "all agree" : "SOME DIFFER")
        << " (tolerance: max |dx| <= " << options.tolerance << " dp, equal particle counts).\n"
        << "fastest: " << fastest->module.name() << ", " << fixed(fastest->ms_per_step, 3)
        << " ms per step = " << fixed(fastest->mparticle_steps, 1)
        << " million particle-steps per second\n";

    const std::string csv_path =
        options.csv_path.empty() ? "bench_" + c.name + ".csv" : options.csv_path;
    std::ofstream csv(csv_path);
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + csv_path);
    csv << "case,dimension,particles,fluid,boundary,dp_m,h_over_dp,integrator,backend,device,"
           "steps,module,construction,query,bin_width,ms_per_step,construction_ms,reorder_ms,"
           "interaction_ms,integration_ms,rest_ms,neighbour_share,mparticle_steps_per_s,"
           "bytes_per_particle,final_particles,max_dx_over_dp,max_drho_over_rho0,agrees\n";
    csv << std::setprecision(9);
    for (const ModuleResult& r : results) {
        csv << c.name << ',' << c.dimension << ',' << n << ',' << particles.fluid_count << ','
            << particles.boundary_count << ',' << c.dp << ',' << h / c.dp << ','
            << to_string(c.physics.integrator) << ',' << (gpu ? "cuda" : "cpu") << ",\""
            << (gpu ? cuda_device_name() : std::string("cpu")) << "\"," << options.steps << ','
            << r.module.name() << ',' << construction_name(r.module.construction) << ','
            << query_name(r.module.query) << ',' << r.module.bin_width << ',' << r.ms_per_step
            << ',' << r.stage_ms[0] << ',' << r.stage_ms[1] << ',' << r.stage_ms[2] << ','
            << r.stage_ms[3] << ',' << r.rest_ms << ','
            << (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step << ',' << r.mparticle_steps << ','
            << r.bytes_per_particle << ',' << r.final_particles << ',' << r.max_dx_over_dp << ','
            << r.max_drho_over_rho0 << ',' << (r.agrees ? 1 : 0) << '\n';
    }
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + csv_path);
    out << "CSV: " << csv_path << "\n";
    return all_agree ? 0 : 1;
}

} // namespace sluice
