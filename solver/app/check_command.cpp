// `sluice check CASE.xml`: validates a case and prints what a run would use.

#include "app/check_case.h"
#include "app/command_line.h"

#include "app/preflight.h"

#include "backends/simulation.h"
#include "io/output.h"

#include "backends/backend_options.h"
#include "case/body_table.h"
#include "case/constants.h"
#include "case/gauge_plan.h"
#include "case/motion_table.h"
#include "case/particles.h"
#include "case/resolution_checks.h"
#include "case/wall_normals.h"
#include "io/async_output.h"
#include "neighbours/grid.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace sluice {

namespace {

/// The pre-flight line: particles and memory estimated from the geometry against what the
/// machine has.
void print_preflight(std::ostream& out, const PreflightReport& r, Backend backend) {
    out << "  pre-flight      about " << format_count(r.particles.total()) << " particles ("
        << format_count(r.particles.fluid) << " fluid, " << format_count(r.particles.boundary)
        << " boundary) from the geometry; host memory " << format_bytes(r.host_needed) << " of "
        << (r.host_available > 0 ? format_bytes(r.host_available) : std::string("unknown"))
        << " available";
    if (backend == Backend::cuda)
        out << "; GPU memory " << format_bytes(r.device_needed) << " of "
            << (r.device_available > 0 ? format_bytes(r.device_available) + " free"
                                       : std::string("? (no GPU visible)"));
    out << "\n";
}

/// "nx x nz" or "nx x ny x nz": the bins of the grid over the case's domain.
std::string grid_dims_text(const GridSummary& grid) {
    std::ostringstream s;
    for (int k = 0; k < grid.dimension; ++k)
        s << (k ? " x " : "") << grid.dims[static_cast<std::size_t>(k)];
    return s.str();
}

/// The wall-normal line: how many boundary particles get an mDBC normal and ghost node from the
/// geometry (case/wall_normals.h), and where up to five of those without one are.
void print_wall_normals(std::ostream& out, const Case& c, const ParticleSet& particles) {
    const std::vector<Eigen::Vector3d> boundary(particles.position.begin(),
                                                particles.position.begin() +
                                                    static_cast<long>(particles.boundary_count));
    const std::vector<WallGhost> ghosts = wall_ghosts(c, boundary);
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < ghosts.size(); ++i)
        if (!ghosts[i].found)
            missing.push_back(i);
    out << "  wall normals    " << ghosts.size() - missing.size() << " of " << ghosts.size()
        << " boundary particles (" << missing.size() << " without one)";
    for (std::size_t k = 0; k < missing.size() && k < 5; ++k) {
        const Eigen::Vector3d& p = boundary[missing[k]];
        out << (k ? ", " : ": at ") << "(" << p.x() << " ";
        if (c.dimension == 3)
            out << p.y() << " ";
        out << p.z() << ")";
    }
    out << (missing.size() > 5 ? ", ...\n" : "\n");
    const Physics& p = c.physics;
    out << "  pair terms      " << to_string(p.formulation);
    if (p.formulation == FormulationKind::riemann)
        out << " (Zhang, Hu & Adams 2017; limiter eta = " << p.riemann_limiter << ")";
    else
        out << " (" << to_string(p.viscosity) << " viscosity " << p.viscosity_value << ")";
    out << ", diffusion " << to_string(p.diffusion);
    if (p.diffusion != DensityDiffusionKind::none)
        out << " (delta = " << p.diffusion_coef << ")";
    if (p.formulation == FormulationKind::riemann && p.viscosity == ViscosityKind::laminar)
        out << ", laminar viscosity " << p.viscosity_value << " m^2/s";
    out << "\n";
    out << "  walls           " << to_string(c.physics.boundary);
    if (c.physics.boundary == BoundaryKind::mdbc)
        out << " (" << to_string(wall_slip(c.physics)) << "; ghost nodes through the wall surface)";
    out << "\n";
    out << "  shifting        " << to_string(c.physics.shifting);
    if (c.physics.shifting == ShiftingKind::fickian) {
        out << " (A = " << c.physics.shifting_coef
            << "; free surface below div r = " << shifting_surface_threshold(c) << ")";
    }
    out << "\n";
}

/// A wave maker's line: its theory's wave (case/wave_maker.h), so that kd, the wavelength and
/// the paddle's stroke are seen before a run.
std::string wave_maker_text(const WaveMakerMotion& m) {
    const WaveMakerSpec& w = m.spec;
    std::ostringstream t;
    const bool piston = w.kind == WaveMakerKind::piston;
    t << (piston ? "piston" : "flap") << " wave maker, ";
    const std::vector<PaddleComponent> paddle = paddle_motion(w);
    const double period = w.waves == WaveSpectrum::regular ? w.period : w.peak_period;
    const double omega = 2.0 * 3.14159265358979323846 / period;
    const double k = wave_number(omega, w.depth, w.gravity);
    if (w.waves == WaveSpectrum::regular)
        t << "regular waves H = " << w.height << " m, T = " << w.period << " s";
    else
        t << "JONSWAP Hs = " << w.significant_height << " m, Tp = " << w.peak_period << " s, gamma "
          << w.gamma << ", " << w.components << " components, seed " << w.seed;
    t << ", depth " << w.depth << " m: L = " << 2.0 * 3.14159265358979323846 / k
      << " m, kd = " << k * w.depth;
    if (w.waves == WaveSpectrum::regular)
        t << ", " << (piston ? "stroke S = " : "flap angle amplitude ")
          << (piston ? 2.0 * paddle[0].amplitude : paddle[0].amplitude * 180.0 / 3.14159265358979)
          << (piston ? " m" : " degrees") << (w.second_order ? " + Madsen's second order" : "");
    t << ", ramp " << w.ramp << " s";
    return t.str();
}

