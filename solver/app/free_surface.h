#pragma once
/// \file free_surface.h
/// The free surface of one snapshot (`sluice surface`): the fluid fraction
///   φ(x) = Σ_j V_j W(|x − x_j|, h),  V_j = m/ρ_j          (physics/gauges.h)
/// on a regular grid around the fluid, contoured at φ = ½ by VTK's flying edges (Schroeder,
/// Maynard & Geveci 2015): a triangle mesh in 3D, polylines in the x–z plane in 2D. φ is ≈ 1
/// inside the fluid and falls through ½ at a free surface (the kernel's half-space integral), as
/// the colour-function surfaces of Müller, Charypar & Gross 2003 (§ 4.4) and Monaghan 2005
/// (§ 5.3); the level gauges take the same ½ (case/gauge_plan.h). Beside a wall the fraction
/// also falls to ½ at the wall's face (walls are not fluid), so the surface closes along the
/// walls the water touches. On the surface's points: the Shepard-interpolated velocity,
/// pressure and density, at the points themselves (the gauges' probes), and φ's gradient
/// direction as the normals (for shading).

#include "app/run_folder.h"

class vtkPolyData;
template <class T>
class vtkSmartPointer;

namespace sluice {

struct SurfaceSettings {
    double spacing = 0.0; ///< grid spacing (m); the command's default is dp/2
    double level = 0.5;   ///< the contoured value of φ
};

/// What one surface cost (s) and how large its grid was.
struct SurfaceCost {
    std::size_t grid_points = 0;
    double grid_seconds = 0.0;    ///< φ at the grid points (the sampler: GPU or CPU)
    double contour_seconds = 0.0; ///< flying edges
    double fields_seconds = 0.0;  ///< the fields at the surface's points (the sampler)
};

/// The surface of the snapshot loaded in `sampler` (SnapshotSampler::load), its time in the
/// field data `TimeValue` (s). The grid covers the fluid's bounding box grown by the kernel
/// support and one spacing on every side, so a surface that does not touch a wall is closed.
/// Points in (x, y, z) m (2D: y = 0); point arrays `velocity` (m/s), `pressure` (Pa),
/// `density` (kg/m³), in 3D `Normals`. An empty snapshot gives an empty surface.
/// \throws UsageError when the grid would exceed `max_grid_points` (names the spacing to take
///         instead).
vtkSmartPointer<vtkPolyData> free_surface(SnapshotSampler& sampler, int dimension, double time,
                                          const SurfaceSettings& settings,
                                          std::size_t max_grid_points, SurfaceCost* cost = nullptr);

/// The volume enclosed by a closed triangle surface (m³; vtkMassProperties), or in 2D the area
/// enclosed by closed polylines in the x–z plane (m², the shoelace formula over each loop).
double enclosed_volume(vtkPolyData* surface, int dimension);

} // namespace sluice
