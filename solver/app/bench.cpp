#include "app/bench.h"

#include "app/bench_report.h"
#include "app/cli_progress.h"
#include "app/preflight.h"
#include "app/step_loop.h"
#include "io/gauge_rows.h"

#include "case/case_reader.h"
#include "case/constants.h"
#include "case/gauge_plan.h"
#include "case/particles.h"
#include "io/async_output.h"
#include "io/checkpoint.h"
#include "io/csv_series.h"
#include "io/output.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <ostream>
#include <stdexcept>

namespace sluice {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return "";
    const auto last = s.find_last_not_of(" \t");
    return std::string(s.substr(first, last - first + 1));
}

double stage_seconds(const StageTimes& times, const std::string& name) {
    for (const auto& [stage, seconds] : times)
        if (stage == name)
            return seconds;
    return 0.0;
}

/// The state every module starts from (none: the initial particles) and how the header says it.
struct BenchStart {
    std::optional<SimulationState> state;
    std::string text = "the initial state";
};

/// --from-state (read_bench_state).
BenchStart read_start(const Case& c, const std::string& from, std::ostream& out) {
    std::vector<std::string> warnings;
    Checkpoint k = read_bench_state(c, from, warnings);
    for (const std::string& w : warnings)
        out << "warning: " << w << "\n";
    BenchStart start;
    start.state = in_id_order(std::move(k.state));
    start.text =
        "the checkpoint " + k.source.string() + " (t = " + bench_general(start.state->time) + " s)";
    return start;
}

/// --end-time: the case run with its own module to exactly end_time (untimed; not within the
/// 1e-12 slack `sluice run` stops at).
BenchStart develop(const Case& c, const ParticleSet& particles, const BackendOptions& backend,
                   double end_time, std::ostream& out) {
    out << "developing the flow to t = " << end_time << " s with " << c.neighbours.name()
        << " (untimed)...\n"
        << std::flush;
    auto sim = make_simulation(c, particles, backend);
    ProgressReporter progress(end_time);
    StepLoop loop(*sim);
    loop.progress(progress);
    loop.advance_to(end_time);
    progress.finish();
    // In id order: the order a module that keeps its particles' order (index layout) would
    // have them in after such a run, not the bin order the development run left.
    BenchStart start;
    start.state = in_id_order(sim->save_state());
    start.text = "t = " + bench_general(start.state->time) + " s (step " +
                 std::to_string(start.state->steps) + ", developed from t = 0)";
    return start;
}

