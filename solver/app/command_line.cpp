#include "app/command_line.h"

#include "app/bench.h"
#include "case/case_override.h"
#include "case/case_reader.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace sluice {

namespace {

const char* const program_description =
    "sluice: a compact SPH fluid solver. A case is an XML file (cases/README.md); results open "
    "in ParaView (OUT/NAME.pvd). 'sluice COMMAND --help' lists a command's options.\n"
    "Exit codes: 0 done, 1 internal or I/O error, 2 bad input, 3 simulation failure, "
    "130 interrupted.";

/// A finite number > 0; CLI11 prefixes the option's name to the message.
const CLI::Validator positive_number(
    [](const std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0.0))
            return "expects a positive number, got '" + text + "'";
        return {};
    },
    "");

/// A whole number of steps in [1, 10^9].
const CLI::Validator step_count(
    [](const std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= 1.0) || v != std::floor(v) || v > 1e9)
            return "expects a whole number of steps >= 1, got '" + text + "'";
        return {};
    },
    "");

/// Wraps a parser that throws std::invalid_argument (neighbours/module.h, bench.h).
template <class ParserT>
CLI::Validator parsed_by(ParserT parser) {
    return CLI::Validator(
        [parser](const std::string& text) -> std::string {
            try {
                parser(text);
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            return {};
        },
        "");
}

std::string help_of(const CLI::App& app, const CLI::Error& e) {
    std::ostringstream out;
    app.exit(e, out, out);
    return out.str();
}

} // namespace

