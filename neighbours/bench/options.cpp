#include "options.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace sluice::bench {

namespace {

const char* const description =
    "neighbours_bench: times every GPU neighbour module (construction x query x binWidth x "
    "layout) on synthetic data sets, in one process. For each dimension x size x distribution x "
    "neighbour count: construction time of each construction (from shuffled and from presorted "
    "input, split into stages), query time of each traversal for two workloads (counting "
    "neighbours; the Circles force update, thesis Alg. 3), candidates and neighbours per "
    "particle. Search radius R = 1. Timing: CUDA events, warm-up, median of the repetitions. "
    "Output: markdown tables on stdout, one CSV row per module and configuration "
    "(neighbours/BENCHMARK.md).";

/// "a,b,,c" → {"a", "b", "c"} (empty items skipped).
std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

/// Each item of a comma-separated list through `parse` (which throws on a bad item).
template <class ParserT>
auto parse_list(const std::string& text, ParserT parse) {
    std::vector<decltype(parse(std::string()))> out;
    for (const std::string& item : split(text))
        out.push_back(parse(item));
    if (out.empty())
        throw std::invalid_argument("expects a comma-separated list, got '" + text + "'");
    return out;
}

/// A CLI11 check that every item of the list parses; CLI11 prefixes the option's name.
template <class ParserT>
CLI::Validator list_of(ParserT parse) {
    return CLI::Validator(
        [parse](const std::string& text) -> std::string {
            try {
                parse_list(text, parse);
            } catch (const std::exception& e) {
                return e.what();
            }
            return {};
        },
        "");
}

std::uint32_t parse_size(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v) || v < 1.0 || v > 4294967295.0)
        throw std::invalid_argument("expects particle counts in [1, 2^32) such as 1e6, got '" +
                                    text + "'");
    return static_cast<std::uint32_t>(v);
}

int parse_dim(const std::string& text) {
    if (text != "2" && text != "3")
        throw std::invalid_argument("dimensions are 2 or 3, got '" + text + "'");
    return std::stoi(text);
}

std::string parse_dist(const std::string& text) {
    if (text != "circles-0" && text != "circles-200" && text != "lattice")
        throw std::invalid_argument("unknown distribution '" + text +
                                    "' (valid: circles-0, circles-200, lattice)");
    return text;
}

int parse_count(const std::string& text) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (*end != '\0' || v < 1 || v > 100000)
        throw std::invalid_argument("expects whole neighbour counts >= 1, got '" + text + "'");
    return static_cast<int>(v);
}

/// A list option: parsed with `parse` as soon as it is read, so that a later option (or --quick)
/// replaces an earlier one, as on the command line.
template <class T, class ParserT>
void add_list(CLI::App& app, const std::string& name, std::vector<T>& target, ParserT parse,
              const std::string& help) {
    app.add_option_function<std::string>(
           name, [&target, parse](const std::string& text) { target = parse_list(text, parse); },
           help)
        ->type_name("LIST")
        ->check(list_of(parse))
        ->trigger_on_parse();
}

void add_selection_options(CLI::App& app, Options& o) {
    add_list(app, "--sizes", o.sizes, parse_size,
             "particle counts per data set, e.g. 1e6 (default 1e5,1e6,4e6; a lattice has "
             "round(n^(1/D))^D particles)");
    add_list(app, "--dims", o.dims, parse_dim, "dimensions: 2, 3 or 2,3 (default 2,3)");
    add_list(app, "--dists", o.dists, parse_dist,
             "distributions: circles-0 (uniform random), circles-200 (after the Circles steps: "
             "clustered; also adds the circles-run rows, query time averaged over the steps), "
             "lattice (jittered SPH lattice) (default all three)");
    add_list(app, "--neighbours", o.neighbours, parse_count,
             "mean neighbours per particle within R, which set each data set's density "
             "(default 40,100)");
    add_list(
        app, "--widths", o.widths, [](const std::string& t) { return parse_bin_width(t); },
        "bin widths, bin edge / R, each in (0, 1] (default 1,0.5,0.333333)");
    add_list(
        app, "--constructions", o.constructions,
        [](const std::string& t) { return parse_construction(t); },
        "counting-sort,radix-sort,linked-list,linked-list-packed,linked-list-tight (default "
        "all five)");
    add_list(
        app, "--queries", o.queries, [](const std::string& t) { return parse_query(t); },
        "moore,strips,chords,modular,hybrid (default all five)");
    add_list(
        app, "--layouts", o.layouts, [](const std::string& t) { return parse_layout(t); },
        "reorder,index (default both): reorder queries particles in bin order over the "
        "sorted copy; index queries them in a random order (the shuffled input, as agents "
        "created at random places are) through the permutation (PBM constructions) or the "
        "lists (the linked lists, index only)");
    app.add_flag_function(
           "--quick",
           [&o](std::int64_t) {
               o.sizes = {1000000};
               o.dims = {3};
               o.neighbours = {100};
           },
           "--sizes 1e6 --dims 3 --neighbours 100 (a few-minute run); a later --sizes, --dims "
           "or --neighbours still applies")
        ->trigger_on_parse();
}

const CLI::Validator block_size(
    [](const std::string& text) -> std::string {
        char* end = nullptr;
        const long v = std::strtol(text.c_str(), &end, 10);
        if (*end != '\0' || v < 32 || v > 512 || v % 32)
            return "expects a multiple of 32 in [32, 512], got '" + text + "'";
        return {};
    },
    "");

} // namespace

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
    Options o;
    CLI::App app(description, "neighbours_bench");
    add_selection_options(app, o);
    bool no_flush = false;
    app.add_option("--reps", o.timing.reps,
                   "timed repetitions per measurement; the median is "
                   "reported (default 20)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--warmup", o.timing.warmup, "untimed runs before the timed ones (default 3)")
        ->type_name("N")
        ->check(CLI::Range(0, 1000000));
    app.add_option("--steps", o.circles_steps,
                   "Circles model steps from circles-0 to circles-200, and of the circles-run "
                   "rows (default 200)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--block", o.block, "threads per block of the query kernels (default 128)")
        ->type_name("N")
        ->check(block_size);
    app.add_flag("--no-flush", no_flush,
                 "do not flush the L2 cache (a memset of twice its size) before each timed run");
    app.add_flag("--collisions", o.collisions,
                 "run Barbieri et al.'s collision benchmark instead (papers/004 Fig. 2: "
                 "particles falling in a box of 64^3 cells of one diameter, moore/1 of each "
                 "selected construction and layout); sizes from --collision-sizes");
    add_list(app, "--collision-sizes", o.collision_sizes, parse_size,
             "particle counts of --collisions (default 8192,...,524288: the paper's 2^13-2^19; "
             "at 2^20 a module's run takes minutes)");
    app.add_option("--collision-steps", o.collision_steps,
                   "time steps of each --collisions run (default 2000, the paper's)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_flag("--tune", o.tune,
                 "time the Circles query at block sizes 64..512 and both L1 carveouts, then exit");
    app.add_option("--csv", o.csv,
                   "CSV output, rewritten after every configuration (default "
                   "neighbours_bench.csv)")
        ->type_name("FILE");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        exit_code = app.exit(e) == 0 ? 0 : 1; // --help prints the help and is no error
        return std::nullopt;
    }
    o.timing.flush_l2 = !no_flush;
    exit_code = 0;
    return o;
}

} // namespace sluice::bench
