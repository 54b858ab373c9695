#pragma once
/// \file options.h
/// neighbours_bench's command line (`neighbours_bench --help` lists it with units).

#include "module.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace sluice::bench {

/// How a measurement is repeated (timing.cuh).
struct TimingOptions {
    int reps = 20;        ///< timed runs; the median is reported (>= 1)
    int warmup = 3;       ///< untimed runs before them (>= 0)
    bool flush_l2 = true; ///< the L2 cache flushed before each timed run
};

struct Options {
    std::vector<std::uint32_t> sizes = {100000, 1000000, 4000000}; ///< particles per data set
    std::vector<int> dims = {2, 3};
    /// circles-0, circles-200 (also adds the circles-run rows), lattice (data_sets.h)
    std::vector<std::string> dists = {"circles-0", "circles-200", "lattice"};
    std::vector<int> neighbours = {40, 100};               ///< target mean neighbours per particle
    std::vector<float> widths = {1.0f, 0.5f, 1.0f / 3.0f}; ///< bin edge / search radius R
    std::vector<Construction> constructions = {std::begin(all_constructions),
                                               std::end(all_constructions)};
    std::vector<Layout> layouts = {Layout::reorder, Layout::index};
    std::vector<QueryTag> queries = {MooreQuery{}, StripsQuery{}, ChordsQuery{}, ModularQuery{},
                                     HybridQuery{}};
    TimingOptions timing;
    int circles_steps = 200; ///< Circles steps from circles-0 to circles-200
    int block = 128;         ///< threads per block of the query kernels: 32..512, a multiple of 32
    bool tune = false;       ///< time block sizes and carveouts, then exit
    /// Barbieri et al.'s collision benchmark instead of the data sets (collisions_run.cuh):
    /// its particle counts (2^13 … 2^19; 2^20 took minutes per module, collisions_run.cuh)
    /// and steps.
    bool collisions = false;
    std::vector<std::uint32_t> collision_sizes = {8192,   16384,  32768, 65536,
                                                  131072, 262144, 524288};
    int collision_steps = 2000;
    std::string csv = "neighbours_bench.csv";
};

/// Parses the command line. Returns the options, or nothing after printing the help (--help)
/// or a message on a bad command line to the matching stream; `exit_code` is then what the
/// program returns (0 for --help, 1 for an error).
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

} // namespace sluice::bench