/// Where the timed steps' snapshots (and with --gauges the gauge rows) go: --output-dir, kept,
/// or a temporary folder, removed when this goes (also when the benchmark throws).
class BenchOutputDir {
public:
    BenchOutputDir(const std::string& case_name, const BenchOptions& options) {
        if (!options.output_interval && !options.gauges)
            return;
        if (options.output_dir) {
            path_ = *options.output_dir;
            return;
        }
        path_ = std::filesystem::temp_directory_path() /
                ("sluice_bench_" + case_name + "_" +
                 std::to_string(Clock::now().time_since_epoch().count()));
        remove_ = true;
    }
    ~BenchOutputDir() {
        std::error_code ec;
        if (remove_)
            std::filesystem::remove_all(path_, ec);
    }
    BenchOutputDir(const BenchOutputDir&) = delete;
    BenchOutputDir& operator=(const BenchOutputDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    bool removed_afterwards() const { return remove_; }

private:
    std::filesystem::path path_;
    bool remove_ = false;
};

void print_header(std::ostream& out, const BenchSetting& s, const std::string& start_text,
                  double setup_seconds, const BenchOutputDir& output) {
    const Case& c = s.c;
    const BenchOptions& options = s.options;
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    out << "sluice bench: " << c.name << " (" << c.dimension << "D), dp = " << c.dp
        << " m, h = " << bench_fixed(s.h / c.dp, 3) << " dp, " << s.particles << " particles ("
        << s.fluid << " fluid, " << s.boundary << " boundary), " << to_string(c.physics.integrator)
        << " ("
        << (symplectic ? "2 interaction passes per step; the reorder layout's corrector reuses the "
                         "predictor's neighbour structure"
                       : "1 construction and 1 pass per step")
        << (symplectic && s.gpu && options.cuda.corrector == CorrectorNeighbours::rebuild
                ? " (here: rebuilt)"
            : symplectic && s.gpu && options.cuda.corrector == CorrectorNeighbours::lists &&
                    options.cuda.list_skin > 0.0f
                ? "; CUDA, a traversal in bin order: the build pass lists the neighbours "
                  "within R + " +
                      bench_fixed(options.cuda.list_skin, 2) +
                      " R, and both passes read the lists until a step could use up that skin "
                      "(at most " +
                      std::to_string(options.cuda.list_max_age) + " steps per build)"
            : symplectic && s.gpu && options.cuda.corrector == CorrectorNeighbours::lists
                ? std::string("; CUDA, a traversal in bin order: the corrector reads the "
                              "neighbours the predictor's pass listed")
                : std::string())
        << "), " << to_string(c.physics.kernel) << " kernel, " << to_string(c.physics.boundary)
        << " walls" << (c.physics.shifting == ShiftingKind::fickian ? ", fickian shifting" : "")
        << "\n"
        << "backend: " << (s.gpu ? "cuda, " + cuda_device_name() : std::string("cpu"))
        << "; each module: " << options.warmup_steps << " warm-up + " << options.steps
        << " timed steps from " << start_text << " (set up in " << bench_fixed(setup_seconds, 1)
        << " s)\n";
    if (options.output_interval)
        out << "output during the timed steps: a snapshot every " << *options.output_interval
            << " s of simulated time (" << to_string(c.output.format.compressor)
            << ", fields: " << fields_to_string(c.output.format) << ", boundary "
            << (c.output.boundary_only_first ? "in the first only" : "in every snapshot") << ", "
            << (c.output.writers ? c.output.writers : default_writer_count())
            << " writer thread(s)) to " << output.path().string()
            << (output.removed_afterwards() ? " (removed afterwards)" : "") << "\n";
    out << "\n" << std::flush;
}

/// What every module's timing shares.
struct BenchInputs {
    const BenchOptions& options;
    const BackendOptions& backend;
    const ParticleSet& particles;
    const std::optional<SimulationState>& start;
    const std::filesystem::path& output_dir;
    const GaugePlan* gauges; ///< --gauges, else null
    const BenchSetting& setting;
};

/// The timed steps of one module (mc its case): wall and stage times per step, and with
/// --output-interval snapshots as `sluice run` writes them (a series per module, the writer
/// pool), the stepping thread's wait for them counted in the step.
void time_steps(Simulation& sim, const Case& mc, const BenchInputs& in, BenchModuleResult& r) {
    const BenchOptions& options = in.options;
    StepLoop loop(sim);
    std::unique_ptr<SnapshotSeriesWriter> series;
    std::unique_ptr<BackgroundSnapshotWriter> writer;
    double output_wait = 0.0;
    if (options.output_interval) {
        series = std::make_unique<SnapshotSeriesWriter>(in.output_dir, mc.name);
        series->set_format(mc.output.format, mc.output.boundary_only_first);
        BackgroundSnapshotWriter::Settings settings;
        settings.writers = mc.output.writers ? mc.output.writers : default_writer_count();
        SnapshotSeriesWriter* target = series.get();
        writer = std::make_unique<BackgroundSnapshotWriter>(
            [target](const Snapshot& s, std::size_t index) { target->write(index, s); }, settings);
        const double interval = *options.output_interval;
        const auto next = static_cast<std::uint64_t>(std::floor(sim.time() / interval + 1e-6)) + 1;
        loop.snapshots(Cadence::multiples(interval, next), [&] {
            const auto t0 = Clock::now();
            std::future<Snapshot> snapshot = sim.begin_snapshot();
            writer->submit(std::move(snapshot), series->reserve());
            output_wait += seconds_since(t0);
        });
    }

    const StageTimes before = sim.stage_times();
    const std::uint64_t listed_before = sim.counters().corrector_list_steps;
    const std::uint64_t kept_before = sim.counters().kept_list_steps;
    const auto start_clock = Clock::now();
    loop.advance_steps(static_cast<std::uint64_t>(options.steps));
    const double seconds = seconds_since(start_clock);
    const StageTimes after = sim.stage_times();

    r.output_wait_ms = 1e3 * output_wait / options.steps;
    r.corrector_list_share =
        static_cast<double>(sim.counters().corrector_list_steps - listed_before) / options.steps;
    r.kept_list_share =
        static_cast<double>(sim.counters().kept_list_steps - kept_before) / options.steps;
    if (writer) {
        writer->flush(); // after the clock: the pool's backlog is not the step's
        r.snapshots = series->count();
    }
    r.ms_per_step = 1e3 * seconds / options.steps;
    const char* const names[4] = {"construction", "reorder", "interaction", "integration"};
    double staged = 0.0;
    for (int s = 0; s < 4; ++s) {
        r.stage_ms[s] = 1e3 * (stage_seconds(after, names[s]) - stage_seconds(before, names[s])) /
                        options.steps;
        staged += r.stage_ms[s];
    }
    r.rest_ms = std::max(0.0, r.ms_per_step - staged);
    r.mparticle_steps = static_cast<double>(in.setting.particles) * options.steps / seconds / 1e6;
}

/// --gauges: twice the steps again, in alternating blocks: without gauges, then with the gauges
/// sampled after every step as a run does (rows to output_dir/gauges_<index>.csv). Both kinds
/// of block see the same flow (the step's cost drifts as it develops), so their ratio is the
/// gauges' cost.
void time_gauges(Simulation& sim, const GaugePlan& plan, std::size_t index, const BenchInputs& in,
                 BenchModuleResult& r) {
    const int steps = in.options.steps;
    std::vector<std::string> names;
    for (const GaugeColumn& col : plan.columns())
        names.push_back(col.name);
    std::filesystem::create_directories(in.output_dir);
    CsvSeries csv(in.output_dir / ("gauges_" + std::to_string(index) + ".csv"),
                  {"sluice bench: " + r.module.name()}, names);
    GaugeRowWriter rows(plan.evaluator(), csv);
    StepLoop plain(sim), gauged(sim);
    gauged.on_step([&] { // a sample after every step, not on a cadence
        rows.submit(sim.time(), sim.begin_gauges(plan.request()));
        return false;
    });
    const int block = std::max(1, std::min(10, steps / 2));
    double plain_seconds = 0.0, gauged_seconds = 0.0;
    int plain_steps = 0, gauged_steps = 0;
    for (int k = 0; k < 2 * steps; k += block) {
        const bool with_gauges = (k / block) % 2 == 1;
        const int count = std::min(block, 2 * steps - k);
        const auto block_start = Clock::now();
        (with_gauges ? gauged : plain).advance_steps(static_cast<std::uint64_t>(count));
        (with_gauges ? gauged_seconds : plain_seconds) += seconds_since(block_start);
        (with_gauges ? gauged_steps : plain_steps) += count;
    }
    r.gauged_ms_per_step = 1e3 * gauged_seconds / std::max(1, gauged_steps);
    r.interleaved_ms_per_step = 1e3 * plain_seconds / std::max(1, plain_steps);
    rows.flush();
}

/// One module from the shared start: warm-up, the timed steps, the gauges' blocks, the final
/// state. `index`: the module's place in the list (names its gauge rows).
BenchModuleResult time_module(const Case& c, const NeighbourModule& module, std::size_t index,
                              const BenchInputs& in) {
    Case mc = c;
    mc.neighbours = module;
    std::unique_ptr<Simulation> sim = in.start ? make_simulation(mc, in.backend, *in.start)
                                               : make_simulation(mc, in.particles, in.backend);
    StepLoop(*sim).advance_steps(static_cast<std::uint64_t>(in.options.warmup_steps));
    if (in.options.output_interval)
        sim->begin_snapshot().get(); // sets up the copy slots, as a run's first snapshot does

    BenchModuleResult r;
    r.module = module;
    time_steps(*sim, mc, in, r);
    if (in.gauges)
        time_gauges(*sim, *in.gauges, index, in, r);
    const auto n = static_cast<double>(in.setting.particles);
    r.bytes_per_particle =
        in.setting.gpu
            ? static_cast<double>(sim->counters().device_bytes) / n
            : static_cast<double>(estimate_cpu_memory(mc, in.setting.particles).bytes_per_particle);
    const ParticleCounts counts = sim->counts();
    r.final_particles = counts.fluid + counts.boundary;
    r.final_state = sim->snapshot();
    return r;
}

} // namespace

