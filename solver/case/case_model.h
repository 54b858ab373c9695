#pragma once
/// \file case_model.h
/// The in-memory form of a case file (cases/README.md documents the XML). The reader
/// (case_reader.h) fills it and checks it; everything downstream may assume it is valid.
///
/// Units are SI (m, s, kg). Points are stored as 3D (x, y, z); in 2D cases y = 0 and the
/// simulation plane is x–z, gravity along −z.

#include "case/floating_model.h"
#include "case/motion_model.h"
#include "case/shapes.h"
#include "io/vtp_file.h"
#include "neighbours/module.h"

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// Where a value came from, for error messages: "file:line".
struct SourceLocation {
    std::string file;
    int line = 0;
};

/// Axis-aligned box [min, max] (m).
struct Box {
    Eigen::Vector3d min = Eigen::Vector3d::Zero();
    Eigen::Vector3d max = Eigen::Vector3d::Zero();
};

enum class KernelKind { wendland_c2, cubic_spline };
enum class ViscosityKind { artificial, laminar };
enum class DensityDiffusionKind { none, molteni, fourtakas, antuono };
/// The pair terms (cases/README.md): classical WCSPH or Riemann-based (physics/riemann.h).
enum class FormulationKind { classical, riemann };
enum class IntegratorKind { symplectic, verlet };
/// Wall boundary condition (cases/README.md): dynamic boundary particles (Crespo et al. 2007)
/// or modified ones (English et al. 2022, physics/mdbc.h).
enum class BoundaryKind { dbc, mdbc };
/// mDBC: the velocity the fluid sees at a wall (physics/mdbc.h).
enum class SlipKind { no_slip, free_slip };
/// Particle shifting (physics/shifting.h): none, or Fickian (Lind et al. 2012).
enum class ShiftingKind { none, fickian };

/// Faces of a tank, as DualSPHysics's boxfill: bit flags.
enum TankFace : unsigned {
    face_bottom = 1u << 0, ///< z = min
    face_top = 1u << 1,    ///< z = max
    face_left = 1u << 2,   ///< x = min
    face_right = 1u << 3,  ///< x = max
    face_front = 1u << 4,  ///< y = min (3D only)
    face_back = 1u << 5,   ///< y = max (3D only)
};

/// A volume filled with fluid particles on the lattice box.min + (i + ½)·dp: the box itself, or
/// the lattice points of `box` (then the shape's bounding box) inside `shape`.
struct FluidRegion {
    Box box;
    SourceLocation where;
    Shape shape{};                                      ///< BoxShape: the box itself
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero(); ///< m/s at t = 0 (2D: v_y = 0)
};

/// What every boundary object (the tank, an obstacle) may have besides its shape: a name, under
/// which forces.csv reports the force and moment of the fluid on it, the point the moment is
/// taken about, and a prescribed motion (case/motion_model.h) or, for an obstacle, a floating
/// body's dynamics (case/floating_model.h): at most one of the two.
struct ObjectProperties {
    std::string name; ///< empty: no forces reported
    /// m: the moment's point at t = 0 (it moves with the object); absent: the centre of the
    /// object's bounding box.
    std::optional<Eigen::Vector3d> moment_point;
    std::optional<Motion> motion;     ///< absent: the object stays where it was generated
    std::optional<Floating> floating; ///< the water moves it (obstacles only)
};

/// Tank walls: `box` is the inside of the tank (the physical wall surfaces are its faces).
/// Each chosen face gets `layers` layers of boundary particles outside it, at
/// face − (k + ½)·dp, k = 0 … layers−1; corners between chosen faces are filled.
struct TankWalls {
    Box box;
    unsigned faces = 0; ///< TankFace bits
    int layers = 3;
    SourceLocation where;
    ObjectProperties object;
};

/// A solid filled with boundary particles on the lattice box.min + (i + ½)·dp, like FluidRegion;
/// with `layers` > 0 only the particles within layers·dp of the outside (a shell under the
/// surface, as the tank's wall layers).
struct Obstacle {
    Box box;
    SourceLocation where;
    Shape shape{};  ///< BoxShape: the box itself
    int layers = 0; ///< 0: filled
    ObjectProperties object;
};

