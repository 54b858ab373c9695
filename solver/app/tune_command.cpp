// `sluice tune CASE.xml`: the command-line face of tune_neighbours (tune.h).

#include "app/command_line.h"

#include "app/bench.h"
#include "app/preflight.h"
#include "app/tune.h"

#include <iostream>

namespace sluice {

int tune_command(const Options& o) {
    const Case c = load_case(o);
    if (o.backend == Backend::cuda)
        require_cuda_device(); // BackendUnavailable with the reason
    require_fits(preflight(c, o.backend), o.backend);
    TuneOptions t;
    t.modules = parse_module_list(o.modules);
    t.steps = o.steps;
    t.backend = o.backend;
    std::cout << "sluice tune: " << c.name << " (" << c.dimension << "D) on "
              << (o.backend == Backend::cuda ? "cuda, " + cuda_device_name() : std::string("cpu"))
              << ": " << t.modules.size() << " modules, " << t.warmup_steps << " warm-up + "
              << t.steps << " timed steps each from the initial state\n\n"
              << std::flush;
    print_tune_report(std::cout, tune_neighbours(c, t));
    return exit_ok;
}

} // namespace sluice
