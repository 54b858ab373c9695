#include "app/command_line.h"

#include "app/bench.h"
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
    "4 more fluid left the domain than --max-loss allows (the output is complete), "
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

/// A share in percent, in [0, 100].
const CLI::Validator percent(
    [](const std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= 0.0 && v <= 100.0))
            return "expects a percentage in [0, 100], got '" + text + "'";
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

/// What CLI11 writes an option's value into when it is not an Options member as is: a string to
/// parse, or a value kept only when the option is given (take_given reads count() for that).
/// Must outlive the parse, as CLI11 holds references to its members.
struct ParsedValues {
    std::string backend_name; ///< "cpu" or "cuda"; starts as Options' default
    std::string neighbours_text;
    std::string out_dir;
    double end_time = 0.0, dp = 0.0, coef_sound = 0.0;
    std::string boundary;               ///< --boundary: "dbc" or "mdbc"
    std::string shifting;               ///< --shifting: "none" or "fickian"
    std::string formulation, diffusion; ///< --formulation, --diffusion
    int balance_interval = 0;
    int processes = 0, gpus = 0;
    double output_interval = 0.0;
    std::string compressor, fields, boundary_output;
    int compression_level = 0;
    unsigned writers = 0;
    double checkpoint_interval = 0.0;
    std::string restart_dir;
    double max_loss = 0.0;
    std::string interaction = "adaptive";
    std::string corrector = "list";
    std::string dry_walls = "skip";
    std::string from_state;
    int tune_steps = 10;
    std::string tune_modules = "all";
};

std::string neighbours_help() {
    return "neighbour module CONSTRUCTION/QUERY/BINWIDTH[/LAYOUT], e.g. counting-sort/strips/0.5, "
           "counting-sort/hybrid/0.5/index or linked-list/moore/1, or auto (run: time the modules "
           "first and take the fastest, as 'sluice tune') (constructions: " +
           std::string(construction_names()) + "; queries: " + std::string(query_names()) +
           "; bin width / search radius in (0, 1]; layouts: " + std::string(layout_names()) +
           ", a linked list is index and walks moore or modular; linked-list-tight takes bin "
           "widths of 0.5 or more); overrides <neighbours>";
}

// Options shared by several commands. Each adds its options to `command` in the order --help
// lists them, bound to `o` or `v`.

void add_case(CLI::App* command, Options& o) {
    command->add_option("CASE.xml", o.case_path, "the case file (XML; format in cases/README.md)")
        ->required()
        ->type_name("");
}

void add_dp(CLI::App* command, ParsedValues& v) {
    command
        ->add_option("--dp", v.dp,
                     "particle spacing in m (overrides <geometry dp>; h and the lattice "
                     "follow)")
        ->check(positive_number)
        ->type_name("DP");
    command
        ->add_option("--coef-sound", v.coef_sound,
                     "speed of sound c0 = COEF*sqrt(g*H_max) (overrides <constants coefSound> "
                     "or speedOfSound; the acoustic spike of an impact scales with c0)")
        ->check(positive_number)
        ->type_name("COEF");
}

void add_physics_overrides(CLI::App* command, ParsedValues& v) {
    command
        ->add_option("--boundary", v.boundary,
                     "wall boundary condition: dbc or mdbc (overrides <physics boundary>; "
                     "cases/README.md)")
        ->check(CLI::IsMember({"dbc", "mdbc"}).description(""))
        ->type_name("dbc|mdbc");
    command
        ->add_option("--shifting", v.shifting,
                     "particle shifting: none or fickian (overrides <physics shifting>; "
                     "cases/README.md)")
        ->check(CLI::IsMember({"none", "fickian"}).description(""))
        ->type_name("none|fickian");
    command
        ->add_option("--formulation", v.formulation,
                     "pair terms: classical (WCSPH, artificial viscosity) or riemann (Zhang, Hu & "
                     "Adams 2017: no artificial viscosity, no other diffusion unless --diffusion, "
                     "mDBC walls free-slip); overrides <physics formulation>; cases/README.md")
        ->check(CLI::IsMember({"classical", "riemann"}).description(""))
        ->type_name("classical|riemann");
    command
        ->add_option("--diffusion", v.diffusion,
                     "density diffusion: none, molteni, fourtakas or antuono (delta-SPH with "
                     "renormalised gradients); overrides <physics diffusion>; cases/README.md")
        ->check(CLI::IsMember({"none", "molteni", "fourtakas", "antuono"}).description(""))
        ->type_name("none|molteni|fourtakas|antuono");
}

