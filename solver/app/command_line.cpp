#include "app/command_line.h"

#include "app/bench.h"
#include "case/case_override.h"
#include "case/case_reader.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace sluice {

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

namespace {

double parse_positive(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v > 0.0) || !std::isfinite(v))
        throw UsageError(flag + " expects a positive number, got '" + text + "'");
    return v;
}

} // namespace

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

} // namespace sluice
