#include "io/summary.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

namespace sluice {

namespace {

using Json = nlohmann::ordered_json;

/// JSON has no NaN or infinity: those become null.
Json number(double x) {
    return std::isfinite(x) ? Json(x) : Json(nullptr);
}

Json counts(const ParticleCounts& c) {
    return Json{{"fluid", c.fluid}, {"boundary", c.boundary}, {"excluded", c.excluded}};
}

Json losses(const LossSummary& l) {
    return Json{{"fluid", l.fluid},
                {"fluid_at_start", l.fluid_at_start},
                {"fluid_percent", number(l.fluid_percent)},
                {"boundary", l.boundary},
                {"max_fluid_percent", number(l.max_fluid_percent)},
                {"exceeded", l.exceeded}};
}

/// s spent in the step's own stages.
double step_seconds(const RunSummary& s) {
    double total = 0.0;
    for (const auto& [name, seconds] : s.stages)
        if (is_step_stage(name))
            total += seconds;
    return total;
}

double per_second(double count, double seconds) {
    return seconds > 0.0 ? count / seconds : std::nan("");
}

/// Stage → fraction of the wall time, then "other" (what no stage accounts for).
std::vector<std::pair<std::string, double>> wall_shares(const RunSummary& s) {
    std::vector<std::pair<std::string, double>> shares;
    double accounted = 0.0;
    for (const auto& [name, seconds] : s.stages) {
        shares.emplace_back(name, s.wall_time > 0.0 ? seconds / s.wall_time : std::nan(""));
        accounted += seconds;
    }
    shares.emplace_back("other", s.wall_time > 0.0 ? std::max(0.0, 1.0 - accounted / s.wall_time)
                                                   : std::nan(""));
    return shares;
}

} // namespace

bool is_step_stage(const std::string& name) {
    return name == "construction" || name == "reorder" || name == "interaction" ||
           name == "integration" || name == "checks" || name == "halo" || name == "migration" ||
           name == "waiting" || name == "boundary";
}

std::string performance_lines(const RunSummary& s) {
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line,
                  "sluice: %.4g M particle-steps in %.3g s wall: %.1f M particle-steps/s (the "
                  "step alone: %.1f M/s)\n",
                  1e-6 * s.particle_steps, s.wall_time,
                  1e-6 * per_second(s.particle_steps, s.wall_time),
                  1e-6 * per_second(s.particle_steps, step_seconds(s)));
    out << line << "sluice: share of the wall time:";
    bool first = true;
    for (const auto& [name, share] : wall_shares(s)) {
        std::snprintf(line, sizeof line, "%s %s %.1f %%", first ? "" : ",",
                      name == "output" ? "output wait" : name.c_str(), 100.0 * share);
        out << line;
        first = false;
    }
    out << "\n";
    return out.str();
}

std::string decomposition_lines(const RunSummary& s) {
    if (!s.decomposition)
        return "";
    std::ostringstream out;
    char line[320];
    const DecompositionSummary& d = *s.decomposition;
    for (std::size_t r = 0; r < d.processes.size(); ++r) {
        const ProcessSummary& p = d.processes[r];
        double step = 0.0, halo = 0.0, migration = 0.0, waiting = 0.0;
        for (const auto& [name, seconds] : p.stages) {
            if (is_step_stage(name))
                step += seconds;
            if (name == "halo")
                halo = seconds;
            if (name == "migration")
                migration = seconds;
            if (name == "waiting")
                waiting = seconds;
        }
        const double share = step > 0.0 ? 100.0 / step : 0.0;
        std::snprintf(line, sizeof line,
                      "sluice: process %zu: %llu fluid + %llu boundary, %s in [%.4g, %.4g) m; step "
                      "%.3g s: halo %.1f %%, migration %.1f %%, waiting %.1f %%\n",
                      r, static_cast<unsigned long long>(p.final_counts.fluid),
                      static_cast<unsigned long long>(p.final_counts.boundary), d.axis.c_str(),
                      p.slab_lower, p.slab_upper, step, halo * share, migration * share,
                      waiting * share);
        out << line;
    }
    if (!d.balance_history.empty())
        out << "sluice: load balancing moved the faces " << d.balance_history.size()
            << " time(s)\n";
    return out.str();
}