struct Constants {
    double gravity = 9.81;                ///< m/s², magnitude, acting along −z
    double rho0 = 1000.0;                 ///< kg/m³, reference density
    double gamma = 7.0;                   ///< Tait exponent
    std::optional<double> speed_of_sound; ///< m/s; if absent c0 = coef_sound·sqrt(g·H_max)
    double coef_sound = 20.0;             ///< dimensionless
    double coefh = 1.0;                   ///< h = coefh·sqrt(D)·dp
    double cfl = 0.2;                     ///< CFL number of the time-step limits
};

struct Physics {
    FormulationKind formulation = FormulationKind::classical;
    double riemann_limiter = 3.0; ///< η of the Riemann solver's limiter (dimensionless)
    KernelKind kernel = KernelKind::wendland_c2;
    ViscosityKind viscosity = ViscosityKind::artificial;
    double viscosity_value = 0.01; ///< α (artificial, dimensionless) or ν (laminar, m²/s)
    DensityDiffusionKind diffusion = DensityDiffusionKind::molteni;
    double diffusion_coef = 0.1; ///< δ (dimensionless)
    IntegratorKind integrator = IntegratorKind::symplectic;
    BoundaryKind boundary = BoundaryKind::dbc;
    SlipKind slip = SlipKind::no_slip; ///< mDBC only
    ShiftingKind shifting = ShiftingKind::none;
    double shifting_coef = 2.0;     ///< A of D = A·h·|v|·dt (dimensionless)
    double shifting_surface = 0.0;  ///< free-surface threshold of ∇·r; 0: 1.5 (2D), 2.75 (3D)
    int verlet_reset_steps = 40;    ///< Verlet: a forward Euler step every N steps
    double density_min_ratio = 0.5; ///< stop when ρ < ratio·ρ0 (instability)
    double density_max_ratio = 2.0; ///< stop when ρ > ratio·ρ0
};

struct RunControl {
    double end_time = 1.0;         ///< s
    double output_interval = 0.05; ///< s, simulated time between snapshots
    std::string output_dir;        ///< default "out/<case name>"
    /// s, simulated time between checkpoints (restart files); none when absent.
    std::optional<double> checkpoint_interval;
    /// A run over several processes: steps between load balances (the slab faces move to even
    /// out the measured step time); 0 = the faces stay where the particle counts put them.
    int balance_interval = 100;
    /// %, the share of the fluid particles (at t = 0) that may leave the domain: a run that
    /// loses more ends with exit_lost_particles (app/particle_losses.h). In [0, 100].
    double max_loss_percent = 1.0;
};

/// How snapshots are written (`<output>`, cases/README.md).
struct OutputSettings {
    VtpFormat format; ///< compressor, level, fields
    /// The boundary particles (which do not move) in the first snapshot of the series only.
    bool boundary_only_first = false;
    /// Threads compressing and writing snapshots; 0 = default_writer_count() (io/async_output.h).
    unsigned writers = 0;
};

/// A measurement taken during the run (`<gauges>`, cases/README.md; computed by the backend
/// through the neighbour query, written to gauges.csv).
enum class GaugeKind {
    height, ///< free-surface elevation on a vertical line
    probe,  ///< Shepard-interpolated fluid fields at a point
    front,  ///< the leading edge of the fluid along an axis
    sensor, ///< the wall's pressure at a point of its surface (a wall pressure transducer)
};
/// A probe's fields: Shepard-interpolated pressure, velocity, density; `fraction` the fluid
/// fraction φ itself (physics/gauges.h; 1 inside the water, ½ at its surface, 0 away from it).
enum class ProbeField { pressure, velocity, density, fraction };

struct Gauge {
    GaugeKind kind = GaugeKind::probe;
    std::string name;
    /// height: (x, y, ·) of the vertical line (2D: y = 0); probe: the point; sensor: the point
    /// on the wall's surface (m).
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    std::vector<ProbeField> fields; ///< probe: in the order given
    int axis = 0;                   ///< front: 0 x, 1 y, 2 z
    int sign = 1;                   ///< front: +1 or −1 (direction along the axis)
    double radius = 0.0;            ///< sensor: radius of its face (m, ≥ 0; 0: the point)
    bool average = false;           ///< sensor: the mean over each row's interval, not one step
    SourceLocation where;
};

