// `mpirun -np N sluice bench CASE.xml`: bench.h's benchmark of a case split over several
// processes (DESIGN.md, Scale-out), with each process's time split.

#include "app/bench.h"

#include "app/step_loop.h"
#include "case/case_reader.h"
#include "io/checkpoint.h"
#include "parallel/communicator.h"
#include "parallel/slab_start.h"
#include "parallel/slabs.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace sluice {

namespace {

/// The stages of one process's step, in the order of the table.
constexpr const char* process_stages[] = {"construction", "reorder", "interaction", "integration",
                                          "checks",       "halo",    "migration",   "waiting"};
constexpr int process_stage_count = 8;

double seconds_of(const StageTimes& times, const std::string& name) {
    for (const auto& [stage, seconds] : times)
        if (stage == name)
            return seconds;
    return 0.0;
}

std::string fixed3(double v) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(3) << v;
    return s.str();
}

/// Every process's doubles, on every process.
std::vector<std::vector<double>> gather(const Communicator& comm, const std::vector<double>& mine) {
    std::vector<std::byte> bytes;
    ByteWriter w(bytes);
    for (const double v : mine)
        w.put(v);
    std::vector<std::vector<double>> out;
    for (const std::vector<std::byte>& b : comm.all_gather(bytes)) {
        ByteReader r(b);
        std::vector<double> v;
        while (!r.done())
            v.push_back(r.get<double>());
        out.push_back(std::move(v));
    }
    return out;
}

/// The positions of the whole run by id, from every process's piece.
std::map<std::uint32_t, std::array<float, 3>> gather_positions(const Communicator& comm,
                                                               const Snapshot& piece) {
    std::vector<double> mine;
    for (std::size_t i = 0; i < piece.size(); ++i)
        mine.insert(mine.end(), {double(piece.id[i]), double(piece.position[i][0]),
                                 double(piece.position[i][1]), double(piece.position[i][2])});
    std::map<std::uint32_t, std::array<float, 3>> out;
    for (const std::vector<double>& v : gather(comm, mine))
        for (std::size_t k = 0; k + 4 <= v.size(); k += 4)
            out[static_cast<std::uint32_t>(v[k])] = {static_cast<float>(v[k + 1]),
                                                     static_cast<float>(v[k + 2]),
                                                     static_cast<float>(v[k + 3])};
    return out;
}

/// One module's timing over every process (collective).
struct ProcessesResult {
    std::string module;
    double ms_per_step = 0.0; ///< wall, between barriers
    double mparticle_steps = 0.0;
    std::vector<std::vector<double>> processes; ///< particles, then ms/step per stage
    double max_dx_over_dp = 0.0;
    std::string faces;
    /// Timed steps whose passes read neighbour lists, and of those on an earlier step's build
    /// (kept lists; every process decides alike).
    double list_share = 0.0, kept_list_share = 0.0;
};

