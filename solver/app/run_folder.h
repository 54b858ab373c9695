#pragma once
/// \file run_folder.h
/// A finished run as `sluice surface` and `sluice measure` read it back (DESIGN.md, Output): its
/// case re-read as the run read it, its series of snapshots, and the sampler that turns a
/// snapshot into kernel sums at any points. A point asked of a snapshot is one more query
/// point through the neighbour contract, on the run's own neighbour module and backend (the
/// GPU when present), with the very visitor the run's gauges use (physics/gauges.h): a
/// measurement after the run equals the run's gauge at the same point on the same snapshot.

#include "app/command_line.h"
#include "backends/simulation.h"
#include "case/case_model.h"
#include "io/gauge_samples.h"
#include "io/series_reader.h"
#include "io/snapshot.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

struct RunFolder {
    std::filesystem::path folder;
    /// The run's case, read with the overrides of the run's command line (summary.json).
    Case run_case;
    std::vector<SeriesEntry> series; ///< <name>.pvd's snapshots
    double speed_of_sound = 0.0;     ///< c0 of the run (m/s): the pressures of the densities
    double smoothing_length = 0.0;   ///< h (m)
};

/// Opens RUN_DIR: summary.json (its case file, found as given, relative to the folder's
/// grandparent as for out/NAME, or --case; its command line's overrides), <name>.pvd.
/// \throws UsageError (no such folder; the case file not found: give --case), SeriesError
///         (summary.json or the .pvd unreadable; the case read gives another h than the run
///         had: the file changed since), CaseError (the case).
RunFolder open_run_folder(const SeriesOptions& o);

/// The indices into `series` that --time / --every choose, ascending.
/// \throws UsageError when --time is outside the series' times by more than half an interval.
std::vector<std::size_t> chosen_snapshots(const std::vector<SeriesEntry>& series,
                                          const SeriesOptions& o);

/// Kernel sums of a snapshot's fluid at arbitrary points (GaugeResponse::sums: φ, Σ V W ρ,
/// Σ V W p, Σ V W v; physics/gauges.h), computed by a Simulation of the snapshot's fluid particles
/// alone on the chosen backend: its own neighbour structure over them, through the case's
/// neighbour module. Walls are not fluid and the gauges' visitor leaves them out, so they are
/// not loaded; fields missing from the file: velocity 0, density from the pressure (Tait).
class SnapshotSampler {
public:
    SnapshotSampler(const RunFolder& run, Backend backend);
    ~SnapshotSampler();

    /// Replaces the loaded snapshot by `s` (its fluid particles).
    /// \throws SeriesError when `s` has neither density nor pressure.
    void load(const Snapshot& s, const std::filesystem::path& file);
    /// The sums at request.points on the loaded snapshot. Precondition: the request asks for
    /// points only (no fronts, wall points or bodies: the snapshot's walls are not loaded).
    /// Points where no fluid is in reach get zeros.
    GaugeResponse sample(const GaugeRequest& request);
    /// φ at the points of a regular grid (Simulation::sample_fraction_grid: the points made
    /// where the state lives, only φ returned); zeros without fluid.
    std::vector<float> fraction_grid(const FractionGrid& grid);
    std::size_t fluid_particles() const { return fluid_; }
    /// The kernel support 2h (m).
    double support() const;
    /// The fluid's bounding box of the loaded snapshot (m; 2D: y 0); empty (min > max) without.
    std::array<std::array<double, 3>, 2> fluid_bounds() const { return bounds_; }

private:
    Case sampling_case_; ///< the run's case stripped to the fluid: no walls, gauges, motions
    BackendOptions backend_;
    std::unique_ptr<Simulation> simulation_;
    std::size_t fluid_ = 0;
    std::array<std::array<double, 3>, 2> bounds_{};
};

} // namespace sluice
