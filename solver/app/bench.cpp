#include "app/bench.h"

#include "app/cli_progress.h"
#include "app/preflight.h"
#include "io/gauge_rows.h"

#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/constants.h"
#include "case/gauge_plan.h"
#include "case/particles.h"
#include "io/async_output.h"
#include "io/checkpoint.h"
#include "io/csv_series.h"
#include "io/output.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
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
    double output_wait_ms = 0.0;     ///< per step: the stepping thread handing snapshots over
    std::size_t snapshots = 0;       ///< written during the timed steps
    double gauged_ms_per_step = 0.0; ///< --gauges: steps with gauges after every one
    /// CUDA: the share of the timed steps whose corrector read the predictor pass's neighbour
    /// lists (CorrectorNeighbours::lists).
    double corrector_list_share = 0.0;
    double interleaved_ms_per_step = 0.0; ///< --gauges: the plain steps between those
    double mparticle_steps = 0.0;
    double bytes_per_particle = 0.0;
    std::uint64_t final_particles = 0; ///< binned at the end (fluid + boundary)
    double max_dx_over_dp = 0.0;
    double max_drho_over_rho0 = 0.0;
    std::size_t particles_in_one_state = 0; ///< excluded in one of the two states only
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
/// Compares a module's final state with the reference module's, particle by particle (both
/// are in ascending id). From a developed flow (--end-time, --from-state) a splashing particle at
/// the domain's edge may leave it a step earlier or later after rounding-level differences: with
/// `developed`, particles in only one state are counted and reported, not a disagreement.
void compare(ModuleResult& r, const Snapshot& reference, double dp, double rho0, double tolerance,
             bool developed) {
    const Snapshot& s = r.final_state;
    double dx = 0.0, drho = 0.0;
    std::size_t only_one = 0;
    std::size_t i = 0, k = 0;
    while (i < s.size() || k < reference.size()) {
        if (k == reference.size() || (i < s.size() && s.id[i] < reference.id[k])) {
            ++only_one, ++i;
            continue;
        }
        if (i == s.size() || reference.id[k] < s.id[i]) {
            ++only_one, ++k;
            continue;
        }
        for (int a = 0; a < 3; ++a)
            dx = std::max<double>(dx, std::fabs(s.position[i][a] - reference.position[k][a]));
        drho = std::max<double>(drho, std::fabs(s.density[i] - reference.density[k]));
        if (!std::isfinite(s.position[i][0]) || !std::isfinite(s.density[i]))
            dx = HUGE_VAL;
        ++i, ++k;
    }
    r.max_dx_over_dp = dx / dp;
    r.max_drho_over_rho0 = drho / rho0;
    r.particles_in_one_state = only_one;
    if (only_one > 0 && !developed) {
        r.agrees = false;
        r.disagreement =
            "particles " + std::to_string(s.size()) + " vs " + std::to_string(reference.size());
    } else if (!(r.max_dx_over_dp <= tolerance)) {
        r.agrees = false;
        r.disagreement = "max |dx| = " + general(r.max_dx_over_dp) + " dp";
    }
}

} // namespace

