// `sluice measure RUN_DIR`: fields at points, level lines, lines and planes chosen after the run,
// at each chosen snapshot (app/measurements.h): NAME.csv with gauges.csv's columns (the case's
// gauge plan evaluates them, case/gauge_plan.h) and, per plane, NAME_PLANE_NNNN.vtp listed in
// NAME_PLANE.pvd.

#include "app/command_line.h"
#include "app/measurements.h"
#include "app/run_folder.h"
#include "case/gauge_plan.h"
#include "io/atomic_file.h"
#include "io/csv_series.h"
#include "io/file_names.h"
#include "io/newer_output.h"
#include "io/polydata_file.h"

#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace fs = std::filesystem;

namespace {

/// A plane's grid with the fields of its sums: Shepard pressure, velocity, density (NaN where no
/// fluid is in reach, as gauges.csv leaves them empty) and the fluid fraction; quads between the
/// points.
vtkSmartPointer<vtkPolyData> plane_data(const Measurement& plane,
                                        const std::vector<std::array<float, 3>>& points,
                                        const GaugeResponse& r, double time) {
    auto poly = vtkSmartPointer<vtkPolyData>::New();
    vtkNew<vtkPoints> xyz;
    xyz->SetDataTypeToFloat();
    for (const auto& p : points)
        xyz->InsertNextPoint(p[0], p[1], p[2]);
    poly->SetPoints(xyz);
    vtkNew<vtkCellArray> quads;
    const int na = plane.count[0], nb = plane.count[1];
    for (int j = 0; j + 1 < nb; ++j)
        for (int i = 0; i + 1 < na; ++i) {
            const vtkIdType k = static_cast<vtkIdType>(j) * na + i;
            const vtkIdType quad[4] = {k, k + 1, k + 1 + na, k + na};
            quads->InsertNextCell(4, quad);
        }
    poly->SetPolys(quads);
    vtkNew<vtkFloatArray> velocity, pressure, density, fraction;
    velocity->SetName("velocity");
    velocity->SetNumberOfComponents(3);
    pressure->SetName("pressure");
    density->SetName("density");
    fraction->SetName("fraction");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const std::array<float, 6>& s : r.sums) {
        const bool fluid = s[0] > 0.0f;
        const float inv = fluid ? 1.0f / s[0] : nan;
        velocity->InsertNextTuple3(s[3] * inv, s[4] * inv, s[5] * inv);
        pressure->InsertNextValue(s[2] * inv);
        density->InsertNextValue(s[1] * inv);
        fraction->InsertNextValue(s[0]);
    }
    vtkPointData* data = poly->GetPointData();
    for (vtkFloatArray* a : {velocity.Get(), pressure.Get(), density.Get(), fraction.Get()})
        data->AddArray(a);
    data->SetActiveScalars("pressure");
    vtkNew<vtkDoubleArray> stamp;
    stamp->SetName("TimeValue");
    stamp->InsertNextValue(time);
    poly->GetFieldData()->AddArray(stamp);
    return poly;
}

} // namespace

