#include "app/tune.h"

#include "app/step_loop.h"
#include "case/particles.h"
#include "case/state_conversion.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>

namespace sluice {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

std::vector<NeighbourModule> tune_candidates() {
    // Likeliest first (a time limit may cut the list): the reorder layout, then index (the
    // linked lists last); within each, the traversals and widths that usually win.
    std::vector<NeighbourModule> modules;
    for (Layout layout : {Layout::reorder, Layout::index})
        for (Construction c : all_constructions)
            for (const QueryTag& q :
                 {QueryTag(StripsQuery{}), QueryTag(ChordsQuery{}), QueryTag(HybridQuery{}),
                  QueryTag(MooreQuery{}), QueryTag(ModularQuery{})})
                if (module_exists(c, q, layout))
                    for (float w : {1.0f / 3.0f, 0.5f, 1.0f})
                        if (bin_width_allowed(c, w))
                            modules.push_back({c, q, w, layout});
    return modules;
}

TuneReport tune_neighbours(const Case& c, const TuneOptions& options,
                           const std::optional<SimulationState>& state) {
    const auto start = Clock::now();
    // One set of particles for every module (generation can take longer than the timing).
    const SimulationState from = state ? *state : initial_state(generate_particles(c));
    TuneReport report;
    report.steps = options.steps;
    report.particles = from.size();
    for (const NeighbourModule& module : options.modules) {
        if (options.time_limit && seconds_since(start) > *options.time_limit) {
            report.not_timed.push_back(module);
            continue;
        }
        Case mc = c;
        mc.neighbours = module;
        std::unique_ptr<Simulation> sim = make_simulation(mc, options.backend, from);
        StepLoop loop(*sim); // no cadences: nothing but the steps is timed
        loop.advance_steps(static_cast<std::uint64_t>(options.warmup_steps));
        std::vector<double> ms;
        for (int k = 0; k < options.steps; ++k) {
            const auto t0 = Clock::now();
            loop.advance_steps(
                1); // returns once the step is done (the backends wait for the device)
            ms.push_back(1e3 * seconds_since(t0));
        }
        report.ranking.push_back({module, median(ms)});
    }
    std::stable_sort(report.ranking.begin(), report.ranking.end(),
                     [](const TuneReport::Entry& a, const TuneReport::Entry& b) {
                         return a.ms_per_step < b.ms_per_step;
                     });
    report.seconds = seconds_since(start);
    return report;
}

TuningSummary TuneReport::summary() const {
    TuningSummary s;
    for (const Entry& e : ranking)
        s.ranking.push_back({e.module.name(), e.ms_per_step});
    for (const NeighbourModule& m : not_timed)
        s.not_timed.push_back(m.name());
    s.steps = steps;
    s.seconds = seconds;
    s.particles = particles;
    return s;
}

void print_tune_report(std::ostream& out, const TuneReport& r) {
    const double particles = static_cast<double>(r.particles);
    out << "| rank | module | ms/step | M particle-steps/s | vs fastest |\n"
        << "|---:|---|---:|---:|---:|\n";
    char line[256];
    for (std::size_t k = 0; k < r.ranking.size(); ++k) {
        const TuneReport::Entry& e = r.ranking[k];
        std::snprintf(line, sizeof line, "| %zu | %s | %.3f | %.1f | %.2f× |\n", k + 1,
                      e.module.name().c_str(), e.ms_per_step, 1e-3 * particles / e.ms_per_step,
                      e.ms_per_step / r.ranking.front().ms_per_step);
        out << line;
    }
    if (!r.not_timed.empty()) {
        out << "\nnot timed (the time limit was reached first):";
        for (const NeighbourModule& m : r.not_timed)
            out << ' ' << m.name();
        out << '\n';
    }
    std::snprintf(line, sizeof line,
                  "\n%zu modules, median of %d steps each after warm-up, in %.1f s.\n",
                  r.ranking.size(), r.steps, r.seconds);
    out << line;
    if (r.ranking.empty())
        return;
    const NeighbourModule& best = r.ranking.front().module;
    out << "fastest: " << best.name() << "\nput it in the case: <neighbours construction=\""
        << construction_name(best.construction) << "\" query=\"" << query_name(best.query)
        << "\" binWidth=\"" << best.bin_width << "\""
        << (best.layout == Layout::index ? " layout=\"index\"" : "")
        << "/>  (or run with --neighbours " << best.name() << ")\n";
}

} // namespace sluice