std::vector<NeighbourModule> parse_module_list(std::string_view text) {
    const std::string all = trim(text);
    std::vector<NeighbourModule> modules;
    if (all == "all")
        return all_neighbour_modules();
    if (all == "reorder" || all == "index") {
        // The modules of one layout (a linked list is always indexed).
        const Layout layout = parse_layout(all);
        for (const NeighbourModule& m : all_neighbour_modules())
            if (m.layout == layout)
                modules.push_back(m);
        return modules;
    }
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = all.find(',', start);
        const std::string item = trim(std::string_view(all).substr(
            start, comma == std::string::npos ? std::string::npos : comma - start));
        if (item.empty())
            throw std::invalid_argument(
                "--modules expects 'all', 'reorder', 'index' or a comma-separated list of "
                "CONSTRUCTION/QUERY/WIDTH[/LAYOUT] (constructions: " +
                std::string(construction_names()) + "; queries: " + std::string(query_names()) +
                "; layouts: " + std::string(layout_names()) + "), got '" + std::string(text) + "'");
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
    BackendOptions backend(options.backend);
    backend.cuda = options.cuda;
    if (gpu)
        require_cuda_device(); // BackendUnavailable with the reason
    require_fits(preflight(c, options.backend), options.backend);

    if (options.end_time && options.from_state)
        throw std::invalid_argument("--end-time and --from-state both choose the starting state; "
                                    "give one");
    if (options.output)
        c.output = *options.output;

    const auto setup_start = std::chrono::steady_clock::now();
    const ParticleSet particles = generate_particles(c);
    // The state every module starts from: none = the initial particles.
    std::optional<SimulationState> start;
    std::string start_text = "the initial state";
    if (options.from_state) {
        const std::filesystem::path from = *options.from_state;
        std::vector<std::string> warnings;
        Checkpoint k = std::filesystem::is_directory(from)
                           ? read_latest_checkpoint(from, c.name, warnings)
                           : read_checkpoint(from);
        for (const std::string& w : warnings)
            out << "warning: " << w << "\n";
        if (k.state.dimension != c.dimension || std::abs(k.dp - c.dp) > 1e-12 * c.dp ||
            k.integrator != to_string(c.physics.integrator))
            throw std::invalid_argument("--from-state: " + k.source.string() +
                                        " is not a state of this case (dp, dimension and "
                                        "integrator must match)");
        start = in_id_order(std::move(k.state));
        start_text =
            "the checkpoint " + k.source.string() + " (t = " + general(start->time) + " s)";
    } else if (options.end_time) {
        out << "developing the flow to t = " << *options.end_time << " s with "
            << c.neighbours.name() << " (untimed)...\n"
            << std::flush;
        auto sim = make_simulation(c, particles, backend);
        ProgressReporter progress(*options.end_time);
        while (sim->time() < *options.end_time) {
            sim->step();
            progress.update(sim->time(), sim->steps());
        }
        progress.finish();
        // In id order: the order a module that keeps its particles' order (index layout) would
        // have them in after such a run, not the bin order the development run left.
        start = in_id_order(sim->save_state());
        start_text = "t = " + general(start->time) + " s (step " + std::to_string(start->steps) +
                     ", developed from t = 0)";
    }
    const double setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    const std::uint64_t n = particles.size();
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    const double h = particles.constants.h;

    std::unique_ptr<GaugePlan> gauge_plan;
    if (options.gauges) {
        if (c.gauges.gauges.empty())
            throw std::invalid_argument("--gauges: the case " + options.case_path +
                                        " has no <gauges> to sample");
        gauge_plan = std::make_unique<GaugePlan>(c, particles.constants.support);
    }

    // Snapshots during the timed steps, as `sluice run` writes them (and with --gauges the
    // gauge rows).
    std::filesystem::path output_dir;
    bool remove_output = false;
    if (options.output_interval || options.gauges) {
        if (options.output_dir) {
            output_dir = *options.output_dir;
        } else {
            output_dir =
                std::filesystem::temp_directory_path() /
                ("sluice_bench_" + c.name + "_" +
                 std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
            remove_output = true;
        }
    }
    struct RemoveOutput {
        const std::filesystem::path& dir;
        bool remove;
        ~RemoveOutput() {
            std::error_code ec;
            if (remove)
                std::filesystem::remove_all(dir, ec);
        }
    } remove_output_at_end{output_dir, remove_output};

    out << "sluice bench: " << c.name << " (" << c.dimension << "D), dp = " << c.dp
        << " m, h = " << fixed(h / c.dp, 3) << " dp, " << n << " particles ("
        << particles.fluid_count << " fluid, " << particles.boundary_count << " boundary), "
        << to_string(c.physics.integrator) << " ("
        << (symplectic ? "2 interaction passes per step; the reorder layout's corrector reuses the "
                         "predictor's neighbour structure"
                       : "1 construction and 1 pass per step")
        << (symplectic && gpu && options.cuda.corrector == CorrectorNeighbours::rebuild
                ? " (here: rebuilt)"
            : symplectic && gpu && options.cuda.corrector == CorrectorNeighbours::lists
                ? "; CUDA, a traversal in bin order: the corrector reads the neighbours the "
                  "predictor's pass listed"
                : "")
        << "), " << to_string(c.physics.kernel) << " kernel\n"
        << "backend: " << (gpu ? "cuda, " + cuda_device_name() : std::string("cpu"))
        << "; each module: " << options.warmup_steps << " warm-up + " << options.steps
        << " timed steps from " << start_text << " (set up in " << fixed(setup_seconds, 1)
        << " s)\n";
    if (options.output_interval)
        out << "output during the timed steps: a snapshot every " << *options.output_interval
            << " s of simulated time (" << to_string(c.output.format.compressor)
            << ", fields: " << fields_to_string(c.output.format) << ", boundary "
            << (c.output.boundary_only_first ? "in the first only" : "in every snapshot") << ", "
            << (c.output.writers ? c.output.writers : default_writer_count())
            << " writer thread(s)) to " << output_dir.string()
            << (remove_output ? " (removed afterwards)" : "") << "\n";
    out << "\n" << std::flush;

    std::vector<ModuleResult> results;
    for (const NeighbourModule& module : modules) {
        Case mc = c;
        mc.neighbours = module;
        std::unique_ptr<Simulation> sim =
            start ? make_simulation(mc, backend, *start) : make_simulation(mc, particles, backend);
        for (int k = 0; k < options.warmup_steps; ++k)
            sim->step();
        if (options.output_interval)
            sim->begin_snapshot().get(); // sets up the copy slots, as a run's first snapshot does

        // Output as `sluice run` does it: a series per module, written by the writer pool.
        std::unique_ptr<SnapshotSeriesWriter> series;
        std::unique_ptr<BackgroundSnapshotWriter> writer;
        if (options.output_interval) {
            series = std::make_unique<SnapshotSeriesWriter>(output_dir, mc.name);
            series->set_format(mc.output.format, mc.output.boundary_only_first);
            BackgroundSnapshotWriter::Settings settings;
            settings.writers = mc.output.writers ? mc.output.writers : default_writer_count();
            SnapshotSeriesWriter* target = series.get();
            writer = std::make_unique<BackgroundSnapshotWriter>(
                [target](const Snapshot& s, std::size_t index) { target->write(index, s); },
                settings);
        }
        double output_wait = 0.0;
        auto next_output = [&] {
            return (std::floor(sim->time() / *options.output_interval + 1e-6) + 1.0) *
                   *options.output_interval;
        };
        double output_time = options.output_interval ? next_output() : 0.0;

        const StageTimes before = sim->stage_times();
        const std::uint64_t listed_before = sim->counters().corrector_list_steps;
        const auto start_clock = std::chrono::steady_clock::now();
        for (int k = 0; k < options.steps; ++k) {
            sim->step();
            if (writer && sim->time() + 1e-6 * *options.output_interval >= output_time) {
                const auto t0 = std::chrono::steady_clock::now();
                std::future<Snapshot> snapshot = sim->begin_snapshot();
                writer->submit(std::move(snapshot), series->reserve());
                output_wait +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                output_time = next_output();
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_clock).count();
        const StageTimes after = sim->stage_times();

        ModuleResult r;
        r.module = module;
        r.output_wait_ms = 1e3 * output_wait / options.steps;
        r.corrector_list_share =
            static_cast<double>(sim->counters().corrector_list_steps - listed_before) /
            options.steps;
        if (writer) {
            writer->flush(); // after the clock: the pool's backlog is not the step's
            r.snapshots = series->count();
        }
        if (gauge_plan) {
            // Twice the steps again, in alternating blocks: without gauges, then with the gauges
            // sampled after every step as a run does. Both kinds of block see the same flow
            // (the step's cost drifts as it develops), so their ratio is the gauges' cost.
            std::vector<std::string> names;
            for (const GaugeColumn& col : gauge_plan->columns())
                names.push_back(col.name);
            std::filesystem::create_directories(output_dir);
            CsvSeries csv(output_dir / ("gauges_" + std::to_string(results.size()) + ".csv"),
                          {"sluice bench: " + module.name()}, names);
            GaugeRowWriter rows(gauge_plan->evaluator(), csv);
            const int block = std::max(1, std::min(10, options.steps / 2));
            double plain_seconds = 0.0, gauged_seconds = 0.0;
            int plain_steps = 0, gauged_steps = 0;
            for (int k = 0; k < 2 * options.steps; k += block) {
                const bool gauged = (k / block) % 2 == 1;
                const int count = std::min(block, 2 * options.steps - k);
                const auto block_start = std::chrono::steady_clock::now();
                for (int j = 0; j < count; ++j) {
                    sim->step();
                    if (gauged)
                        rows.submit(sim->time(), sim->begin_gauges(gauge_plan->request()));
                }
                const double block_seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - block_start)
                        .count();
                (gauged ? gauged_seconds : plain_seconds) += block_seconds;
                (gauged ? gauged_steps : plain_steps) += count;
            }
            r.gauged_ms_per_step = 1e3 * gauged_seconds / std::max(1, gauged_steps);
            r.interleaved_ms_per_step = 1e3 * plain_seconds / std::max(1, plain_steps);
            rows.flush();
        }
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
            gpu ? static_cast<double>(sim->counters().device_bytes) / static_cast<double>(n)
                : static_cast<double>(estimate_cpu_memory(mc, n).bytes_per_particle);
        const ParticleCounts counts = sim->counts();
        r.final_particles = counts.fluid + counts.boundary;
        r.final_state = sim->snapshot();
        results.push_back(std::move(r));
        sim.reset();
    }

    bool all_agree = true;
    for (ModuleResult& r : results) {
        compare(r, results.front().final_state, c.dp, c.constants.rho0, options.tolerance,
                start.has_value());
        all_agree = all_agree && r.agrees;
    }

    const bool with_output = options.output_interval.has_value();
    const bool with_gauges = options.gauges;
    out << "| module | ms/step | construction | reorder | interaction | integration | rest | "
        << (with_output ? "output wait | snapshots | " : "")
        << (with_gauges ? "ms/step without / with gauges | | gauge cost | " : "")
        << "neighbour share | M particle-steps/s | bytes/particle | max dx/dp | max drho/rho0 |\n"
        << "|---|---:|---:|---:|---:|---:|---:|" << (with_output ? "---:|---:|" : "")
        << (with_gauges ? "---:|---:|---:|" : "") << "---:|---:|---:|---:|---:|\n";
    for (const ModuleResult& r : results) {
        const double share = (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step;
        out << "| " << r.module.name() << " | " << fixed(r.ms_per_step, 3) << " | "
            << fixed(r.stage_ms[0], 3) << " | " << fixed(r.stage_ms[1], 3) << " | "
            << fixed(r.stage_ms[2], 3) << " | " << fixed(r.stage_ms[3], 3) << " | "
            << fixed(r.rest_ms, 3) << " | ";
        if (with_output)
            out << fixed(r.output_wait_ms, 3) << " | " << r.snapshots << " | ";
        if (with_gauges)
            out << fixed(r.interleaved_ms_per_step, 3) << " | " << fixed(r.gauged_ms_per_step, 3)
                << " | "
                << fixed(100.0 * (r.gauged_ms_per_step / r.interleaved_ms_per_step - 1.0), 2)
                << " % | ";
        out << fixed(100.0 * share, 1) << " % | " << fixed(r.mparticle_steps, 1) << " | "
            << fixed(r.bytes_per_particle, 0) << " | " << general(r.max_dx_over_dp) << " | "
            << general(r.max_drho_over_rho0)
            << (r.agrees ? "" : " (DIFFERS: " + r.disagreement + ")")
            << (r.agrees && r.particles_in_one_state
                    ? " (" + std::to_string(r.particles_in_one_state) +
                          " particle(s) excluded at a different step)"
                    : "")
            << " |\n";
    }
    const auto fastest = std::min_element(
        results.begin(), results.end(),
        [](const ModuleResult& a, const ModuleResult& b) { return a.ms_per_step < b.ms_per_step; });
    out << "\nms per step: wall time of the timed steps over their number; the stages are "
        << (gpu ? "CUDA-event" : "stage-clock")
        << " times per step (interaction includes the neighbour queries), rest = ms/step − "
           "the four stages (dt, checks, the per-step host synchronisation"
        << (with_output ? ", the output wait: the stepping thread starting snapshot copies and "
                          "waiting for a free copy slot or writer"
                        : "")
        << ")"
        << (with_gauges
                ? ". With gauges: the case's " + std::to_string(c.gauges.gauges.size()) +
                      " gauge(s) (" + std::to_string(gauge_plan->request().points.size()) +
                      " query points, " + std::to_string(gauge_plan->request().fronts.size()) +
                      " front(s)) timed over twice the steps again, in alternating "
                      "blocks (of 10 steps, fewer for short runs) without and with the "
                      "gauges sampled after every "
                      "step; gauge cost = with / without, less 1"
                : std::string())
        << ". Neighbour share = "
           "(construction + reorder) / ms per step. Final states compared with "
        << results.front().module.name() << " after "
        << options.warmup_steps + options.steps * (with_gauges ? 3 : 1)
        << " steps: " << (all_agree ? "all agree" : "SOME DIFFER")
        << " (tolerance: max |dx| <= " << options.tolerance << " dp over the particles in both, "
        << (start ? "which from a developed flow may differ by splashing particles excluded a "
                    "step apart"
                  : "equal particle counts")
        << ").\n";
    if (gpu && symplectic && options.cuda.corrector == CorrectorNeighbours::lists) {
        out << "Timed steps whose corrector read the predictor pass's neighbour lists:";
        for (const ModuleResult& r : results)
            out << ' ' << r.module.name() << ' ' << fixed(100.0 * r.corrector_list_share, 0) << " %"
                << (&r == &results.back() ? "" : ",");
        out << ".\n";
    }
    out << "fastest: " << fastest->module.name() << ", " << fixed(fastest->ms_per_step, 3)
        << " ms per step = " << fixed(fastest->mparticle_steps, 1)
        << " million particle-steps per second\n";

    const std::string csv_path =
        options.csv_path.empty() ? "bench_" + c.name + ".csv" : options.csv_path;
    std::ofstream csv(csv_path);
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + csv_path);
    csv << "case,dimension,particles,fluid,boundary,dp_m,h_over_dp,integrator,backend,device,"
           "steps,module,construction,query,bin_width,layout,ms_per_step,construction_ms,reorder_"
           "ms,"
           "interaction_ms,integration_ms,rest_ms,neighbour_share,mparticle_steps_per_s,"
           "bytes_per_particle,final_particles,max_dx_over_dp,max_drho_over_rho0,agrees,"
           "start_time_s,output_interval_s,output_wait_ms,snapshots,interleaved_ms_per_step,"
           "gauged_ms_per_step,corrector_list_share\n";
    csv << std::setprecision(9);
    for (const ModuleResult& r : results) {
        csv << c.name << ',' << c.dimension << ',' << n << ',' << particles.fluid_count << ','
            << particles.boundary_count << ',' << c.dp << ',' << h / c.dp << ','
            << to_string(c.physics.integrator) << ',' << (gpu ? "cuda" : "cpu") << ",\""
            << (gpu ? cuda_device_name() : std::string("cpu")) << "\"," << options.steps << ','
            << r.module.name() << ',' << construction_name(r.module.construction) << ','
            << query_name(r.module.query) << ',' << r.module.bin_width << ','
            << layout_name(r.module.layout) << ',' << r.ms_per_step << ',' << r.stage_ms[0] << ','
            << r.stage_ms[1] << ',' << r.stage_ms[2] << ',' << r.stage_ms[3] << ',' << r.rest_ms
            << ',' << (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step << ',' << r.mparticle_steps
            << ',' << r.bytes_per_particle << ',' << r.final_particles << ',' << r.max_dx_over_dp
            << ',' << r.max_drho_over_rho0 << ',' << (r.agrees ? 1 : 0) << ','
            << (start ? start->time : 0.0) << ','
            << (options.output_interval ? *options.output_interval : 0.0) << ',' << r.output_wait_ms
            << ',' << r.snapshots << ',' << r.interleaved_ms_per_step << ',' << r.gauged_ms_per_step
            << ',' << r.corrector_list_share << '\n';
    }
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + csv_path);
    out << "CSV: " << csv_path << "\n";
    return all_agree ? 0 : 1;
}

} // namespace sluice