/// Times `module` on case c over comm (collective), from `start` (this process's piece of a
/// --from-state; null: t = 0); its final positions are compared with `reference` (the first
/// module's, set by the first call). `particles`: the run's total.
ProcessesResult time_module(const Case& c, const NeighbourModule& module,
                            const BenchOptions& options, const Communicator& comm,
                            const SlabStart* start,
                            std::map<std::uint32_t, std::array<float, 3>>& reference,
                            std::uint64_t& particles) {
    Case mc = c;
    mc.neighbours = module;
    // On GPUs with the bench's CUDA options (--interaction, --dry-walls).
    BackendOptions backend(options.backend);
    backend.cuda = options.cuda;
    const std::unique_ptr<Simulation> sim =
        start
            ? make_simulation(mc, backend, comm, start->state, start->slabs, start->total_particles)
            : make_simulation(mc, backend, comm);
    StepLoop loop(*sim);
    loop.advance_steps(static_cast<std::uint64_t>(options.warmup_steps));
    const StageTimes before = sim->stage_times();
    const BackendCounters counted = sim->counters();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    loop.advance_steps(static_cast<std::uint64_t>(options.steps));
    comm.barrier();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const StageTimes after = sim->stage_times();
    const ParticleCounts own = sim->counts();
    std::vector<double> mine = {static_cast<double>(own.fluid + own.boundary)};
    for (const char* stage : process_stages)
        mine.push_back(1e3 * (seconds_of(after, stage) - seconds_of(before, stage)) /
                       options.steps);
    ProcessesResult r;
    r.module = module.name();
    const BackendCounters counted_after = sim->counters();
    r.list_share =
        static_cast<double>(counted_after.corrector_list_steps - counted.corrector_list_steps) /
        options.steps;
    r.kept_list_share =
        static_cast<double>(counted_after.kept_list_steps - counted.kept_list_steps) /
        options.steps;
    r.processes = gather(comm, mine);
    particles = comm.sum(std::uint64_t{own.fluid + own.boundary + own.excluded});
    r.ms_per_step = 1e3 * comm.max(seconds) / options.steps;
    r.mparticle_steps = static_cast<double>(particles) * options.steps / comm.max(seconds) / 1e6;
    const SlabDecomposition d = *sim->decomposition();
    std::ostringstream faces;
    for (int k = 1; k < d.ranks(); ++k)
        faces << (k > 1 ? " " : "") << std::setprecision(4) << d.faces[static_cast<std::size_t>(k)];
    r.faces = faces.str();
    const auto positions = gather_positions(comm, sim->snapshot());
    if (reference.empty())
        reference = positions;
    for (const auto& [id, x] : positions) {
        const auto it = reference.find(id);
        if (it == reference.end()) {
            r.max_dx_over_dp = HUGE_VAL;
            continue;
        }
        for (int a = 0; a < 3; ++a)
            r.max_dx_over_dp =
                std::max<double>(r.max_dx_over_dp, std::fabs(x[a] - it->second[a]) / c.dp);
    }
    if (positions.size() != reference.size())
        r.max_dx_over_dp = HUGE_VAL;
    return r;
}

void print_processes_report(std::ostream& out, const Case& c, const BenchOptions& options,
                            const Communicator& comm, std::uint64_t particles,
                            const std::string& start_text,
                            const std::vector<ProcessesResult>& results) {
    out << "sluice bench: " << c.name << " (" << c.dimension << "D), " << particles
        << " particles over " << comm.size() << " processes ("
        << (options.backend == Backend::cuda ? "a GPU each" : "CPU backend") << "), "
        << to_string(c.physics.boundary) << " walls"
        << (c.physics.shifting == ShiftingKind::fickian ? ", fickian shifting" : "") << ", "
        << options.warmup_steps << " warm-up + " << options.steps << " timed steps from "
        << start_text << " per module, slabs balanced "
        << (c.run.balance_interval > 0
                ? "every " + std::to_string(c.run.balance_interval) + " steps"
                : std::string("never"))
        << "\n\n";
    for (const ProcessesResult& r : results) {
        out << "### " << r.module << ": " << fixed3(r.ms_per_step) << " ms/step, "
            << fixed3(r.mparticle_steps) << " M particle-steps/s, max dx/dp vs "
            << results.front().module << " = " << r.max_dx_over_dp
            << (r.max_dx_over_dp <= options.tolerance ? "" : " (DIFFERS)") << "; faces at "
            << r.faces << " m\n\n"
            << "| process | particles | construction | reorder | interaction | integration | "
               "checks | halo | migration | waiting |\n"
            << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        for (std::size_t p = 0; p < r.processes.size(); ++p) {
            out << "| " << p << " | " << static_cast<std::uint64_t>(r.processes[p][0]);
            for (int s = 0; s < process_stage_count; ++s)
                out << " | " << fixed3(r.processes[p][1 + static_cast<std::size_t>(s)]);
            out << " |\n";
        }
        out << "\n";
    }
    if (options.backend == Backend::cuda && c.physics.integrator == IntegratorKind::symplectic) {
        out << "Timed steps whose passes read the neighbour lists (and of those on an earlier "
               "step's build, kept lists: the particles stay in place between builds, the halo "
               "refreshed in place):";
        for (const ProcessesResult& r : results)
            out << ' ' << r.module << ' ' << fixed3(100.0 * r.list_share) << " % ("
                << fixed3(100.0 * r.kept_list_share) << " %)" << (&r == &results.back() ? "" : ",");
        out << ".\n";
    }
    out << "ms/step: the wall time of the timed steps (between barriers) over their number; a "
           "process's stages in ms per step (waiting: in the reductions over every process, "
           "mostly for the slowest).\n";
}

