// A finished run read back: its case and series (open_run_folder) and the snapshot sampler
// (app/run_folder.h).

#include "app/run_folder.h"

#include "case/constants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace sluice {
namespace fs = std::filesystem;

namespace {

/// The case file summary.json names, found as given (relative to the working directory, where
/// the run is taken to have been started) or relative to the run folder's grandparent (a run
/// written to out/NAME from the folder that holds out/).
fs::path find_case_file(const fs::path& folder, const std::string& named) {
    std::error_code ec;
    const fs::path as_named(named);
    if (fs::is_regular_file(as_named, ec))
        return as_named;
    const fs::path beside = fs::absolute(folder, ec).parent_path().parent_path() / as_named;
    if (as_named.is_relative() && fs::is_regular_file(beside, ec))
        return beside;
    throw UsageError("the case file of the run in '" + folder.string() + "', '" + named +
                     "' (summary.json), is not found from here; give it with --case FILE");
}

/// The run's options from its command line (summary.json), the case path replaced by `case_path`.
Options run_options(const std::vector<std::string>& command_line, const fs::path& case_path,
                    const fs::path& summary) {
    std::vector<std::string> args = command_line;
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    Options o;
    try {
        o = parse_options(static_cast<int>(argv.size()), argv.data());
    } catch (const UsageError& e) {
        throw SeriesError("'" + summary.string() +
                          "': its command_line does not parse as a run's: " + e.what());
    } catch (const HelpShown&) {
        throw SeriesError("'" + summary.string() + "': its command_line is not a run's");
    }
    if (o.command != "run")
        throw SeriesError("'" + summary.string() + "': its command_line is a '" + o.command +
                          "', not a run");
    o.case_path = case_path.string();
    return o;
}

} // namespace

RunFolder open_run_folder(const SeriesOptions& o) {
    RunFolder run;
    run.folder = o.folder;
    std::error_code ec;
    if (!fs::is_directory(run.folder, ec))
        throw UsageError("'" + o.folder + "' is not a folder (give the output folder of a run)");
    const std::optional<RunRecord> record = read_run_record(run.folder);
    if (!record && !o.case_file)
        throw UsageError("'" + o.folder +
                         "' has no summary.json (written when a run ends): give the run's case "
                         "with --case FILE");
    if (record) {
        const fs::path case_path =
            o.case_file ? fs::path(*o.case_file) : find_case_file(run.folder, record->case_file);
        Options options = run_options(record->command_line, case_path, run.folder / "summary.json");
        run.run_case = load_case(options);
        run.speed_of_sound = record->speed_of_sound;
        run.smoothing_length = record->smoothing_length;
        const double h = smoothing_length(run.run_case);
        if (std::abs(h - record->smoothing_length) > 1e-9 * record->smoothing_length)
            throw SeriesError(
                "the case " + case_path.string() + " gives h = " + std::to_string(h) +
                " m, the run in '" + o.folder +
                "' had h = " + std::to_string(record->smoothing_length) +
                " m (summary.json): the case changed since the run; give its case with --case");
    } else {
        Options options;
        options.command = "run";
        options.case_path = *o.case_file;
        run.run_case = load_case(options);
        run.smoothing_length = smoothing_length(run.run_case);
    }
    run.series = read_series(run.folder / (run.run_case.name + ".pvd"));
    if (!record) { // c0 as the run derived it: from the extent of the fluid of the first snapshot
        const Snapshot first = read_snapshot(run.series.front().file);
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t i = 0; i < first.size(); ++i)
            if (first.type[i] == ParticleType::fluid) {
                lo = std::min<double>(lo, first.position[i][2]);
                hi = std::max<double>(hi, first.position[i][2]);
            }
        const double height = hi >= lo ? hi - lo + run.run_case.dp : 0.0;
        run.speed_of_sound = derive_constants(run.run_case, height).speed_of_sound;
    }
    return run;
}

