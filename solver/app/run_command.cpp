// `sluice run CASE.xml`: simulates a case, writes the snapshot series and summary.json.
// Restart loading is app/restart.cpp, the run itself (its output, cadences and ends)
// app/run.h; this file makes the case, the restart, the tuning and the simulation for a Run.

#include "app/command_line.h"

#include "app/preflight.h"
#include "app/restart.h"
#include "app/run.h"
#include "app/tune.h"
#include "parallel/communicator.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

namespace sluice {

namespace {

/// --neighbours auto / <neighbours auto="true"/>: times the modules first (tune.h), within
/// about 10 s, and puts the fastest in c.
TuneReport choose_module(Case& c, Backend backend, const std::optional<Restart>& restart) {
    TuneOptions t;
    t.modules = tune_candidates();
    t.steps = 5;
    t.time_limit = 10.0;
    t.backend = backend;
    std::cout << "sluice: choosing the neighbour module (auto): " << t.modules.size()
              << " modules, " << t.warmup_steps << " + " << t.steps << " steps each, at most about "
              << *t.time_limit << " s\n"
              << std::flush;
    TuneReport tuning =
        restart ? tune_neighbours(c, t, restart->checkpoint.state) : tune_neighbours(c, t);
    c.neighbours = tuning.ranking.front().module;
    std::cout << "sluice: fastest of " << tuning.ranking.size() << ": "
              << tuning.ranking.front().module.name() << " (" << tuning.ranking.front().ms_per_step
              << " ms/step";
    if (tuning.ranking.size() > 1)
        std::cout << "; next " << tuning.ranking[1].module.name() << ", "
                  << tuning.ranking[1].ms_per_step << " ms/step";
    std::cout << "), chosen in " << tuning.seconds << " s\n";
    return tuning;
}

std::unique_ptr<Simulation> start_simulation(const Case& c, Backend backend,
                                             const Communicator* comm,
                                             const std::optional<Restart>& restart) {
    if (comm && restart) {
        const Checkpoint& k = restart->checkpoint;
        return make_simulation(c, backend, *comm, k.state,
                               slabs_with_faces(k.slab_axis, k.slab_faces, 0.0, 0.0),
                               k.total_particles);
    }
    if (comm)
        return make_simulation(c, backend, *comm);
    return restart ? make_simulation(c, backend, restart->checkpoint.state)
                   : make_simulation(c, backend);
}
} // namespace

int run_command(const Options& o) {
    Case c = load_case(o);
    // Several processes (mpirun): each owns a slab of the domain (DESIGN.md, Scale-out).
    const std::unique_ptr<Communicator> comm = Communicator::world();
    if (comm && c.neighbours_auto)
        throw UsageError("--neighbours auto is not available in a run over several processes "
                         "yet; run it in one process, or leave it out",
                         "run");
    if (o.restart) {
        if (o.out && *o.out != *o.restart)
            throw UsageError("--restart DIR continues the run in DIR; give no other --out", "run");
        c.run.output_dir = *o.restart;
    }
    if (o.checkpoint_interval)
        c.run.checkpoint_interval = *o.checkpoint_interval;
    const auto wall_start = Run::Clock::now();
    std::optional<Restart> restart;
    if (o.restart)
        restart = load_any_restart(c, *o.restart, comm.get(), o.discard_newer);
    else
        require_fits(preflight(c, o.backend), o.backend);
    std::optional<TuneReport> tuning;
    if (c.neighbours_auto)
        tuning = choose_module(c, o.backend, restart);
    std::unique_ptr<Simulation> sim = start_simulation(c, o.backend, comm.get(), restart);
    Run run(c, o, comm.get(), std::move(restart), std::move(tuning), std::move(sim), wall_start);
    return run.execute();
}

} // namespace sluice
