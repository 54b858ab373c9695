// `sluice bench CASE.xml`: the command-line face of run_bench (bench.h).

#include "app/command_line.h"

#include "app/bench.h"
#include "parallel/communicator.h"

#include <iostream>
#include <memory>
#include <stdexcept>

namespace sluice {

int bench_command(const Options& o) {
    BenchOptions b;
    b.case_path = o.case_path;
    b.steps = o.steps;
    b.warmup_steps = o.warmup_steps;
    b.modules = o.modules;
    b.dp = o.dp;
    b.physics = o.physics;
    b.coef_sound = o.coef_sound;
    b.balance_interval = o.balance_interval;
    b.csv_path = o.csv;
    b.backend = o.backend;
    b.cuda.interaction = o.interaction;
    b.cuda.corrector = o.corrector;
    b.cuda.skip_dry_walls = !o.compute_dry_walls;
    b.cuda.list_skin = o.list_skin;
    b.cuda.list_max_age = o.list_max_age;
    b.end_time = o.end_time;
    b.from_state = o.from_state;
    b.output_interval = o.output_interval;
    b.output_dir = o.out;
    b.gauges = o.bench_gauges;
    // <output> with the command line's overrides; the tank's lattice as run_bench reads it
    b.output = load_case(o, false).output;
    try {
        if (const std::unique_ptr<Communicator> comm = Communicator::world())
            return run_bench_processes(b, *comm, std::cout);
        return run_bench(b, std::cout);
    } catch (const std::invalid_argument& e) { // what the options asked for cannot be done
        throw UsageError(e.what(), "bench");
    }
}

} // namespace sluice
