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
    return run_bench(b, std::cout);
}

} // namespace sluice
