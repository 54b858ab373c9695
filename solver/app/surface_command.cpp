// `sluice surface RUN_DIR`: the free surface of each chosen snapshot of a run (app/free_surface.h)
// as NAME_surface_NNNN.vtp, listed with their times in NAME_surface.pvd.

#include "app/command_line.h"
#include "app/free_surface.h"
#include "app/run_folder.h"
#include "io/atomic_file.h"
#include "io/file_names.h"
#include "io/polydata_file.h"

#include <vtkCellArray.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int surface_command(const Options& o) {
    const SeriesOptions& s = o.series;
    const auto start = std::chrono::steady_clock::now();
    const RunFolder run = open_run_folder(s);
    const Case& c = run.run_case;
    const std::vector<std::size_t> chosen = chosen_snapshots(run.series, s);
    SurfaceSettings settings;
    settings.spacing = s.spacing ? *s.spacing : 0.5 * c.dp;
    const fs::path out = s.out ? fs::path(*s.out) : run.folder;
    std::error_code ec;
    fs::create_directories(out, ec);
    if (!fs::is_directory(out, ec))
        throw UsageError("--out '" + out.string() + "' is not a folder that can be made",
                         "surface");
    const std::string name = c.name + "_surface";
    SnapshotSampler sampler(run, o.backend);
    std::cerr << "sluice: the free surface of " << chosen.size() << " snapshot(s) of " << c.name
              << " (grid spacing " << settings.spacing << " m, the fluid fraction at "
              << settings.level << ", on the " << (o.backend == Backend::cuda ? "GPU" : "CPU")
              << ") into " << out.string() << "\n";
    std::vector<std::pair<double, std::string>> written;
    const auto write_pvd = [&] {
        if (!written.empty())
            write_file_atomically(out / (name + ".pvd"), pvd_text(written));
    };
    SurfaceCost total;
    double read_seconds = 0.0, write_seconds = 0.0;
    for (std::size_t n = 0; n < chosen.size(); ++n) {
        const SeriesEntry& entry = run.series[chosen[n]];
        try {
            auto t0 = std::chrono::steady_clock::now();
            Snapshot snapshot = read_snapshot(entry.file);
            sampler.load(snapshot, entry.file);
            read_seconds += seconds_since(t0);
            SurfaceCost cost;
            const vtkSmartPointer<vtkPolyData> surface =
                free_surface(sampler, c.dimension, entry.time, settings,
                             static_cast<std::size_t>(std::min(s.max_grid_points, 1e18)), &cost);
            t0 = std::chrono::steady_clock::now();
            const std::string file = series_file(name, chosen[n]);
            write_polydata(out / file, surface, c.output.format);
            write_seconds += seconds_since(t0);
            written.emplace_back(entry.time, file);
            total.grid_points += cost.grid_points;
            total.grid_seconds += cost.grid_seconds;
            total.contour_seconds += cost.contour_seconds;
            total.fields_seconds += cost.fields_seconds;
            const vtkIdType cells =
                c.dimension == 3 ? surface->GetNumberOfPolys() : surface->GetNumberOfLines();
            std::cerr << "sluice: " << n + 1 << "/" << chosen.size() << " t = " << entry.time
                      << " s: " << cells << (c.dimension == 3 ? " triangles" : " lines") << " from "
                      << cost.grid_points << " grid points (φ " << cost.grid_seconds
                      << " s, contour " << cost.contour_seconds << " s, fields "
                      << cost.fields_seconds << " s)\n";
        } catch (...) {
            write_pvd(); // the surfaces written so far, whole, stay listed
            if (!written.empty())
                std::cerr << "sluice: " << written.size() << " surface(s) written before "
                          << entry.file.string() << " are listed in "
                          << (out / (name + ".pvd")).string() << "\n";
            throw;
        }
    }
    write_pvd();
    const double wall = seconds_since(start);
    std::cout << "sluice: " << written.size() << " surface(s) in " << wall
              << " s (reading and loading " << read_seconds << " s, fluid fraction on "
              << total.grid_points << " grid points " << total.grid_seconds << " s, contours "
              << total.contour_seconds << " s, fields " << total.fields_seconds << " s, writing "
              << write_seconds << " s)\n"
              << "sluice: open " << (out / (name + ".pvd")).string()
              << " in ParaView beside the particles\n";
    return exit_ok;
}

} // namespace sluice
