// `sluice bench CASE.xml`: the command-line face of run_bench (bench.h).

#include "app/command_line.h"

#include "app/bench.h"
#include "app/preflight.h"

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
    Options as_run = o; // the case as bench will load it (bench.h: case file and --dp)
    require_fits(preflight(load_case(as_run), o.backend), o.backend);
    return run_bench(b, std::cout);
}

} // namespace sluice
