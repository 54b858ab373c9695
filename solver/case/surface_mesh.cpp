#include "case/surface_mesh.h"

#include <vtkCellArray.h>
#include <vtkCleanPolyData.h>
#include <vtkNew.h>
#include <vtkOBJReader.h>
#include <vtkObject.h>
#include <vtkPLYReader.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSTLReader.h>
#include <vtkSmartPointer.h>
#include <vtkTriangleFilter.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace sluice {

namespace {

constexpr double pi = 3.14159265358979323846;

std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

/// The reader's output as triangles with coincident points merged (STL repeats every vertex).
vtkSmartPointer<vtkPolyData> read_triangles(const std::string& path) {
    const std::string ext = lower_extension(path);
    vtkSmartPointer<vtkAlgorithm> reader;
    if (ext == ".stl") {
        auto r = vtkSmartPointer<vtkSTLReader>::New();
        r->SetFileName(path.c_str());
        reader = r;
    } else if (ext == ".ply") {
        auto r = vtkSmartPointer<vtkPLYReader>::New();
        r->SetFileName(path.c_str());
        reader = r;
    } else if (ext == ".obj") {
        auto r = vtkSmartPointer<vtkOBJReader>::New();
        r->SetFileName(path.c_str());
        reader = r;
    } else {
        throw SurfaceMeshError("unknown surface format '" + ext + "' (valid: .stl, .ply, .obj)");
    }
    vtkNew<vtkTriangleFilter> triangles;
    triangles->SetInputConnection(reader->GetOutputPort());
    triangles->PassVertsOff();
    triangles->PassLinesOff();
    vtkNew<vtkCleanPolyData> clean;
    clean->SetInputConnection(triangles->GetOutputPort());
    clean->PointMergingOn();
    clean->SetTolerance(0.0);
    clean->ConvertPolysToLinesOff();
    clean->ConvertLinesToPointsOff();
    clean->ConvertStripsToPolysOff();
    clean->Update();
    auto out = vtkSmartPointer<vtkPolyData>::New();
    out->ShallowCopy(clean->GetOutput());
    return out;
}

} // namespace

namespace {

/// A placed vertex must be a finite coordinate within ±max_placed_coordinate: a huge `scale` or
/// `translate` would otherwise overflow the mesh's index and volume (TriangleMesh) into
/// infinities, and no case is that large.
void require_placed_coordinate(const Eigen::Vector3d& v, const SurfacePlacement& placement,
                               const std::string& path) {
    if (v.allFinite() && v.cwiseAbs().maxCoeff() <= max_placed_coordinate)
        return;
    std::ostringstream msg;
    msg << "placed with scale " << placement.scale << ", rotate (" << placement.rotate_degrees.x()
        << ", " << placement.rotate_degrees.y() << ", " << placement.rotate_degrees.z()
        << ") and translate (" << placement.translate.x() << ", " << placement.translate.y() << ", "
        << placement.translate.z() << "), a vertex of '" << path << "' lies at (" << v.x() << ", "
        << v.y() << ", " << v.z()
        << ") m: " << (v.allFinite() ? "beyond" : "not a finite coordinate, beyond") << " ±"
        << max_placed_coordinate << " m; check scale, translate and units";
    throw SurfaceMeshError(msg.str());
}

} // namespace

std::shared_ptr<const TriangleMesh> load_surface_mesh(const std::string& path,
                                                      const SurfacePlacement& placement) {
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe)
            throw SurfaceMeshError("cannot open the surface file '" + path + "'");
        char c;
        if (!probe.get(c))
            throw SurfaceMeshError("the surface file '" + path + "' is empty");
    }
    // VTK's readers print their own errors; ours, with file and line, replace them.
    const int warnings = vtkObject::GetGlobalWarningDisplay();
    vtkObject::GlobalWarningDisplayOff();
    vtkSmartPointer<vtkPolyData> poly;
    try {
        poly = read_triangles(path);
    } catch (...) {
        vtkObject::SetGlobalWarningDisplay(warnings);
        throw;
    }
    vtkObject::SetGlobalWarningDisplay(warnings);
    vtkCellArray* polys = poly->GetPolys();
    if (!polys || polys->GetNumberOfCells() == 0)
        throw SurfaceMeshError("no triangle could be read from '" + path + "' (not a valid " +
                               lower_extension(path).substr(1) + " file?)");

    // Placement: x' = R·(s·x) + t with R = Rz·Ry·Rx.
    const Eigen::Vector3d deg = placement.rotate_degrees * (pi / 180.0);
    const Eigen::Matrix3d rotation = (Eigen::AngleAxisd(deg.z(), Eigen::Vector3d::UnitZ()) *
                                      Eigen::AngleAxisd(deg.y(), Eigen::Vector3d::UnitY()) *
                                      Eigen::AngleAxisd(deg.x(), Eigen::Vector3d::UnitX()))
                                         .toRotationMatrix();
    std::vector<Eigen::Vector3d> vertices(static_cast<std::size_t>(poly->GetNumberOfPoints()));
    for (vtkIdType i = 0; i < poly->GetNumberOfPoints(); ++i) {
        double x[3];
        poly->GetPoint(i, x);
        vertices[static_cast<std::size_t>(i)] =
            rotation * (placement.scale * Eigen::Vector3d(x[0], x[1], x[2])) + placement.translate;
        require_placed_coordinate(vertices[static_cast<std::size_t>(i)], placement, path);
    }

    std::vector<std::array<std::size_t, 3>> triangles;
    std::map<std::pair<std::size_t, std::size_t>, int> edge_use;
    std::size_t degenerate = 0;
    vtkIdType count = 0;
    const vtkIdType* ids = nullptr;
    for (polys->InitTraversal(); polys->GetNextCell(count, ids);) {
        if (count != 3)
            continue;
        const std::array<std::size_t, 3> t = {static_cast<std::size_t>(ids[0]),
                                              static_cast<std::size_t>(ids[1]),
                                              static_cast<std::size_t>(ids[2])};
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
            ++degenerate; // collapsed by the merge: no area, no edges of its own
            continue;
        }
        triangles.push_back(t);
        for (int e = 0; e < 3; ++e) {
            const std::size_t a = t[e], b = t[(e + 1) % 3];
            ++edge_use[{std::min(a, b), std::max(a, b)}];
        }
    }
    if (triangles.empty())
        throw SurfaceMeshError("'" + path + "' holds only degenerate triangles (" +
                               std::to_string(degenerate) + ")");
    std::size_t open = 0, non_manifold = 0;
    Eigen::Vector3d example = Eigen::Vector3d::Zero();
    for (const auto& [edge, uses] : edge_use) {
        if (uses == 2)
            continue;
        if (open + non_manifold == 0)
            example = vertices[edge.first];
        (uses == 1 ? open : non_manifold) += 1;
    }
    if (open + non_manifold > 0) {
        std::ostringstream msg;
        msg << "the surface in '" << path << "' is not closed (watertight): " << open
            << " boundary edge(s) and " << non_manifold
            << " edge(s) shared by more than two triangles, e.g. at (" << example.x() << ", "
            << example.y() << ", " << example.z()
            << ") m after placement; a filled region needs a closed surface";
        throw SurfaceMeshError(msg.str());
    }
    auto mesh = std::make_shared<TriangleMesh>(std::move(vertices), std::move(triangles));
    const double size = (mesh->max() - mesh->min()).norm();
    if (!(mesh->volume() > 1e-9 * size * size * size))
        throw SurfaceMeshError("the surface in '" + path +
                               "' encloses no volume (flat or "
                               "self-cancelling)");
    return mesh;
}

} // namespace sluice