/// The floating objects: each one's mass, centre of mass and inertia (given or from its shape,
/// case/body_table.h), its constraints and springs, and where it would float in still water of
/// the case's density, upright as generated (or that it sinks): a set-up mistake shows here.
void print_bodies(std::ostream& out, const Case& c) {
    const bool three = c.dimension == 3;
    const char* per = three ? "" : "/m";
    for (const Obstacle& o : c.obstacles) {
        if (!o.object.floating)
            continue;
        const Floating& f = *o.object.floating;
        const BodyMass m = body_mass(c, o);
        out << "  floating        '" << o.object.name << "': mass " << m.mass << " kg" << per
            << (m.mass_given ? "" : " (density x shape volume)") << ", mean density "
            << m.mass / m.volume << " kg/m3\n";
        out << "                  centre of mass (" << m.center.x() << ", ";
        if (three)
            out << m.center.y() << ", ";
        out << m.center.z() << ") m" << (m.center_given ? "" : " (the shape's centroid)") << "\n";
        out << "                  inertia ";
        if (three)
            out << "[" << m.inertia(0, 0) << " " << m.inertia(0, 1) << " " << m.inertia(0, 2)
                << "; " << m.inertia(1, 1) << " " << m.inertia(1, 2) << "; " << m.inertia(2, 2)
                << "]";
        else
            out << "Iyy " << m.inertia(1, 1);
        out << " kg*m2" << per << " about the centre"
            << (m.inertia_given ? "" : " (the shape's, uniform density)") << "\n";
        out << "                  ";
        if (const auto level = floating_level(c, o, m))
            out << "floats in still water with its surface at z = " << *level << " m (draft "
                << *level - o.box.min.z() << " m above its bottom at z = " << o.box.min.z()
                << " m)";
        else
            out << "sinks: heavier than the water it displaces (" << c.constants.rho0 * m.volume
                << " kg" << per << ")";
        if (f.hinge)
            out << "; hinged at (" << f.hinge->point.transpose() << ")";
        if (!f.springs.empty())
            out << "; " << f.springs.size() << " spring(s)";
        if (f.start > 0.0)
            out << "; held until t = " << f.start << " s";
        out << "\n";
    }
}

/// The boundary objects: each one's particles (when generated), name, motion; the damping
/// zones. The motion tables are a run's (run_motion_tables), and every moving object's swept box
/// is worked out as the reader's default domain does.
void print_objects(std::ostream& out, const Case& c, const ParticleSet* particles) {
    const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
    for (std::size_t k = 0; k < objects.size(); ++k) {
        const ObjectProperties& p = *objects[k].properties;
        out << (k ? "                  " : "  objects         ") << objects[k].element << " (line "
            << objects[k].where.line;
        if (particles && k < particles->objects.size())
            out << ", " << particles->objects[k].count << " particles";
        out << ")";
        if (!p.name.empty())
            out << " '" << p.name << "': force and moment in forces.csv";
        if (p.motion) {
            out << "; moves:";
            for (const MotionSegment& seg : p.motion->segments) {
                out << " " << segment_name(seg.motion) << " " << seg.start << "-"
                    << (std::isfinite(seg.end) ? std::to_string(seg.end) : std::string("end"))
                    << " s";
                if (const auto* w = std::get_if<WaveMakerMotion>(&seg.motion))
                    out << " (" << wave_maker_text(*w) << ")";
            }
        }
        out << "\n";
    }
    print_bodies(out, c);
    if (has_motion(c)) {
        const MotionTables tables = run_motion_tables(c);
        for (std::size_t k = 0; k < objects.size(); ++k)
            if (objects[k].properties->motion)
                swept_box(tables, static_cast<std::uint32_t>(k), objects[k].box, c.run.end_time);
        out << "  wall speed      at most " << tables.speed_bound << " m/s over the run\n";
    }
    for (const DampingZone& z : c.damping)
        out << "  damping         line " << z.line << ": over " << (z.end - z.start).norm()
            << " m, reduction " << z.reduction << " 1/s\n";
}

