#include "app/restart.h"

#include "app/collectives.h"
#include "app/command_line.h"
#include "io/newer_output.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <vector>

namespace sluice {

namespace {

/// Reads the newest usable checkpoint of case c in `directory` and checks that it belongs to
/// this case as configured now (same dp, integrator, dimension) and that time remains.
void check_restart(const Case& c, const Checkpoint& k) {
    if (std::abs(k.dp - c.dp) > 1e-12 * c.dp)
        throw UsageError("--restart: the checkpoint was written with dp = " + std::to_string(k.dp) +
                             " m, the case now has dp = " + std::to_string(c.dp) +
                             " m; a restart continues the same particles",
                         "run");
    if (k.integrator != to_string(c.physics.integrator))
        throw UsageError("--restart: the checkpoint was written by the " + k.integrator +
                             " integrator, the case now uses " + to_string(c.physics.integrator),
                         "run");
    if (k.state.dimension != c.dimension)
        throw UsageError("--restart: the checkpoint is of a " + std::to_string(k.state.dimension) +
                             "D case",
                         "run");
    if (k.state.time >= c.run.end_time - 1e-12 * c.run.end_time) {
        std::ostringstream msg;
        msg << "--restart: the checkpoint is at t = " << k.state.time
            << " s, already at the end time " << c.run.end_time
            << " s; give a later --end-time to continue";
        throw UsageError(msg.str(), "run");
    }
}

Restart load_restart(const Case& c, const std::string& directory) {
    std::vector<std::string> warnings;
    Restart r{read_latest_checkpoint(directory, c.name, warnings), directory};
    for (const std::string& w : warnings)
        std::cerr << "sluice: warning: " << w << "\n";
    check_restart(c, r.checkpoint);
    return r;
}

Restart load_regrouped_restart(const Case& c, const std::string& directory,
                               const Communicator* comm);

/// A run over several processes: the newest checkpoint step that every process wrote and
/// reads, each process's own file of it (load_restart's checks), when as many processes wrote it;
/// else, or when none reads, load_regrouped_restart.
Restart load_restart_piece(const Case& c, const std::string& directory, const Communicator& comm) {
    const std::uint32_t rank = static_cast<std::uint32_t>(comm.rank());
    std::vector<double> mine;
    for (const std::uint64_t step : list_process_checkpoints(directory, c.name, rank))
        mine.push_back(static_cast<double>(step));
    const std::vector<std::vector<double>> each = gather_values(comm, mine);
    std::vector<double> common = each.front();
    for (const std::vector<double>& steps : each) {
        std::vector<double> both;
        std::set_intersection(common.begin(), common.end(), steps.begin(), steps.end(),
                              std::back_inserter(both));
        common.swap(both);
    }
    for (auto step = common.rbegin(); step != common.rend(); ++step) {
        const std::filesystem::path path =
            checkpoint_path(directory, c.name, static_cast<std::uint64_t>(*step), rank);
        std::optional<Checkpoint> k;
        std::string why;
        try {
            k = read_checkpoint(path);
        } catch (const CheckpointError& e) {
            why = e.what();
        }
        if (!why.empty())
            std::cerr << "sluice[process " << rank << "]: warning: " << why
                      << "; trying an older one\n";
        if (comm.min(k ? 1.0 : 0.0) == 0.0) // one unreadable piece spoils the step
            continue;
        if (k->processes != static_cast<std::uint32_t>(comm.size())) // an older, other run's
            return load_regrouped_restart(c, directory, &comm);
        check_restart(c, *k);
        return Restart{std::move(*k), directory};
    }
    // No step that this many processes wrote reads: any other (a newer one's pieces are damaged,
    // an older run had another number of processes), regrouped.
    return load_regrouped_restart(c, directory, &comm);
}

/// A restart under another number of processes than wrote the newest checkpoint (one process
/// among them): every process reads the whole run's state, each piece merged
/// (read_latest_whole_checkpoint), and over several processes keeps its slab of a fresh cut by
/// estimated work (split_state), as a run's start does.
Restart load_regrouped_restart(const Case& c, const std::string& directory,
                               const Communicator* comm) {
    std::vector<std::string> warnings;
    Restart r{read_latest_whole_checkpoint(directory, c.name, warnings), directory};
    if (!comm || comm->is_root())
        for (const std::string& w : warnings)
            std::cerr << "sluice: warning: " << w << "\n";
    check_restart(c, r.checkpoint);
    Checkpoint& k = r.checkpoint;
    r.regrouped_from = k.processes;
    if (comm) {
        SlabStart piece = split_state(c, k.state, *comm);
        k.state = std::move(piece.state);
        k.slab_axis = piece.slabs.axis;
        k.slab_faces = piece.slabs.faces;
        k.total_particles = piece.total_particles;
        k.process = static_cast<std::uint32_t>(comm->rank());
        k.processes = static_cast<std::uint32_t>(comm->size());
    } else {
        k.process = 0;
        k.processes = 1;
        k.slab_faces.clear();
    }
    return r;
}

/// From the newest checkpoint's own pieces when as many processes wrote it as this run has,
/// else regrouped.
Restart load_newest_restart(const Case& c, const std::string& directory, const Communicator* comm) {
    const std::uint32_t wrote = newest_checkpoint_processes(directory, c.name);
    const std::uint32_t here = comm ? static_cast<std::uint32_t>(comm->size()) : 1;
    if (wrote != 0 && wrote != here)
        return load_regrouped_restart(c, directory, comm);
    return comm ? load_restart_piece(c, directory, *comm) : load_restart(c, directory);
}

/// Output in r's folder newer than its checkpoint: refused without `discard_newer`, else named
/// and its checkpoints removed (collective over several processes: each looks at the folder it
/// writes to; the first speaks).
void settle_newer_output(const Case& c, const Restart& r, bool discard_newer,
                         const Communicator* comm) {
    const Checkpoint& k = r.checkpoint;
    const NewerOutput newer =
        find_newer_output(r.directory, c.name, k.output_times.size(), k.state.time, k.state.steps);
    const bool any = comm ? comm->min(newer.empty() ? 1.0 : 0.0) == 0.0 : !newer.empty();
    if (!any)
        return;
    std::vector<std::string> lines = newer.describe();
    if (lines.empty()) // another process's folder
        lines.push_back("files of another process's pieces");
    std::ostringstream what;
    for (const std::string& line : lines)
        what << "\n  " << line;
    std::ostringstream from;
    from << "t = " << k.state.time << " s (step " << k.state.steps << ", "
         << k.source.filename().string() << ")";
    if (!discard_newer)
        throw UsageError("--restart: the newest usable checkpoint is at " + from.str() + ", but " +
                             r.directory.string() +
                             " holds output written after it, which continuing from it would "
                             "drop:" +
                             what.str() +
                             "\ngive --discard-newer to continue from it and drop them (or "
                             "move them away first)",
                         "run");
    if (!comm || comm->is_root())
        std::cerr << "sluice: --discard-newer: continuing from " << from.str()
                  << "; dropping what was written after it:" << what.str() << "\n";
    if (comm)
        comm->barrier(); // every process has read its checkpoint
    remove_checkpoints_after(r.directory, c.name, k.state.steps);
    if (comm)
        comm->barrier();
}

} // namespace

Restart load_any_restart(const Case& c, const std::string& directory, const Communicator* comm,
                         bool discard_newer) {
    Restart r = load_newest_restart(c, directory, comm);
    settle_newer_output(c, r, discard_newer, comm);
    return r;
}

} // namespace sluice