void add_backend(CLI::App* command, ParsedValues& v) {
    const std::string help =
        "where to run: cpu or cuda (default: cuda when a GPU is present, else cpu; here " +
        v.backend_name + ")";
    command->add_option("--backend", v.backend_name, help)
        ->check(CLI::IsMember({"cpu", "cuda"}).description(""))
        ->type_name("cpu|cuda");
}

/// run and check: --out, --end-time, --neighbours, --dp, --backend.
void add_case_overrides(CLI::App* command, ParsedValues& v) {
    command
        ->add_option("--out", v.out_dir,
                     "output folder (default: the case's <run output>, else out/NAME)")
        ->type_name("DIR");
    command
        ->add_option("--end-time", v.end_time, "simulated end time in s (overrides <run endTime>)")
        ->check(positive_number)
        ->type_name("T");
    command->add_option("--neighbours", v.neighbours_text, neighbours_help())
        ->check(parsed_by([](const std::string& t) {
            if (t != "auto")
                parse_neighbour_module(t);
        }))
        ->type_name("C/Q/W[/L]|auto");
    add_dp(command, v);
    add_physics_overrides(command, v);
    add_backend(command, v);
}

void add_balance_interval(CLI::App* command, ParsedValues& v) {
    command
        ->add_option("--balance-interval", v.balance_interval,
                     "over several processes (mpirun): steps between load balances, 0 for "
                     "none (overrides <run balanceInterval>)")
        ->check(CLI::NonNegativeNumber.description(""))
        ->type_name("N");
}

/// --processes N and --gpus N, which exclude each other.
void add_process_count(CLI::App* command, ParsedValues& v) {
    CLI::Option* p =
        command
            ->add_option("--processes", v.processes,
                         "split the case over N processes of this host: starts them through "
                         "Open MPI's mpirun, as 'mpirun -np N sluice ...' would")
            ->check(CLI::PositiveNumber.description(""))
            ->type_name("N");
    command
        ->add_option("--gpus", v.gpus,
                     "split the case over N GPUs of this host, one process each (--processes "
                     "N with the CUDA backend)")
        ->check(CLI::PositiveNumber.description(""))
        ->excludes(p)
        ->type_name("N");
}

/// run and bench: the output interval and the snapshot format's overrides of <output>.
void add_output_options(CLI::App* command, ParsedValues& v) {
    command
        ->add_option("--output-interval", v.output_interval,
                     "simulated time in s between snapshots (overrides <run outputInterval>)")
        ->check(positive_number)
        ->type_name("T");
    command
        ->add_option("--compressor", v.compressor,
                     "snapshot compression: lz4 (fast, the default), zlib (smaller files) or "
                     "none (overrides <output compressor>)")
        ->check(CLI::IsMember({"lz4", "zlib", "none"}).description(""))
        ->type_name("lz4|zlib|none");
    command
        ->add_option("--compression-level", v.compression_level,
                     "1 (fastest) to 9 (smallest); overrides <output level>")
        ->check(CLI::Range(1, 9).description(""))
        ->type_name("1-9");
    command
        ->add_option("--fields", v.fields,
                     "point arrays to write besides id and type, e.g. velocity,pressure "
                     "(default: velocity,density,pressure; overrides <output fields>)")
        ->check(parsed_by([](const std::string& t) {
            VtpFormat f;
            parse_fields(t, f);
        }))
        ->type_name("LIST");
    command
        ->add_option("--boundary-output", v.boundary_output,
                     "boundary particles in every snapshot or only in the first (fixed walls do "
                     "not move; moving objects are written every time); overrides <output "
                     "boundary>")
        ->check(CLI::IsMember({"every", "first"}).description(""))
        ->type_name("every|first");
    command
        ->add_option("--writers", v.writers,
                     "threads compressing and writing snapshots (default: the cores less 2, "
                     "1 to 8; overrides <output writers>)")
        ->check(CLI::Range(1u, 64u).description(""))
        ->type_name("N");
}