/// The gauges' line: the columns of gauges.csv and the points sampled, from the plan a run
/// makes (case/gauge_plan.h), so that a gauge the plan cannot make fails here, not in a run.
void print_gauges(std::ostream& out, const Case& c, double support) {
    if (c.gauges.gauges.empty())
        return;
    const GaugePlan plan(c, support);
    const std::size_t columns = plan.columns().size();
    out << "  gauges          " << columns << (columns == 1 ? " column" : " columns")
        << " in gauges.csv every " << c.gauges.interval << " s (" << plan.request().points.size()
        << " fluid and " << plan.request().wall_points.size() << " wall sample points)\n";
}

/// The neighbour grid, the memory estimate for `particles` particles, the run's times and the
/// snapshots' settings.
void print_setup(std::ostream& out, const Case& c, std::uint64_t particles, double support) {
    const MemoryEstimate memory = estimate_cpu_memory(c, particles);
    out << "  neighbours      " << c.neighbours.name() << ", grid "
        << grid_dims_text(neighbour_grid(c)) << " = " << memory.bins << " bins of "
        << c.neighbours.bin_width * support << " m"
        << (c.neighbours_auto ? " (auto: run times every module first and takes the fastest)" : "")
        << "\n"
        << "  memory (est.)   " << format_bytes(static_cast<double>(memory.total())) << " ("
        << memory.bytes_per_particle << " B per particle + "
        << format_bytes(static_cast<double>(memory.grid_bytes)) << " grid) on the CPU backend\n"
        << "  run             end time " << c.run.end_time << " s, output every "
        << c.run.output_interval << " s to " << c.run.output_dir << "\n"
        << "  snapshots       " << to_string(c.output.format.compressor)
        << (c.output.format.level ? " level " + std::to_string(c.output.format.level) : "")
        << ", fields: id type " << fields_to_string(c.output.format) << ", walls "
        << (c.output.boundary_only_first ? "in the first only" : "in every snapshot") << ", "
        << (c.output.writers ? c.output.writers : default_writer_count()) << " writer thread(s)\n";
}

} // namespace

void check_case(std::ostream& out, const Case& c, Backend backend, const CheckLimits& limits) {
    PreflightReport preflight_report = preflight(c, backend);
    if (limits.host_memory > 0.0 && (preflight_report.host_available <= 0.0 ||
                                     limits.host_memory < preflight_report.host_available))
        preflight_report.host_available = limits.host_memory;
    print_preflight(out, preflight_report, backend);
    out.flush();
    require_fits(preflight_report, backend);
    const double estimate = preflight_report.particles.total();
    if (estimate > limits.max_generated_particles) {
        out << "  particles       not generated: about " << format_count(estimate)
            << " estimated, above this check's limit of "
            << format_count(limits.max_generated_particles) << "\n";
        const double support = 2.0 * smoothing_length(c);
        print_objects(out, c, nullptr);
        print_gauges(out, c, support);
        print_setup(out, c, static_cast<std::uint64_t>(estimate), support);
        return;
    }
    const ParticleSet particles = generate_particles(c);
    const DerivedConstants& k = particles.constants;
    out << "  particles       " << particles.size() << " (" << particles.fluid_count << " fluid, "
        << particles.boundary_count << " boundary)\n"
        << "  dp              " << c.dp << " m\n";
    if (const std::string note = dp_override_note(c); !note.empty())
        out << "                  (" << note << ")\n";
    print_wall_normals(out, c, particles);
    print_objects(out, c, &particles);
    print_gauges(out, c, k.support);
    out << "  h               " << k.h << " m (support 2h = " << k.support << " m)\n"
        << "  c0              " << k.speed_of_sound << " m/s\n"
        << "  initial dt      " << k.initial_dt << " s\n";
    print_setup(out, c, particles.size(), k.support);
}

namespace {

/// check --write DIR: the snapshot a run of `c` starts from (the CPU backend's, at t = 0: what
/// `sluice run` writes first, the mDBC wall normals included) as DIR/<name>_0000.vtp with its
/// .pvd. (check_command refuses a folder that holds a run's output: the series writer would
/// clear it.)
void write_generated(const Case& c, const std::filesystem::path& dir) {
    const std::unique_ptr<Simulation> sim = make_simulation(c, Backend::cpu);
    const Snapshot snapshot = sim->snapshot();
    SnapshotSeriesWriter writer(dir, c.name);
    writer.set_format(c.output.format, false);
    const std::filesystem::path file = writer.write(snapshot);
    std::cout << "  written         " << file.string() << " (" << snapshot.size()
              << " particles at t = 0) and " << (dir / (c.name + ".pvd")).string() << "\n";
}

} // namespace

int check_command(const Options& o) {
    if (o.write_generated && std::filesystem::exists(*o.write_generated + "/summary.json"))
        throw UsageError("--write " + *o.write_generated +
                             ": the folder holds a run's output (summary.json), which writing "
                             "there would remove; give another folder",
                         "check");
    const Case c = load_case(o);
    std::cout << o.case_path << ": valid\n"
              << "  case            " << c.name << " (" << c.dimension << "D)\n";
    check_case(std::cout, c, o.backend);
    if (o.write_generated)
        write_generated(c, *o.write_generated);
    return exit_ok;
}

} // namespace sluice
