// The free surface of a snapshot: φ on a grid through the snapshot sampler, VTK's flying edges,
// the fields at the surface's points (app/free_surface.h).

#include "app/free_surface.h"

#include "app/command_line.h"

#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkFlyingEdges2D.h>
#include <vtkFlyingEdges3D.h>
#include <vtkImageData.h>
#include <vtkMassProperties.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStripper.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sluice {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Grid points asked of the sampler at once: bounds the answer's memory (4 bytes a point)
/// however large the grid.
constexpr std::uint64_t points_per_request = std::uint64_t{1} << 26;

/// The grid: `count` points per axis from `origin`, `spacing` apart; in 2D the second axis is z
/// (the image's y) and the third has one point.
struct Grid {
    std::array<double, 3> origin{};
    std::array<std::size_t, 3> count{1, 1, 1};
    double spacing = 0.0;
    std::size_t size() const { return count[0] * count[1] * count[2]; }
};

Grid grid_around(const SnapshotSampler& sampler, int dimension, double spacing,
                 std::size_t max_points) {
    const auto bounds = sampler.fluid_bounds();
    const double margin = sampler.support() + spacing;
    const int axes[3] = {0, dimension == 2 ? 2 : 1, 2};
    Grid g;
    g.spacing = spacing;
    double counts[3] = {1.0, 1.0, 1.0}, total = 1.0;
    for (int a = 0; a < dimension; ++a) {
        const double lo = bounds[0][axes[a]] - margin, hi = bounds[1][axes[a]] + margin;
        g.origin[a] = lo;
        counts[a] = std::ceil((hi - lo) / spacing) + 1.0; // in double: checked before any cast
        total *= counts[a];
    }
    if (!(total <= static_cast<double>(max_points)) || !(counts[0] < 2147483647.0) ||
        !(counts[1] < 2147483647.0) || !(counts[2] < 2147483647.0)) {
        std::ostringstream why;
        why << "the surface's grid at a spacing of " << spacing << " m would have " << total
            << " points, more than the " << max_points
            << " allowed (--max-grid-points): take a larger --spacing";
        throw UsageError(why.str(), "surface");
    }
    for (int a = 0; a < 3; ++a)
        g.count[a] = static_cast<std::size_t>(counts[a]);
    return g;
}

/// φ at every grid point, in VTK's image order (x fastest), asked in slabs of points.
vtkSmartPointer<vtkImageData> fluid_fraction_image(SnapshotSampler& sampler, const Grid& g) {
    FractionGrid grid;
    for (int a = 0; a < 3; ++a) {
        grid.origin[a] = static_cast<float>(g.origin[a]);
        grid.counts[a] = static_cast<std::uint32_t>(g.count[a]);
    }
    grid.spacing = static_cast<float>(g.spacing);
    auto image = vtkSmartPointer<vtkImageData>::New();
    image->SetDimensions(static_cast<int>(g.count[0]), static_cast<int>(g.count[1]),
                         static_cast<int>(g.count[2]));
    // The points the sampler made (physics/gauges.h, grid_point), in float as it made them.
    image->SetOrigin(grid.origin[0], grid.origin[1], grid.origin[2]);
    image->SetSpacing(grid.spacing, grid.spacing, grid.spacing);
    vtkNew<vtkFloatArray> phi;
    phi->SetName("fluid_fraction");
    phi->SetNumberOfTuples(static_cast<vtkIdType>(g.size()));
    for (std::uint64_t first = 0; first < g.size(); first += points_per_request) {
        grid.first = first;
        grid.points = std::min<std::uint64_t>(points_per_request, g.size() - first);
        const std::vector<float> part = sampler.fraction_grid(grid);
        std::copy(part.begin(), part.end(), phi->GetPointer(static_cast<vtkIdType>(first)));
    }
    image->GetPointData()->SetScalars(phi);
    return image;
}

/// The contour of φ at `level`: triangles (3D, with normals), polylines (2D, the image's y
/// turned back into z).
vtkSmartPointer<vtkPolyData> contour(vtkImageData* image, int dimension, double level) {
    if (dimension == 3) {
        vtkNew<vtkFlyingEdges3D> edges;
        edges->SetInputData(image);
        edges->SetValue(0, level);
        edges->ComputeNormalsOn();
        edges->ComputeScalarsOff();
        edges->Update();
        return edges->GetOutput();
    }
    vtkNew<vtkFlyingEdges2D> edges;
    edges->SetInputData(image);
    edges->SetValue(0, level);
    edges->ComputeScalarsOff();
    vtkNew<vtkStripper> strips; // the segments joined into polylines
    strips->SetInputConnection(edges->GetOutputPort());
    strips->JoinContiguousSegmentsOn();
    strips->SetMaximumLength(100000); // VTK clamps it there; its default 1000 cuts long loops
    strips->Update();
    vtkSmartPointer<vtkPolyData> out = strips->GetOutput();
    vtkPoints* points = out->GetPoints();
    for (vtkIdType p = 0; points != nullptr && p < points->GetNumberOfPoints(); ++p) {
        double x[3];
        points->GetPoint(p, x);
        points->SetPoint(p, x[0], 0.0, x[1]);
    }
    return out;
}

