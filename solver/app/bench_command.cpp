// `sluice bench CASE.xml`: the command-line face of run_bench (bench.h).

#include "app/command_line.h"

#include "app/bench.h"

#include <iostream>

namespace sluice {

int bench_command(const Options& o) {
    BenchOptions b;
    b.case_path = o.case_path;
    b.steps = o.steps;
    b.modules = o.modules;
    b.dp = o.dp;
    b.csv_path = o.csv;
    b.backend = o.backend;
    b.cuda.interaction = o.interaction;
    b.end_time = o.end_time;
    b.from_state = o.from_state;
    b.output_interval = o.output_interval;
    b.output_dir = o.out;
    b.output = load_case(o).output; // <output> with the command line's overrides
    return run_bench(b, std::cout);
}

} // namespace sluice
