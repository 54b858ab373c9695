/// \file main.cpp
/// The `sluice` command line: run and check cases.
///
/// Exit codes: 0 done, 1 internal or I/O error (e.g. output folder not writable), 2 bad input
/// (command line or case file), 3 simulation failure (instability), 130 interrupted (Ctrl-C).

#include "app/bench.h"
#include "app/cli_progress.h"
#include "backends/backend_common.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/simulation.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/particles.h"
#include "io/async_output.h"
#include "io/output.h"

#include "neighbours/grid.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr int exit_ok = 0;
constexpr int exit_internal = 1;
constexpr int exit_bad_input = 2;
constexpr int exit_simulation_failure = 3;
constexpr int exit_interrupted = 130;

const char* const usage_text = R"(sluice — a compact SPH fluid solver

usage:
  sluice run CASE.xml [options]     simulate a case, write .vtp/.pvd and summary.json
  sluice check CASE.xml [options]   validate a case and print what a run would use
  sluice bench CASE.xml [options]   time every neighbour module on the same case
  sluice --help | --version

options (run, check):
  --out DIR              output folder (default: the case's <run output>, else out/NAME)
  --end-time T           simulated end time in s (overrides <run endTime>)
  --neighbours C/Q/W     neighbour module, e.g. counting-sort/strips/0.5
                         constructions: counting-sort, radix-sort; queries: moore, strips;
                         W = bin width / search radius in (0, 1]
options (run, check, bench):
  --dp DP                particle spacing in m (overrides <geometry dp>; h follows)
  --backend cpu|cuda     where to run (default: cuda when a GPU is present, else cpu)
options (bench):
  --steps N              timed steps per module (default 100, after 5 warm-up steps)
  --modules all|LIST     "all" (12 modules) or a comma-separated list of C/Q/W
  --csv FILE             CSV output (default bench_NAME.csv)
  --interaction direct|queued
                         CUDA interaction kernel (default direct, the faster measured)

exit codes: 0 done, 1 internal or I/O error, 2 bad input, 3 simulation failure,
            130 interrupted
Results: open OUT/NAME.pvd in ParaView (see README.md).
)";

/// Thrown for command-line mistakes; main prints it with the usage hint and exits 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string command;
    std::string case_path;
    std::optional<std::string> out;
    std::optional<double> end_time;
    std::optional<NeighbourModule> neighbours;
    std::optional<double> dp;
    Backend backend = cuda_device_available() ? Backend::cuda : Backend::cpu;
    // bench
    int steps = 100;
    std::string modules = "all";
    std::string csv;
    CudaInteraction interaction = CudaInteraction::direct;
};

double parse_positive(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v > 0.0) || !std::isfinite(v))
        throw UsageError(flag + " expects a positive number, got '" + text + "'");
    return v;
}

Options parse_options(int argc, char** argv) {
    Options o;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
        throw UsageError("no command given");
    o.command = args[0];
    if (o.command != "run" && o.command != "check" && o.command != "bench")
        throw UsageError("unknown command '" + o.command + "' (valid: run, check, bench)");
    for (std::size_t k = 1; k < args.size(); ++k) {
        const std::string& a = args[k];
        auto value = [&]() -> const std::string& {
            if (k + 1 >= args.size())
                throw UsageError(a + " needs a value");
            return args[++k];
        };
        if (a == "--out")
            o.out = value();
        else if (a == "--end-time")
            o.end_time = parse_positive(a, value());
        else if (a == "--dp")
            o.dp = parse_positive(a, value());
        else if (a == "--steps") {
            const double steps = parse_positive(a, value());
            if (steps != std::floor(steps) || steps > 1e9)
                throw UsageError("--steps expects a whole number of steps");
            o.steps = static_cast<int>(steps);
        } else if (a == "--modules") {
            o.modules = value();
            try {
                parse_module_list(o.modules);
            } catch (const std::invalid_argument& e) {
                throw UsageError(std::string("--modules: ") + e.what());
            }
        } else if (a == "--csv")
            o.csv = value();
        else if (a == "--interaction") {
            const std::string& i = value();
            if (i == "direct")
                o.interaction = CudaInteraction::direct;
            else if (i == "queued")
                o.interaction = CudaInteraction::queued;
            else
                throw UsageError("--interaction expects direct or queued, got '" + i + "'");
        } else if (a == "--neighbours") {
            try {
                o.neighbours = parse_neighbour_module(value());
            } catch (const std::invalid_argument& e) {
                throw UsageError(std::string("--neighbours: ") + e.what());
            }
        } else if (a == "--backend") {
            const std::string& b = value();
            if (b == "cpu")
                o.backend = Backend::cpu;
            else if (b == "cuda")
                o.backend = Backend::cuda;
            else
                throw UsageError("--backend expects cpu or cuda, got '" + b + "'");
        } else if (!a.empty() && a[0] == '-')
            throw UsageError("unknown option '" + a + "'");
        else if (o.case_path.empty())
            o.case_path = a;
        else
            throw UsageError("more than one case file given ('" + o.case_path + "', '" + a + "')");
    }
    if (o.case_path.empty())
        throw UsageError(o.command + " needs a case file");
    return o;
}