/// The Shepard-interpolated velocity, pressure and density at the surface's points (the
/// probes' interpolation, case/gauge_plan.cpp).
void add_fields(SnapshotSampler& sampler, vtkPolyData* surface) {
    const vtkIdType n = surface->GetNumberOfPoints();
    GaugeRequest request;
    request.points.resize(static_cast<std::size_t>(n));
    for (vtkIdType p = 0; p < n; ++p) {
        double x[3];
        surface->GetPoint(p, x);
        request.points[p] = {static_cast<float>(x[0]), static_cast<float>(x[1]),
                             static_cast<float>(x[2])};
    }
    const GaugeResponse r = n > 0 ? sampler.sample(request) : GaugeResponse{};
    vtkNew<vtkFloatArray> velocity, pressure, density;
    velocity->SetName("velocity");
    velocity->SetNumberOfComponents(3);
    velocity->SetNumberOfTuples(n);
    pressure->SetName("pressure");
    pressure->SetNumberOfTuples(n);
    density->SetName("density");
    density->SetNumberOfTuples(n);
    for (vtkIdType p = 0; p < n; ++p) {
        const std::array<float, 6>& s = r.sums[p];
        const float inv = s[0] > 0.0f ? 1.0f / s[0] : 0.0f;
        velocity->SetTuple3(p, s[3] * inv, s[4] * inv, s[5] * inv);
        pressure->SetValue(p, s[2] * inv);
        density->SetValue(p, s[1] * inv);
    }
    vtkPointData* data = surface->GetPointData();
    data->AddArray(velocity);
    data->SetActiveVectors("velocity");
    data->AddArray(pressure);
    data->AddArray(density);
    data->SetActiveScalars("pressure");
}

} // namespace

vtkSmartPointer<vtkPolyData> free_surface(SnapshotSampler& sampler, int dimension, double time,
                                          const SurfaceSettings& settings,
                                          std::size_t max_grid_points, SurfaceCost* cost) {
    SurfaceCost spent;
    vtkSmartPointer<vtkPolyData> surface;
    if (sampler.fluid_particles() == 0) {
        surface = vtkSmartPointer<vtkPolyData>::New();
        surface->SetPoints(vtkNew<vtkPoints>());
    } else {
        const Grid g = grid_around(sampler, dimension, settings.spacing, max_grid_points);
        spent.grid_points = g.size();
        auto start = std::chrono::steady_clock::now();
        const vtkSmartPointer<vtkImageData> image = fluid_fraction_image(sampler, g);
        spent.grid_seconds = seconds_since(start);
        start = std::chrono::steady_clock::now();
        surface = contour(image, dimension, settings.level);
        spent.contour_seconds = seconds_since(start);
    }
    const auto start = std::chrono::steady_clock::now();
    add_fields(sampler, surface);
    spent.fields_seconds = seconds_since(start);
    vtkNew<vtkDoubleArray> stamp;
    stamp->SetName("TimeValue");
    stamp->InsertNextValue(time);
    surface->GetFieldData()->AddArray(stamp);
    if (cost != nullptr)
        *cost = spent;
    return surface;
}

double enclosed_volume(vtkPolyData* surface, int dimension) {
    if (surface == nullptr || surface->GetNumberOfPoints() == 0)
        return 0.0;
    if (dimension == 3) {
        vtkNew<vtkMassProperties> mass;
        mass->SetInputData(surface);
        mass->Update();
        return mass->GetVolume();
    }
    double area = 0.0;
    vtkCellArray* lines = surface->GetLines();
    vtkNew<vtkIdList> loop;
    for (lines->InitTraversal(); lines->GetNextCell(loop);) {
        double signed_area = 0.0;
        const vtkIdType n = loop->GetNumberOfIds();
        for (vtkIdType k = 0; k < n; ++k) {
            double a[3], b[3];
            surface->GetPoint(loop->GetId(k), a);
            surface->GetPoint(loop->GetId((k + 1) % n), b);
            signed_area += a[0] * b[2] - b[0] * a[2]; // the shoelace in the x–z plane
        }
        area += 0.5 * std::abs(signed_area);
    }
    return area;
}

} // namespace sluice