struct Gauges {
    double interval = 0.0; ///< s of simulated time between rows; 0: no gauges
    std::vector<Gauge> gauges;
};

struct Case {
    std::string name;
    SourceLocation where; ///< the root element
    int dimension = 2;
    Constants constants;
    double dp = 0.0;      ///< m, particle spacing (required)
    double file_dp = 0.0; ///< m, <geometry dp> as written; dp differs under `--dp`
    std::vector<FluidRegion> fluids;
    std::optional<TankWalls> tank;
    std::vector<Obstacle> obstacles;
    /// Zones where the fluid's velocity relaxes to rest (wave absorption; <damping>).
    std::vector<DampingZone> damping;
    /// Simulation domain; particles leaving it are excluded. Default: the bounding box of all
    /// particles grown by 10 % of its largest extent on every side (computed by the reader).
    Box domain;
    Physics physics;
    NeighbourModule neighbours;
    /// `<neighbours auto="true"/>`: `sluice run` times the modules first and takes the fastest
    /// (app/tune.h); `neighbours` is then the one it started from.
    bool neighbours_auto = false;
    RunControl run;
    OutputSettings output;
    Gauges gauges;
};

/// The boundary objects in particle-id order (case/particles.h): the tank when the case has one,
/// then the obstacles in case order. Each: its properties, where it is written, and its
/// bounding box at t = 0 (the tank's with its wall layers).
struct BoundaryObjectRef {
    const ObjectProperties* properties = nullptr;
    SourceLocation where;
    Box box;
    const char* element = ""; ///< "tank" or "obstacle"
};
std::vector<BoundaryObjectRef> boundary_objects(const Case& c);

/// Whether any boundary object of c moves: a prescribed motion or a floating body.
bool has_motion(const Case& c);
/// Whether any boundary object of c floats.
bool has_floating(const Case& c);

} // namespace sluice

namespace sluice {

/// Names as written in case files (also used in logs and summary.json).
const char* to_string(KernelKind k);           ///< "wendland", "cubic-spline"
const char* to_string(ViscosityKind v);        ///< "artificial", "laminar"
const char* to_string(DensityDiffusionKind d); ///< "none", "molteni", "fourtakas", "antuono"
const char* to_string(FormulationKind f);      ///< "classical", "riemann"

/// Sets the pair terms with their defaults (cases/README.md): the Riemann terms take no
/// artificial viscosity and no other density diffusion, the classical ones the artificial
/// viscosity 0.01 and Molteni's diffusion; a laminar viscosity stays. Nothing changes when f is
/// p's already. The reader starts a `<physics>` with it, `--formulation` replaces a case's.
void set_formulation(Physics& p, FormulationKind f);

/// The physics choices a command line may override (run, check, bench, tune): each one given
/// replaces the case's.
struct PhysicsOverrides {
    std::optional<BoundaryKind> boundary;          ///< <physics boundary>
    std::optional<ShiftingKind> shifting;          ///< <physics shifting>
    std::optional<FormulationKind> formulation;    ///< <physics formulation>, set_formulation
    std::optional<DensityDiffusionKind> diffusion; ///< <physics diffusion>

    /// Applies the given ones to p; the formulation first, so that a given diffusion replaces
    /// the one set_formulation chose.
    void apply(Physics& p) const;
};

/// The condition mDBC walls take: free slip with the Riemann terms (physics/riemann.h: they see
/// a wall through the fluid's mirrored normal velocity), else p.slip.
SlipKind wall_slip(const Physics& p);
const char* to_string(IntegratorKind i); ///< "symplectic", "verlet"
const char* to_string(BoundaryKind b);   ///< "dbc", "mdbc"
const char* to_string(SlipKind s);       ///< "noslip", "freeslip"
const char* to_string(ShiftingKind s);   ///< "none", "fickian"
const char* to_string(ProbeField f);     ///< "pressure", "velocity", "density", "fraction"
/// Space-separated face names of a TankFace mask, in the order bottom top left right front back.
std::string tank_faces_to_string(unsigned faces);

} // namespace sluice
