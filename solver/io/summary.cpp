#include "io/summary.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>

#include <cmath>

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

} // namespace

void write_summary_json(const std::filesystem::path& path, const RunSummary& s) {
    Json stages = Json::object();
    for (const auto& [name, seconds] : s.stages)
        stages[name] = number(seconds);
    const Json j = {
        {"case", s.case_name},
        {"case_file", s.case_file},
        {"backend", s.backend},
        {"neighbour_module", s.neighbour_module},
        {"status", s.status},
        {"failure", s.failure},
        {"particles", {{"initial", counts(s.initial)}, {"final", counts(s.final_counts)}}},
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
                                                  {"step", s.restart_step}}}};
    // Bytes that are not UTF-8 (a case file name, say) are replaced rather than refused.
    write_file_atomically(path, j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

} // namespace sluice