Case read_bench_case(const BenchOptions& options) {
    CaseOverrides overrides; // --dp through the reader: the case's rules hold at the new dp
    overrides.dp = options.dp;
    overrides.coef_sound = options.coef_sound;
    overrides.tank_lattice = false; // a bench times steps; the refined series need any dp
    Case c = read_case(options.case_path, overrides);
    options.physics.apply(c.physics);
    return c;
}

Checkpoint read_bench_state(const Case& c, const std::string& from,
                            std::vector<std::string>& warnings) {
    Checkpoint k = std::filesystem::is_directory(from)
                       ? read_latest_whole_checkpoint(from, c.name, warnings)
                       : read_checkpoint(from);
    if (k.state.dimension != c.dimension || std::abs(k.dp - c.dp) > 1e-12 * c.dp ||
        k.integrator != to_string(c.physics.integrator))
        throw std::invalid_argument("--from-state: " + k.source.string() +
                                    " is not a state of this case (dp, dimension and "
                                    "integrator must match)");
    return k;
}

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
    Case c = read_bench_case(options);
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

    const auto setup_start = Clock::now();
    const ParticleSet particles = generate_particles(c);
    const BenchStart start = options.from_state ? read_start(c, *options.from_state, out)
                             : options.end_time
                                 ? develop(c, particles, backend, *options.end_time, out)
                                 : BenchStart{};
    const double setup_seconds = seconds_since(setup_start);

    BenchSetting s{c, options};
    s.particles = particles.size();
    s.fluid = particles.fluid_count;
    s.boundary = particles.boundary_count;
    s.h = particles.constants.h;
    s.gpu = gpu;
    s.developed = start.state.has_value();
    s.start_time = start.state ? start.state->time : 0.0;
    std::unique_ptr<GaugePlan> gauge_plan;
    if (options.gauges) {
        if (c.gauges.gauges.empty())
            throw std::invalid_argument("--gauges: the case " + options.case_path +
                                        " has no <gauges> to sample");
        gauge_plan = std::make_unique<GaugePlan>(c, particles.constants.support);
        s.gauge_points = gauge_plan->request().points.size();
        s.gauge_fronts = gauge_plan->request().fronts.size();
    }
    const BenchOutputDir output(c.name, options);
    print_header(out, s, start.text, setup_seconds, output);

    const BenchInputs in{options,       backend,          particles, start.state,
                         output.path(), gauge_plan.get(), s};
    std::vector<BenchModuleResult> results;
    for (const NeighbourModule& module : modules)
        results.push_back(time_module(c, module, results.size(), in));
    bool all_agree = true;
    for (BenchModuleResult& r : results) {
        compare_final_states(r, results.front().final_state, c.dp, c.constants.rho0,
                             options.tolerance, s.developed);
        all_agree = all_agree && r.agrees;
    }
    print_bench_table(out, s, results, all_agree);
    const std::string csv_path =
        options.csv_path.empty() ? "bench_" + c.name + ".csv" : options.csv_path;
    write_bench_csv(csv_path, s, results);
    out << "CSV: " << csv_path << "\n";
    return all_agree ? 0 : 1;
}

} // namespace sluice