/// \throws std::runtime_error when `path` cannot be written.
void write_processes_csv(const std::string& csv_path, const Case& c, const Communicator& comm,
                         std::uint64_t particles, const std::vector<ProcessesResult>& results) {
    std::ofstream csv(csv_path);
    csv << "case,particles,processes,module,ms_per_step,mparticle_steps_per_s,max_dx_over_dp,"
           "process,process_particles";
    for (const char* stage : process_stages)
        csv << ',' << stage << "_ms";
    csv << '\n' << std::setprecision(9);
    for (const ProcessesResult& r : results)
        for (std::size_t p = 0; p < r.processes.size(); ++p) {
            csv << c.name << ',' << particles << ',' << comm.size() << ',' << r.module << ','
                << r.ms_per_step << ',' << r.mparticle_steps << ',' << r.max_dx_over_dp << ',' << p;
            for (const double v : r.processes[p])
                csv << ',' << v;
            csv << '\n';
        }
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + csv_path);
}

} // namespace

int run_bench_processes(const BenchOptions& options, const Communicator& comm, std::ostream& out) {
    if (options.steps < 1)
        throw std::invalid_argument("--steps expects a positive number of steps, got " +
                                    std::to_string(options.steps));
    if (options.end_time || options.output_interval || options.gauges)
        throw std::invalid_argument(
            "over several processes, 'sluice bench' times the steps from t = 0 or from a "
            "checkpoint (--from-state) without output or gauges: leave out --end-time, "
            "--output-interval and --gauges (or run it in one process)");
    const std::vector<NeighbourModule> modules = parse_module_list(options.modules);
    Case c = read_bench_case(options);
    if (options.balance_interval)
        c.run.balance_interval = *options.balance_interval;

    // --from-state: the whole run's state, cut afresh by estimated work (as a restart under
    // another process count).
    std::optional<SlabStart> start;
    std::string start_text = "t = 0";
    if (options.from_state) {
        std::vector<std::string> warnings;
        const Checkpoint k = read_bench_state(c, *options.from_state, warnings);
        if (comm.is_root())
            for (const std::string& w : warnings)
                out << "warning: " << w << "\n";
        start = split_state(c, k.state, comm);
        std::ostringstream text;
        text << "the checkpoint " << k.source.string() << " (t = " << k.state.time << " s)";
        start_text = text.str();
    }
    std::vector<ProcessesResult> results;
    std::map<std::uint32_t, std::array<float, 3>> reference;
    std::uint64_t particles = 0;
    for (const NeighbourModule& module : modules)
        results.push_back(
            time_module(c, module, options, comm, start ? &*start : nullptr, reference, particles));
    bool all_agree = true;
    for (const ProcessesResult& r : results)
        all_agree = all_agree && r.max_dx_over_dp <= options.tolerance;
    if (!comm.is_root())
        return all_agree ? 0 : 1;
    print_processes_report(out, c, options, comm, particles, start_text, results);
    const std::string csv_path =
        options.csv_path.empty() ? "bench_" + c.name + "_processes.csv" : options.csv_path;
    write_processes_csv(csv_path, c, comm, particles, results);
    out << "CSV: " << csv_path << "\n";
    return all_agree ? 0 : 1;
}

} // namespace sluice