// One function per command: its subcommand of `app`, with its options in --help's order.

void add_run(CLI::App& app, Options& o, ParsedValues& v) {
    CLI::App* run = app.add_subcommand(
        "run", "simulate a case: write the .vtp/.pvd series and summary.json to the output folder");
    add_case(run, o);
    add_case_overrides(run, v);
    add_output_options(run, v);
    add_balance_interval(run, v);
    add_process_count(run, v);
    run->add_option("--checkpoint-interval", v.checkpoint_interval,
                    "simulated time in s between checkpoints (restart files, the last two "
                    "kept; overrides <run checkpointInterval>); with checkpoints on, a failing run "
                    "also leaves one at its last output time")
        ->check(positive_number)
        ->type_name("T");
    run->add_option("--restart", v.restart_dir,
                    "continue the run whose output is in DIR from its newest checkpoint, "
                    "appending to its series (Ctrl-C and the end of a run always leave one); "
                    "refused when DIR holds output newer than that checkpoint")
        ->type_name("DIR");
    run->add_flag("--discard-newer", o.discard_newer,
                  "with --restart: continue even though DIR holds snapshots, CSV rows or "
                  "checkpoints newer than the checkpoint (a run killed after it), and drop them");
    run->add_option("--max-loss", v.max_loss,
                    "the share of the fluid particles, in percent of those at t = 0, that may "
                    "leave the domain: a run that loses more still writes its output to the end "
                    "but exits with code 4 and status \"lost_particles\" in summary.json "
                    "(default 1; overrides <run maxLoss>; 100: no limit)")
        ->check(percent)
        ->type_name("PERCENT");
}

void add_check(CLI::App& app, Options& o, ParsedValues& v) {
    CLI::App* check = app.add_subcommand(
        "check", "validate a case and print particle counts, h, c0, initial dt, the neighbour "
                 "grid and a memory estimate");
    add_case(check, o);
    add_case_overrides(check, v);
    check
        ->add_option("--write", o.write_generated,
                     "also write the generated particles (fluid, walls and objects, the mDBC "
                     "wall normals) as DIR/<case>_0000.vtp and DIR/<case>.pvd, the snapshot a run "
                     "starts from, for ParaView; DIR must not hold a run's output")
        ->type_name("DIR");
}

/// bench: what is timed (--steps, --warmup, --modules) and where the CSV goes.
void add_bench_timing(CLI::App* bench, Options& o) {
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
                     "'all' (every construction x query x layout x bin width 1, 0.5, 1/3: 76 "
                     "modules), 'reorder' or 'index' (the modules of one layout), or a "
                     "comma-separated list of C/Q/W[/L]")
        ->check(parsed_by([](const std::string& t) { parse_module_list(t); }))
        ->capture_default_str()
        ->type_name("all|LIST");
    bench->add_option("--csv", o.csv, "CSV output (default: bench_NAME.csv)")->type_name("FILE");
}

/// bench: the CUDA backend's kernel variants (--interaction, --corrector, --dry-walls,
/// --list-skin, --list-age).
void add_bench_variants(CLI::App* bench, Options& o, ParsedValues& v) {
    bench
        ->add_option("--interaction", v.interaction,
                     "CUDA interaction kernel: adaptive (direct or in-step, whichever measures "
                     "faster as the run goes), direct, in-step or queued (solver/BENCHMARK.md)")
        ->check(CLI::IsMember({"adaptive", "direct", "in-step", "queued"}).description(""))
        ->capture_default_str()
        ->type_name("adaptive|direct|in-step|queued");
    bench
        ->add_option("--corrector", v.corrector,
                     "symplectic, reorder layout: the corrector reads the neighbours the "
                     "predictor's pass listed, those the predictor can bring within R (CUDA, a "
                     "traversal in bin order; else reuse), reuses the predictor's "
                     "neighbour structure (exact with a skin) or rebuilds it")
        ->check(CLI::IsMember({"list", "reuse", "rebuild"}).description(""))
        ->capture_default_str()
        ->type_name("list|reuse|rebuild");
    bench
        ->add_option("--dry-walls", v.dry_walls,
                     "CUDA, symplectic, reorder layout, the default physics: skip wall particles "
                     "that no fluid particle can have reached since they were last found dry "
                     "(exact), or compute them in every pass")
        ->check(CLI::IsMember({"skip", "compute"}).description(""))
        ->capture_default_str()
        ->type_name("skip|compute");
    bench
        ->add_option(
            "--list-skin", o.list_skin,
            "with --corrector list (one GPU or several): the build pass lists the neighbours "
            "within R + F·R and the lists serve the following steps' passes while no "
            "particle can have crossed that skin (both passes read lists; a build every "
            "few steps); 0: the lists serve the step's corrector only and every step "
            "builds")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str()
        ->type_name("F");
    bench
        ->add_option("--list-age", o.list_max_age,
                     "with --list-skin above 0: a build serves at most N steps")
        ->check(CLI::Range(1u, 1000u))
        ->capture_default_str()
        ->type_name("N");
}