std::vector<std::size_t> chosen_snapshots(const std::vector<SeriesEntry>& series,
                                          const SeriesOptions& o) {
    std::vector<std::size_t> out;
    if (o.time) {
        std::size_t best = 0;
        for (std::size_t k = 1; k < series.size(); ++k)
            if (std::abs(series[k].time - *o.time) < std::abs(series[best].time - *o.time))
                best = k;
        const double interval = series.size() > 1 ? (series.back().time - series.front().time) /
                                                        static_cast<double>(series.size() - 1)
                                                  : 0.0;
        if (std::abs(series[best].time - *o.time) > 0.5 * interval + 1e-12) {
            std::ostringstream why;
            why << "--time " << *o.time << " s is outside the series, which holds "
                << series.front().time << " … " << series.back().time << " s";
            throw UsageError(why.str());
        }
        out.push_back(best);
        return out;
    }
    for (std::size_t k = 0; k < series.size(); k += static_cast<std::size_t>(o.every))
        out.push_back(k);
    return out;
}

SnapshotSampler::SnapshotSampler(const RunFolder& run, Backend backend)
    : sampling_case_(run.run_case), backend_(backend) {
    Case& c = sampling_case_;
    c.tank.reset();
    c.obstacles.clear();
    c.damping.clear();
    c.gauges = {};
    c.physics.boundary = BoundaryKind::dbc;
    c.physics.shifting = ShiftingKind::none;
    c.constants.speed_of_sound = run.speed_of_sound; // the run's c0, for p(ρ) as the run had it
    c.neighbours_auto = false;
}

SnapshotSampler::~SnapshotSampler() = default;

double SnapshotSampler::support() const {
    return derive_constants(sampling_case_, 0.0).support;
}

void SnapshotSampler::load(const Snapshot& s, const fs::path& file) {
    simulation_.reset(); // its memory first: the next one takes as much
    const Case& c = sampling_case_;
    const DerivedConstants k = derive_constants(c, 0.0);
    const bool has_density = !s.density.empty();
    if (!has_density && s.pressure.empty())
        throw SeriesError("'" + file.string() +
                          "' has neither 'density' nor 'pressure': the kernel sums need one (the "
                          "run's <output fields>)");
    SimulationState state;
    state.dimension = c.dimension;
    state.time = s.time;
    bounds_ = {{{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                 std::numeric_limits<double>::infinity()},
                {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                 -std::numeric_limits<double>::infinity()}}};
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.type[i] != ParticleType::fluid)
            continue;
        state.id.push_back(static_cast<std::uint32_t>(state.id.size()));
        state.type.push_back(ParticleType::fluid);
        std::array<float, 3> p = s.position[i];
        if (c.dimension == 2)
            p[1] = 0.0f;
        state.position.push_back(p);
        for (int a = 0; a < 3; ++a) {
            bounds_[0][a] = std::min<double>(bounds_[0][a], p[a]);
            bounds_[1][a] = std::max<double>(bounds_[1][a], p[a]);
        }
        std::array<float, 3> v = s.velocity.empty() ? std::array<float, 3>{} : s.velocity[i];
        if (c.dimension == 2)
            v[1] = 0.0f;
        state.velocity.push_back(v);
        // Tait inverted: ρ = ρ0 (1 + p/B)^(1/γ) (physics.h, tait_density).
        state.density.push_back(
            has_density ? s.density[i]
                        : static_cast<float>(c.constants.rho0 * std::pow(1.0 + s.pressure[i] / k.b,
                                                                         1.0 / c.constants.gamma)));
    }
    fluid_ = state.size();
    if (fluid_ > 0)
        simulation_ = make_simulation(c, backend_, state);
}

std::vector<float> SnapshotSampler::fraction_grid(const FractionGrid& grid) {
    if (!simulation_)
        return std::vector<float>(grid.points, 0.0f);
    return simulation_->sample_fraction_grid(grid);
}

GaugeResponse SnapshotSampler::sample(const GaugeRequest& request) {
    if (!simulation_) {
        GaugeResponse none;
        none.sums.assign(request.points.size(), std::array<float, 6>{});
        return none;
    }
    return simulation_->sample_gauges(request);
}

} // namespace sluice