int measure_command(const Options& o) {
    const SeriesOptions& s = o.series;
    const RunFolder run = open_run_folder(s);
    const Case& c = run.run_case;
    std::vector<Measurement> all;
    const auto take = [&](MeasureKind kind, const std::vector<std::string>& specs,
                          const char* option) {
        for (const std::string& spec : specs)
            all.push_back(parse_measurement(kind, spec, c, std::string("--") + option));
    };
    take(MeasureKind::point, s.points, "point");
    take(MeasureKind::height, s.heights, "height");
    take(MeasureKind::line, s.lines, "line");
    take(MeasureKind::plane, s.planes, "plane");
    if (s.file)
        for (Measurement& m : read_measurement_file(*s.file, c))
            all.push_back(std::move(m));
    if (all.empty())
        throw UsageError("nothing to measure: give --point, --height, --line, --plane or --file",
                         "measure");
    require_unique_names(all);
    if (s.name.empty() || s.name.find('/') != std::string::npos)
        throw UsageError("--name '" + s.name + "' is not a plain file name", "measure");
    // What measure writes never takes a run's own file (the series it reads, its CSV series,
    // summary.json).
    const auto a_run_file = [&](const std::string& stem) {
        const std::vector<std::string>& csv_files = run_csv_files();
        return stem == "summary" || stem.rfind(c.name, 0) == 0 ||
               std::find(csv_files.begin(), csv_files.end(), stem + ".csv") != csv_files.end();
    };
    if (a_run_file(s.name))
        throw UsageError("--name '" + s.name + "' would overwrite the run's own files (" + c.name +
                             "*, gauges.csv, …): take another",
                         "measure");
    for (const Measurement& m : all)
        if (m.kind == MeasureKind::plane && a_run_file(s.name + "_" + m.name))
            throw UsageError(m.where + ": the plane's files " + s.name + "_" + m.name +
                                 "_NNNN.vtp would overwrite the run's own: rename it or --name",
                             "measure");
    const std::vector<ProbeField> fields = parse_probe_fields(s.fields);
    const std::vector<std::size_t> chosen = chosen_snapshots(run.series, s);
    const fs::path out = s.out ? fs::path(*s.out) : run.folder;
    std::error_code ec;
    fs::create_directories(out, ec);
    if (!fs::is_directory(out, ec))
        throw UsageError("--out '" + out.string() + "' is not a folder that can be made",
                         "measure");

    Case measured = c;
    measured.gauges = as_gauges(all, fields);
    SnapshotSampler sampler(run, o.backend);
    const GaugePlan plan(measured, sampler.support());
    // NAME.csv through its temporary, renamed when every chosen snapshot is in it (or, when one
    // fails, with the rows before it): never a half-written file under its name.
    std::unique_ptr<CsvSeries> csv;
    const fs::path csv_path = out / (s.name + ".csv");
    if (!plan.columns().empty()) {
        std::vector<std::string> comments{
            "sluice measure of run " + run.folder.string() + " (case " + c.name +
                "): height = where the fluid fraction falls below 1/2 above the thickest "
                "stretch of water on the line, probe = Shepard interpolation (cases/README.md, "
                "<gauges>); a line's "
                "points are NAME_0 … NAME_{N-1}; empty = no fluid there",
            "t: s"};
        std::vector<std::string> names;
        for (const GaugeColumn& col : plan.columns()) {
            comments.push_back(col.name + ": " + col.unit);
            names.push_back(col.name);
        }
        csv = std::make_unique<CsvSeries>(temp_path_for(csv_path), comments, names);
    }
    std::vector<const Measurement*> planes;
    for (const Measurement& m : all)
        if (m.kind == MeasureKind::plane)
            planes.push_back(&m);
    std::vector<std::vector<std::pair<double, std::string>>> plane_files(planes.size());
    std::size_t rows = 0;
    const auto finish = [&] {
        if (csv) { // rows or nothing: an earlier NAME.csv stays when the first snapshot failed
            csv.reset();
            if (rows > 0)
                move_into_place(temp_path_for(csv_path), csv_path);
            else
                fs::remove(temp_path_for(csv_path), ec);
        }
        for (std::size_t k = 0; k < planes.size(); ++k)
            if (!plane_files[k].empty())
                write_file_atomically(out / (s.name + "_" + planes[k]->name + ".pvd"),
                                      pvd_text(plane_files[k]));
    };
    std::cerr << "sluice: measuring " << all.size() << " item(s) at " << chosen.size()
              << " snapshot(s) of " << c.name << " on the "
              << (o.backend == Backend::cuda ? "GPU" : "CPU") << "\n";
    for (std::size_t n = 0; n < chosen.size(); ++n) {
        const SeriesEntry& entry = run.series[chosen[n]];
        try {
            const Snapshot snapshot = read_snapshot(entry.file);
            sampler.load(snapshot, entry.file);
            if (csv) {
                csv->write(entry.time, plan.evaluate(sampler.sample(plan.request())));
                ++rows;
            }
            for (std::size_t k = 0; k < planes.size(); ++k) {
                GaugeRequest request;
                request.points = plane_points(*planes[k]);
                const GaugeResponse r = sampler.sample(request);
                const std::string file = series_file(s.name + "_" + planes[k]->name, chosen[n]);
                write_polydata(out / file, plane_data(*planes[k], request.points, r, entry.time),
                               c.output.format);
                plane_files[k].emplace_back(entry.time, file);
            }
        } catch (...) {
            finish();
            throw;
        }
        if ((n + 1) % 10 == 0 || n + 1 == chosen.size())
            std::cerr << "sluice: " << n + 1 << "/" << chosen.size() << " snapshots measured\n";
    }
    finish();
    if (!plan.columns().empty())
        std::cout << "sluice: " << csv_path.string() << " (" << plan.columns().size()
                  << " columns, " << chosen.size() << " rows)\n";
    for (const Measurement* m : planes)
        std::cout << "sluice: " << (out / (s.name + "_" + m->name + ".pvd")).string() << " ("
                  << m->count[0] << " × " << m->count[1] << " points)\n";
    return exit_ok;
}

} // namespace sluice