Options parse_options(int argc, char** argv) {
    Options o;
    CLI::App app(program_description, "sluice");
    app.set_version_flag("--version", std::string("sluice ") + SLUICE_VERSION);
    app.require_subcommand(1, 1);
    app.fallthrough(false);

    std::string backend_name = o.backend == Backend::cuda ? "cuda" : "cpu";
    const std::string backend_help =
        "where to run: cpu or cuda (default: cuda when a GPU is present, else cpu; here " +
        backend_name + ")";
    std::string neighbours_text;
    const CLI::Validator neighbour_module = parsed_by([](const std::string& t) {
        if (t != "auto")
            parse_neighbour_module(t);
    });
    const std::string neighbours_help =
        "neighbour module CONSTRUCTION/QUERY/BINWIDTH[/LAYOUT], e.g. counting-sort/strips/0.5, "
        "counting-sort/hybrid/0.5/index or linked-list/moore/1, or auto (run: time the modules "
        "first and take the fastest, as 'sluice tune') (constructions: " +
        std::string(construction_names()) + "; queries: " + std::string(query_names()) +
        "; bin width / search radius in (0, 1]; layouts: " + std::string(layout_names()) +
        ", a linked-list is index and walks moore or modular); overrides <neighbours>";
    std::string out_dir;
    double end_time = 0.0, dp = 0.0;

    auto add_case = [&](CLI::App* command) {
        command
            ->add_option("CASE.xml", o.case_path, "the case file (XML; format in cases/README.md)")
            ->required()
            ->type_name("");
    };
    auto add_dp = [&](CLI::App* command) {
        command
            ->add_option("--dp", dp,
                         "particle spacing in m (overrides <geometry dp>; h and the lattice "
                         "follow)")
            ->check(positive_number)
            ->type_name("DP");
    };
    auto add_backend = [&](CLI::App* command) {
        command->add_option("--backend", backend_name, backend_help)
            ->check(CLI::IsMember({"cpu", "cuda"}).description(""))
            ->type_name("cpu|cuda");
    };
    auto add_case_overrides = [&](CLI::App* command) {
        command
            ->add_option("--out", out_dir,
                         "output folder (default: the case's <run output>, else out/NAME)")
            ->type_name("DIR");
        command
            ->add_option("--end-time", end_time,
                         "simulated end time in s (overrides <run endTime>)")
            ->check(positive_number)
            ->type_name("T");
        command->add_option("--neighbours", neighbours_text, neighbours_help)
            ->check(neighbour_module)
            ->type_name("C/Q/W[/L]|auto");
        add_dp(command);
        add_backend(command);
    };

    int balance_interval = 0;
    auto add_balance_interval = [&](CLI::App* command) {
        command
            ->add_option("--balance-interval", balance_interval,
                         "over several processes (mpirun): steps between load balances, 0 for "
                         "none (overrides <run balanceInterval>)")
            ->check(CLI::NonNegativeNumber.description(""))
            ->type_name("N");
    };

    int processes = 0, gpus = 0;
    auto add_process_count = [&](CLI::App* command) {
        CLI::Option* p =
            command
                ->add_option("--processes", processes,
                             "split the case over N processes of this host: starts them through "
                             "Open MPI's mpirun, as 'mpirun -np N sluice ...' would")
                ->check(CLI::PositiveNumber.description(""))
                ->type_name("N");
        command
            ->add_option("--gpus", gpus,
                         "split the case over N GPUs of this host, one process each (--processes "
                         "N with the CUDA backend)")
            ->check(CLI::PositiveNumber.description(""))
            ->excludes(p)
            ->type_name("N");
    };

    double output_interval = 0.0;
    std::string compressor, fields, boundary_output;
    int compression_level = 0;
    unsigned writers = 0;
    auto add_output_options = [&](CLI::App* command) {
        command
            ->add_option("--output-interval", output_interval,
                         "simulated time in s between snapshots (overrides <run outputInterval>)")
            ->check(positive_number)
            ->type_name("T");
        command
            ->add_option("--compressor", compressor,
                         "snapshot compression: lz4 (fast, the default), zlib (smaller files) or "
                         "none (overrides <output compressor>)")
            ->check(CLI::IsMember({"lz4", "zlib", "none"}).description(""))
            ->type_name("lz4|zlib|none");
        command
            ->add_option("--compression-level", compression_level,
                         "1 (fastest) to 9 (smallest); overrides <output level>")
            ->check(CLI::Range(1, 9).description(""))
            ->type_name("1-9");
        command
            ->add_option("--fields", fields,
                         "point arrays to write besides id and type, e.g. velocity,pressure "
                         "(default: velocity,density,pressure; overrides <output fields>)")
            ->check(parsed_by([](const std::string& t) {
                VtpFormat f;
                parse_fields(t, f);
            }))
            ->type_name("LIST");
        command
            ->add_option("--boundary-output", boundary_output,
                         "boundary particles in every snapshot or only in the first (they do not "
                         "move); overrides <output boundary>")
            ->check(CLI::IsMember({"every", "first"}).description(""))
            ->type_name("every|first");
        command
            ->add_option("--writers", writers,
                         "threads compressing and writing snapshots (default: the cores less 2, "
                         "1 to 8; overrides <output writers>)")
            ->check(CLI::Range(1u, 64u).description(""))
            ->type_name("N");
    };

    CLI::App* run = app.add_subcommand(
        "run", "simulate a case: write the .vtp/.pvd series and summary.json to the output folder");
    add_case(run);
    add_case_overrides(run);
    add_output_options(run);
    add_balance_interval(run);
    add_process_count(run);
    double checkpoint_interval = 0.0;
    std::string restart_dir;
    run->add_option("--checkpoint-interval", checkpoint_interval,
                    "simulated time in s between checkpoints (restart files, the last two "
                    "kept; overrides <run checkpointInterval>); with checkpoints on, a failing run "
                    "also leaves one at its last output time")
        ->check(positive_number)
        ->type_name("T");
    run->add_option("--restart", restart_dir,
                    "continue the run whose output is in DIR from its newest checkpoint, "
                    "appending to its series (Ctrl-C always leaves a checkpoint)")
        ->type_name("DIR");

    CLI::App* check = app.add_subcommand(
        "check", "validate a case and print particle counts, h, c0, initial dt, the neighbour "
                 "grid and a memory estimate");
    add_case(check);
    add_case_overrides(check);

    CLI::App* bench = app.add_subcommand(
        "bench", "time neighbour modules on the same case from the same initial state "
                 "(markdown on stdout, CSV to a file)");
    add_case(bench);
    bench->add_option("--steps", o.steps, "timed steps per module, after the warm-up steps")
        ->check(step_count)
        ->capture_default_str()
        ->type_name("N");
    bench
        ->add_option("--warmup", o.warmup_steps,
                     "untimed steps per module before the timed ones (over several processes, "
                     "the case's balanceInterval balances the slabs during them too)")
        ->check(CLI::NonNegativeNumber.description(""))
        ->capture_default_str()
        ->type_name("N");
    bench
        ->add_option("--modules", o.modules,
                     "'all' (every construction x query x layout x bin width 1, 0.5, 1/3: 66 "
                     "modules), 'reorder' or 'index' (the modules of one layout), or a "
                     "comma-separated list of C/Q/W[/L]")
        ->check(parsed_by([](const std::string& t) { parse_module_list(t); }))
        ->capture_default_str()
        ->type_name("all|LIST");
    bench->add_option("--csv", o.csv, "CSV output (default: bench_NAME.csv)")->type_name("FILE");
    std::string interaction = "adaptive";
    bench
        ->add_option("--interaction", interaction,
                     "CUDA interaction kernel: adaptive (direct or in-step, whichever measures "
                     "faster as the run goes), direct, in-step or queued (solver/BENCHMARK.md)")
        ->check(CLI::IsMember({"adaptive", "direct", "in-step", "queued"}).description(""))
        ->capture_default_str()
        ->type_name("adaptive|direct|in-step|queued");
    std::string corrector = "list";
    bench
        ->add_option("--corrector", corrector,
                     "symplectic, reorder layout: the corrector reads the neighbours the "
                     "predictor's pass listed, those the predictor can bring within R (CUDA, a "
                     "traversal in bin order; else reuse), reuses the predictor's "
                     "neighbour structure (exact with a skin) or rebuilds it")
        ->check(CLI::IsMember({"list", "reuse", "rebuild"}).description(""))
        ->capture_default_str()
        ->type_name("list|reuse|rebuild");
    std::string dry_walls = "skip";
    bench
        ->add_option("--dry-walls", dry_walls,
                     "CUDA, symplectic, reorder layout, the default physics: skip wall particles "
                     "that no fluid particle can have reached since they were last found dry "
                     "(exact), or compute them in every pass")
        ->check(CLI::IsMember({"skip", "compute"}).description(""))
        ->capture_default_str()
        ->type_name("skip|compute");
    add_dp(bench);
    add_backend(bench);
    add_balance_interval(bench);
    add_process_count(bench);
    bench
        ->add_option("--end-time", end_time,
                     "develop the flow to this simulated time in s first (untimed, with the "
                     "case's module), then time every module from there")
        ->check(positive_number)
        ->type_name("T");
    std::string from_state;
    bench
        ->add_option("--from-state", from_state,
                     "time every module from a checkpoint: a .chk file or a run folder (its "
                     "newest checkpoint)")
        ->type_name("CHK|DIR");
    bench
        ->add_option("--out", out_dir,
                     "with --output-interval: keep the snapshots in DIR (default: a temporary "
                     "folder, removed afterwards)")
        ->type_name("DIR");
    add_output_options(bench);
    bench->add_flag("--gauges", o.bench_gauges,
                    "time every module a second time with the case's <gauges> sampled after "
                    "every step, and report their cost");

    CLI::App* tune = app.add_subcommand(
        "tune", "time every neighbour module (or --modules) for a few steps of the case from its "
                "initial state and print the ranking and the fastest module's spelling");
    add_case(tune);
    int tune_steps = 10;
    tune->add_option("--steps", tune_steps,
                     "timed steps per module (the median counts), after 2 "
                     "warm-up steps")
        ->check(step_count)
        ->capture_default_str()
        ->type_name("N");
    std::string tune_modules = "all";
    tune->add_option("--modules", tune_modules,
                     "'all' (every construction x query x layout x bin width 1, 0.5, 1/3: 66 "
                     "modules), 'reorder' or 'index', or a comma-separated list of C/Q/W[/L]")
        ->check(parsed_by([](const std::string& t) { parse_module_list(t); }))
        ->capture_default_str()
        ->type_name("all|LIST");
    add_dp(tune);
    add_backend(tune);

    // CLI11 would answer an unknown command with "A subcommand is required".
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "run" && first != "check" &&
        first != "bench" && first != "tune")
        throw UsageError("unknown command '" + std::string(argv[1]) +
                         "' (valid: run, check, bench, tune)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        throw HelpShown{help_of(app, e)};
    } catch (const CLI::CallForAllHelp& e) {
        throw HelpShown{help_of(app, e)};
    } catch (const CLI::CallForVersion& e) {
        throw HelpShown{help_of(app, e)};
    } catch (const CLI::ParseError& e) {
        const auto commands = app.get_subcommands();
        throw UsageError(e.what(), commands.empty() ? "" : commands.front()->get_name());
    }

    o.command = app.get_subcommands().front()->get_name();
    const CLI::App* command = app.get_subcommands().front();
    auto given = [&](const char* name) {
        const CLI::Option* option = command->get_option_no_throw(name);
        return option != nullptr && option->count() > 0;
    };
    if (given("--out"))
        o.out = out_dir;
    if (given("--end-time"))
        o.end_time = end_time;
    if (given("--dp"))
        o.dp = dp;
    if (given("--checkpoint-interval"))
        o.checkpoint_interval = checkpoint_interval;
    if (given("--restart"))
        o.restart = restart_dir;
    if (given("--from-state"))
        o.from_state = from_state;
    if (o.command == "bench" && o.end_time && o.from_state)
        throw UsageError("--end-time and --from-state both choose the state to time from; give one",
                         "bench");
    if (given("--neighbours")) {
        if (neighbours_text == "auto")
            o.neighbours_auto = true;
        else
            o.neighbours = parse_neighbour_module(neighbours_text);
    }
    if (o.command == "tune") {
        o.steps = tune_steps;
        o.modules = tune_modules;
    }
    if (given("--output-interval"))
        o.output_interval = output_interval;
    if (given("--compressor"))
        o.compressor = parse_compressor(compressor);
    if (given("--compression-level"))
        o.compression_level = compression_level;
    if (given("--fields"))
        o.fields = fields;
    if (given("--boundary-output"))
        o.boundary_only_first = boundary_output == "first";
    if (given("--writers"))
        o.writers = writers;
    if (given("--balance-interval"))
        o.balance_interval = balance_interval;
    if (given("--processes"))
        o.processes = processes;
    if (given("--gpus")) {
        o.processes = gpus;
        o.gpus = true;
        if (!given("--backend"))
            backend_name = "cuda";
    }
    o.backend = backend_name == "cuda" ? Backend::cuda : Backend::cpu;
    o.interaction = interaction == "queued"    ? CudaInteraction::queued
                    : interaction == "in-step" ? CudaInteraction::in_step
                    : interaction == "direct"  ? CudaInteraction::direct
                                               : CudaInteraction::adaptive;
    o.corrector = corrector == "rebuild" ? CorrectorNeighbours::rebuild
                  : corrector == "reuse" ? CorrectorNeighbours::reuse
                                         : CorrectorNeighbours::lists;
    o.compute_dry_walls = dry_walls == "compute";
    return o;
}

Case load_case(const Options& o) {
    Case c = read_case(o.case_path);
    if (o.out)
        c.run.output_dir = *o.out;
    if (o.end_time)
        c.run.end_time = *o.end_time;
    if (o.neighbours) {
        c.neighbours = *o.neighbours;
        c.neighbours_auto = false; // a module named on the command line wins over the case's auto
    }
    if (o.neighbours_auto)
        c.neighbours_auto = true;
    if (o.output_interval)
        c.run.output_interval = *o.output_interval;
    if (o.compressor)
        c.output.format.compressor = *o.compressor;
    if (o.compression_level) {
        if (c.output.format.compressor == Compressor::none)
            throw UsageError("--compression-level has no meaning with the compressor 'none'");
        c.output.format.level = *o.compression_level;
    } else if (o.compressor == Compressor::none) {
        c.output.format.level = 0; // a level the case gave for another compressor
    }
    if (o.fields)
        parse_fields(*o.fields, c.output.format);
    if (o.boundary_only_first)
        c.output.boundary_only_first = *o.boundary_only_first;
    if (o.writers)
        c.output.writers = *o.writers;
    if (o.balance_interval)
        c.run.balance_interval = *o.balance_interval;
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