/// Reads the case and applies the command-line overrides.
Case load_case(const Options& o) {
    Case c = read_case(o.case_path);
    if (o.out)
        c.run.output_dir = *o.out;
    if (o.end_time)
        c.run.end_time = *o.end_time;
    if (o.neighbours)
        c.neighbours = *o.neighbours;
    if (o.dp) {
        try {
            apply_dp_override(c, *o.dp);
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }
    return c;
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    std::ostringstream s;
    s.precision(u == 0 ? 0 : 1);
    s << std::fixed << bytes << ' ' << units[u];
    return s.str();
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

int check(const Options& o) {
    const Case c = load_case(o);
    const ParticleSet particles = generate_particles(c);
    const DerivedConstants& k = particles.constants;
    std::cout << o.case_path << ": valid\n"
              << "  case            " << c.name << " (" << c.dimension << "D)\n"
              << "  particles       " << particles.size() << " (" << particles.fluid_count
              << " fluid, " << particles.boundary_count << " boundary)\n"
              << "  dp              " << c.dp << " m\n"
              << "  h               " << k.h << " m (support 2h = " << k.support << " m)\n"
              << "  c0              " << k.speed_of_sound << " m/s\n"
              << "  initial dt      " << k.initial_dt << " s\n";
    const MemoryEstimate memory = estimate_cpu_memory(c, particles.size());
    std::cout << "  neighbours      " << c.neighbours.name() << ", grid "
              << grid_dims_text(c, k.support) << " = " << memory.bins << " bins of "
              << c.neighbours.bin_width * k.support << " m\n"
              << "  memory (est.)   " << format_bytes(static_cast<double>(memory.total())) << " ("
              << memory.bytes_per_particle << " B per particle + "
              << format_bytes(static_cast<double>(memory.grid_bytes))
              << " grid) on the CPU backend\n"
              << "  run             end time " << c.run.end_time << " s, output every "
              << c.run.output_interval << " s to " << c.run.output_dir << "\n";
    return exit_ok;
}

int bench(const Options& o) {
    BenchOptions b;
    b.case_path = o.case_path;
    b.steps = o.steps;
    b.modules = o.modules;
    b.dp = o.dp;
    b.csv_path = o.csv;
    b.backend = o.backend;
    b.cuda.interaction = o.interaction;
    if (o.out || o.end_time || o.neighbours)
        throw UsageError("bench takes --steps, --modules, --dp, --csv and --backend only");
    return run_bench(b, std::cout);
}

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
    interrupted = true;
}

int run(const Options& o) {
    const Case c = load_case(o);
    const auto wall_start = std::chrono::steady_clock::now();
    auto sim = make_simulation(c, o.backend);

    RunSummary summary;
    summary.case_name = c.name;
    summary.case_file = o.case_path;
    summary.backend = sim->backend_name();
    summary.neighbour_module = c.neighbours.name();
    summary.end_time = c.run.end_time;
    summary.initial = sim->counts();
    summary.dp = c.dp;
    summary.smoothing_length = sim->constants().h;
    summary.speed_of_sound = sim->constants().speed_of_sound;

    SnapshotSeriesWriter writer(c.run.output_dir, c.name);
    const std::filesystem::path summary_path =
        std::filesystem::path(c.run.output_dir) / "summary.json";
    std::cout << "sluice: " << c.name << " (" << c.dimension << "D), " << summary.initial.fluid
              << " fluid + " << summary.initial.boundary << " boundary particles, "
              << summary.neighbour_module << " on " << summary.backend
              << ", to t = " << c.run.end_time << " s\n";

    // Output off the critical path: the backend starts a copy (on the GPU: to pinned memory on a
    // side stream), a writer thread finishes and writes it while the simulation steps on.
    // "output" in the summary is the time the stepping thread spends starting snapshots.
    BackgroundSnapshotWriter output([&writer](const Snapshot& s) { writer.write(s); });
    double output_seconds = 0.0;
    double last_written_time = -1.0;
    auto write_snapshot = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        output.submit(sim->begin_snapshot());
        last_written_time = sim->time();
        output_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto finish_summary = [&](const std::string& status, const std::string& failure) {
        output.flush();
        summary.status = status;
        summary.failure = failure;
        summary.final_counts = sim->counts();
        summary.steps = sim->steps();
        summary.simulated_time = sim->time();
        summary.stages = sim->stage_times();
        summary.stages.emplace_back("output", output_seconds);
        summary.snapshots = writer.count();
        summary.wall_time =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        write_summary_json(summary_path, summary);
    };

    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    write_snapshot();
    ProgressReporter progress(c.run.end_time);
    std::uint64_t excluded_count = summary.initial.excluded;
    // Output times are k·interval; a snapshot is written at the first step that reaches one.
    std::uint64_t next_output = 1;
    // A tolerance of a millionth of the interval keeps rounding from skipping an output time.
    const double slack = 1e-6 * c.run.output_interval;
    while (sim->time() < c.run.end_time - 1e-12 * c.run.end_time) {
        try {
            sim->step();
        } catch (const SimulationFailure& failure) {
            progress.finish();
            std::cerr << "sluice: " << failure.what() << "\n";
            output.flush();
            const std::filesystem::path failed = writer.write_failure(sim->snapshot());
            std::cerr << "sluice: failing state written to " << failed.string()
                      << "; the last good output is kept in " << c.run.output_dir << "\n";
            finish_summary("failed", failure.what());
            return exit_simulation_failure;
        }
        for (const Exclusion& e : sim->take_exclusions()) {
            ++excluded_count;
            std::ostringstream line;
            line << "t = " << e.time << " s (step " << e.step << "): fluid particle " << e.id
                 << " left the domain at (" << e.position[0] << ", " << e.position[1] << ", "
                 << e.position[2] << ") m and is excluded (" << excluded_count << " in all)";
            progress.log_line(line.str());
        }
        if (sim->time() + slack >= next_output * c.run.output_interval) {
            write_snapshot();
            while (sim->time() + slack >= next_output * c.run.output_interval)
                ++next_output;
        }
        progress.update(sim->time(), sim->steps());
        if (interrupted) {
            progress.finish();
            std::cerr << "sluice: interrupted at t = " << sim->time()
                      << " s; writing a last snapshot\n";
            write_snapshot();
            finish_summary("interrupted", "interrupted by signal");
            return exit_interrupted;
        }
    }
    progress.finish();
    if (last_written_time < sim->time())
        write_snapshot();
    finish_summary("completed", ""); // flushes the writer first
    std::cout << "sluice: done, " << sim->steps() << " steps to t = " << sim->time() << " s in "
              << summary.wall_time << " s wall; " << writer.count() << " snapshots, "
              << summary.final_counts.excluded << " particle(s) excluded\n"
              << "sluice: open "
              << (std::filesystem::path(c.run.output_dir) / (c.name + ".pvd")).string()
              << " in ParaView\n";
    return exit_ok;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::cout << usage_text;
        return exit_ok;
    }
    if (argc == 2 && std::string(argv[1]) == "--version") {
        std::cout << "sluice " << SLUICE_VERSION << "\n";
        return exit_ok;
    }
    try {
        const Options o = parse_options(argc, argv);
        if (o.command == "bench")
            return bench(o);
        return o.command == "run" ? run(o) : check(o);
    } catch (const UsageError& e) {
        std::cerr << "sluice: " << e.what() << "\n(run 'sluice --help' for usage)\n";
        return exit_bad_input;
    } catch (const CaseError& e) {
        std::cerr << e.what() << "\n";
        return exit_bad_input;
    } catch (const BackendUnavailable& e) {
        std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const std::exception& e) {
        std::cerr << "sluice: error: " << e.what() << "\n";
        return exit_internal;
    }
}