void add_bench(CLI::App& app, Options& o, ParsedValues& v) {
    CLI::App* bench = app.add_subcommand(
        "bench", "time neighbour modules on the same case from the same initial state "
                 "(markdown on stdout, CSV to a file)");
    add_case(bench, o);
    add_bench_timing(bench, o);
    add_bench_variants(bench, o, v);
    add_dp(bench, v);
    add_physics_overrides(bench, v);
    add_backend(bench, v);
    add_balance_interval(bench, v);
    add_process_count(bench, v);
    bench
        ->add_option("--end-time", v.end_time,
                     "develop the flow to this simulated time in s first (untimed, with the "
                     "case's module), then time every module from there")
        ->check(positive_number)
        ->type_name("T");
    bench
        ->add_option("--from-state", v.from_state,
                     "time every module from a checkpoint: a .chk file or a run folder (its "
                     "newest checkpoint)")
        ->type_name("CHK|DIR");
    bench
        ->add_option("--out", v.out_dir,
                     "with --output-interval: keep the snapshots in DIR (default: a temporary "
                     "folder, removed afterwards)")
        ->type_name("DIR");
    add_output_options(bench, v);
    bench->add_flag("--gauges", o.bench_gauges,
                    "time every module a second time with the case's <gauges> sampled after "
                    "every step, and report their cost");
}

void add_tune(CLI::App& app, Options& o, ParsedValues& v) {
    CLI::App* tune = app.add_subcommand(
        "tune", "time every neighbour module (or --modules) for a few steps of the case from its "
                "initial state and print the ranking and the fastest module's spelling");
    add_case(tune, o);
    tune->add_option("--steps", v.tune_steps,
                     "timed steps per module (the median counts), after 2 "
                     "warm-up steps")
        ->check(step_count)
        ->capture_default_str()
        ->type_name("N");
    tune->add_option("--modules", v.tune_modules,
                     "'all' (every construction x query x layout x bin width 1, 0.5, 1/3: 76 "
                     "modules), 'reorder' or 'index', or a comma-separated list of C/Q/W[/L]")
        ->check(parsed_by([](const std::string& t) { parse_module_list(t); }))
        ->capture_default_str()
        ->type_name("all|LIST");
    add_dp(tune, v);
    add_backend(tune, v);
}

/// Parses argv into the options `app` binds.
/// \throws HelpShown, UsageError as parse_options.
void parse_into(CLI::App& app, int argc, char** argv) {
    // CLI11 would answer an unknown command with "A subcommand is required".
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "run" && first != "check" &&
        first != "bench" && first != "tune" && first != "surface" && first != "measure")
        throw UsageError("unknown command '" + std::string(argv[1]) +
                         "' (valid: run, check, bench, tune, surface, measure)");
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
}