void write_summary_json(const std::filesystem::path& path, const RunSummary& s) {
    Json stages = Json::object();
    for (const auto& [name, seconds] : s.stages)
        stages[name] = number(seconds);
    Json j = {{"case", s.case_name},
              {"case_file", s.case_file},
              {"backend", s.backend},
              {"neighbour_module", s.neighbour_module},
              {"status", s.status},
              {"failure", s.failure},
              {"particles", {{"initial", counts(s.initial)}, {"final", counts(s.final_counts)}}},
              {"lost_particles", losses(s.losses)},
              {"steps", s.steps},
              {"simulated_time_s", number(s.simulated_time)},
              {"end_time_s", number(s.end_time)},
              {"wall_time_s", number(s.wall_time)},
              {"stages_s", stages},
              {"snapshots", s.snapshots},
              {"h_m", number(s.smoothing_length)},
              {"c0_m_per_s", number(s.speed_of_sound)},
              {"dp_m", number(s.dp)},
              {"checkpoints", s.checkpoints},
              {"restart", s.restart_file.empty() ? Json(nullptr)
                                                 : Json{{"file", s.restart_file},
                                                        {"time_s", number(s.restart_time)},
                                                        {"step", s.restart_step},
                                                        {"processes", s.restart_processes}}}};
    Json shares = Json::object();
    for (const auto& [name, share] : wall_shares(s))
        shares[name] = number(share);
    j["output"] = {{"compressor", s.output.compressor},
                   {"level", s.output.level},
                   {"fields", s.output.fields},
                   {"boundary", s.output.boundary},
                   {"writers", s.output.writers},
                   {"bytes", s.output.bytes},
                   {"writer_thread_s", number(s.output.writer_thread_seconds)}};
    if (s.tuning) {
        Json ranking = Json::array();
        for (const TuningSummary::Entry& e : s.tuning->ranking)
            ranking.push_back({{"module", e.module}, {"ms_per_step", number(e.ms_per_step)}});
        j["neighbour_tuning"] = {{"chosen", s.tuning->ranking.empty()
                                                ? Json(nullptr)
                                                : Json(s.tuning->ranking[0].module)},
                                 {"seconds", number(s.tuning->seconds)},
                                 {"steps", s.tuning->steps},
                                 {"ranking", ranking},
                                 {"not_timed", s.tuning->not_timed}};
    } else {
        j["neighbour_tuning"] = nullptr;
    }
    j["kept_lists"] = s.kept_lists ? Json{{"kept_steps", s.kept_lists->kept_steps},
                                          {"walked_steps", s.kept_lists->walked_steps}}
                                   : Json(nullptr);
    j["performance"] = {
        {"particle_steps", number(s.particle_steps)},
        {"million_particle_steps_per_s", number(1e-6 * per_second(s.particle_steps, s.wall_time))},
        {"step_million_particle_steps_per_s",
         number(1e-6 * per_second(s.particle_steps, step_seconds(s)))},
        {"wall_share", shares}};
    if (s.decomposition) {
        const DecompositionSummary& d = *s.decomposition;
        Json per_process = Json::array();
        for (std::size_t r = 0; r < d.processes.size(); ++r) {
            const ProcessSummary& p = d.processes[r];
            Json st = Json::object();
            for (const auto& [name, seconds] : p.stages)
                st[name] = number(seconds);
            per_process.push_back({{"rank", r},
                                   {"particles", counts(p.final_counts)},
                                   {"slab_m", {number(p.slab_lower), number(p.slab_upper)}},
                                   {"stages_s", st}});
        }
        Json history = Json::array();
        for (const auto& [step, faces] : d.balance_history) {
            Json f = Json::array();
            for (const double x : faces)
                f.push_back(number(x));
            history.push_back({{"step", step}, {"faces_m", f}});
        }
        Json faces = Json::array();
        for (const double x : d.faces)
            faces.push_back(number(x));
        j["decomposition"] = {{"processes", d.processes.size()},      {"axis", d.axis},
                              {"halo_width_m", number(d.halo_width)}, {"faces_m", faces},
                              {"balance_history", history},           {"per_process", per_process}};
    } else {
        j["decomposition"] = nullptr;
    }
    j["version"] = s.version;
    j["command_line"] = s.command_line;
    // Bytes that are not UTF-8 (a case file name, say) are replaced rather than refused.
    write_file_atomically(path, j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

} // namespace sluice