/// Copies into `o` the values of the options given to `command` (the one parsed); what was not
/// given stays unset, for the case to decide.
/// --gpus without --backend chooses cuda in `v`.
/// \throws UsageError for bench --end-time with --from-state.
void take_given(const CLI::App& command, ParsedValues& v, Options& o) {
    auto given = [&](const char* name) {
        const CLI::Option* option = command.get_option_no_throw(name);
        return option != nullptr && option->count() > 0;
    };
    if (given("--out"))
        o.out = v.out_dir;
    if (given("--end-time"))
        o.end_time = v.end_time;
    if (given("--dp"))
        o.dp = v.dp;
    if (given("--coef-sound"))
        o.coef_sound = v.coef_sound;
    if (given("--boundary"))
        o.physics.boundary = v.boundary == "mdbc" ? BoundaryKind::mdbc : BoundaryKind::dbc;
    if (given("--shifting"))
        o.physics.shifting = v.shifting == "fickian" ? ShiftingKind::fickian : ShiftingKind::none;
    if (given("--formulation"))
        o.physics.formulation =
            v.formulation == "riemann" ? FormulationKind::riemann : FormulationKind::classical;
    if (given("--diffusion")) {
        for (DensityDiffusionKind d :
             {DensityDiffusionKind::none, DensityDiffusionKind::molteni,
              DensityDiffusionKind::fourtakas, DensityDiffusionKind::antuono})
            if (v.diffusion == to_string(d))
                o.physics.diffusion = d;
    }
    if (given("--checkpoint-interval"))
        o.checkpoint_interval = v.checkpoint_interval;
    if (given("--restart"))
        o.restart = v.restart_dir;
    if (o.discard_newer && !o.restart)
        throw UsageError("--discard-newer goes with --restart DIR (it drops what DIR holds after "
                         "the checkpoint a restart continues from)",
                         "run");
    if (given("--max-loss"))
        o.max_loss = v.max_loss;
    if (given("--from-state"))
        o.from_state = v.from_state;
    if (o.command == "bench" && o.end_time && o.from_state)
        throw UsageError("--end-time and --from-state both choose the state to time from; give one",
                         "bench");
    if (given("--neighbours")) {
        if (v.neighbours_text == "auto")
            o.neighbours_auto = true;
        else
            o.neighbours = parse_neighbour_module(v.neighbours_text);
    }
    if (given("--output-interval"))
        o.output_interval = v.output_interval;
    if (given("--compressor"))
        o.compressor = parse_compressor(v.compressor);
    if (given("--compression-level"))
        o.compression_level = v.compression_level;
    if (given("--fields"))
        o.fields = v.fields;
    if (given("--boundary-output"))
        o.boundary_only_first = v.boundary_output == "first";
    if (given("--writers"))
        o.writers = v.writers;
    if (given("--balance-interval"))
        o.balance_interval = v.balance_interval;
    if (given("--processes"))
        o.processes = v.processes;
    if (given("--gpus")) {
        o.processes = v.gpus;
        o.gpus = true;
        if (!given("--backend"))
            v.backend_name = "cuda";
    }
}

/// Turns the validated choice names (--backend and bench's kernel variants) into their enums.
void take_choices(const ParsedValues& v, Options& o) {
    o.backend = v.backend_name == "cuda" ? Backend::cuda : Backend::cpu;
    o.interaction = v.interaction == "queued"    ? CudaInteraction::queued
                    : v.interaction == "in-step" ? CudaInteraction::in_step
                    : v.interaction == "direct"  ? CudaInteraction::direct
                                                 : CudaInteraction::adaptive;
    o.corrector = v.corrector == "rebuild" ? CorrectorNeighbours::rebuild
                  : v.corrector == "reuse" ? CorrectorNeighbours::reuse
                                           : CorrectorNeighbours::lists;
    o.compute_dry_walls = v.dry_walls == "compute";
}

} // namespace

Options parse_options(int argc, char** argv) {
    Options o;
    o.arguments.assign(argv, argv + argc);
    ParsedValues v;
    v.backend_name = o.backend == Backend::cuda ? "cuda" : "cpu";
    CLI::App app(program_description, "sluice");
    app.set_version_flag("--version", std::string("sluice ") + SLUICE_VERSION);
    app.require_subcommand(1, 1);
    app.fallthrough(false);
    add_run(app, o, v);
    add_check(app, o, v);
    add_bench(app, o, v);
    add_tune(app, o, v);
    add_series_commands(app, o, v.backend_name);
    parse_into(app, argc, argv);

    const CLI::App& command = *app.get_subcommands().front();
    o.command = command.get_name();
    if (o.command == "tune") {
        o.steps = v.tune_steps;
        o.modules = v.tune_modules;
    }
    take_given(command, v, o);
    take_choices(v, o);
    return o;
}

} // namespace sluice
