// The command line of `sluice surface` and `sluice measure` (command_line.h,
// add_series_commands): the commands that read a finished run back.

#include "app/command_line.h"

#include <CLI/CLI.hpp>

#include <string>

namespace sluice {

namespace {

/// A finite number ≥ `least` (strict: > least); CLI11's own checks let "nan" through.
CLI::Validator finite_number(double least, bool strict, const char* what) {
    return CLI::Validator(
        [=](const std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !std::isfinite(v) || v < least ||
                (strict && !(v > least)))
                return std::string("expects ") + what + ", got '" + text + "'";
            return {};
        },
        "");
}

/// RUN_DIR, --case, --time, --every, --out, --backend: what both commands share.
void add_series_options(CLI::App* command, SeriesOptions& s, std::string& backend_name,
                        const char* writes) {
    command
        ->add_option("RUN_DIR", s.folder, "the output folder of a run (its summary.json and .pvd)")
        ->required()
        ->type_name("");
    command
        ->add_option_function<std::string>(
            "--case", [&s](const std::string& f) { s.case_file = f; },
            "the run's case file, when it is no longer where summary.json says (the run's "
            "command-line overrides still apply)")
        ->type_name("CASE.xml");
    command
        ->add_option_function<double>(
            "--time", [&s](double t) { s.time = t; },
            "only the snapshot nearest this time in s (default: every snapshot)")
        ->check(finite_number(0.0, false, "a time in s, 0 or more"))
        ->type_name("T");
    command->add_option("--every", s.every, "every N-th snapshot of the series (from the first)")
        ->check(CLI::PositiveNumber.description(""))
        ->capture_default_str()
        ->type_name("N");
    command
        ->add_option_function<std::string>(
            "--out", [&s](const std::string& d) { s.out = d; },
            std::string("the folder to write ") + writes + " to (default: RUN_DIR)")
        ->type_name("DIR");
    const std::string help =
        "where the interpolation runs: cpu or cuda (default: cuda when a GPU is present, else "
        "cpu; here " +
        backend_name + ")";
    command->add_option("--backend", backend_name, help)
        ->check(CLI::IsMember({"cpu", "cuda"}).description(""))
        ->type_name("cpu|cuda");
}

} // namespace

void add_series_commands(CLI::App& app, Options& o, std::string& backend_name) {
    SeriesOptions& s = o.series;
    CLI::App* surface = app.add_subcommand(
        "surface", "the free surface of each snapshot of a run: NAME_surface_NNNN.vtp (triangles "
                   "in 3D, lines in 2D) and NAME_surface.pvd, with velocity, pressure and "
                   "density on the surface");
    add_series_options(surface, s, backend_name, "the surfaces");
    surface
        ->add_option_function<double>(
            "--spacing", [&s](double d) { s.spacing = d; },
            "the spacing in m of the grid the fluid fraction is interpolated on (default dp/2)")
        ->check(finite_number(0.0, true, "a positive spacing in m"))
        ->type_name("M");
    surface
        ->add_option("--max-grid-points", s.max_grid_points,
                     "refuse a grid larger than this (4 bytes of host memory a point, twice)")
        ->check(finite_number(1.0, false, "a number of points, 1 or more"))
        ->capture_default_str()
        ->type_name("N");

    CLI::App* measure = app.add_subcommand(
        "measure", "fields of a run's snapshots at points, along lines, on vertical level lines "
                   "and over planes chosen after the run: NAME.csv (gauges.csv's columns) and, "
                   "for planes, NAME_PLANE.pvd");
    add_series_options(measure, s, backend_name, "NAME.csv and the planes' series");
    measure->add_option("--point", s.points, "a point: NAME=X,Y,Z (2D: NAME=X,Z), m")
        ->type_name("SPEC")
        ->allow_extra_args(false);
    measure
        ->add_option("--height", s.heights,
                     "the water level on a vertical line, as a <height> gauge: NAME=X,Y (2D: "
                     "NAME=X), m")
        ->type_name("SPEC")
        ->allow_extra_args(false);
    measure
        ->add_option("--line", s.lines,
                     "N points from one end to the other, each a point NAME_k: NAME=X0,Y0,Z0:X1,"
                     "Y1,Z1:N (2D: NAME=X0,Z0:X1,Z1:N)")
        ->type_name("SPEC")
        ->allow_extra_args(false);
    measure
        ->add_option("--plane", s.planes,
                     "a grid over the parallelogram from the corner O along A−O and B−O, NA × NB "
                     "points: NAME=OX,OY,OZ:AX,AY,AZ:BX,BY,BZ:NA,NB (2D: NAME=OX,OZ:AX,AZ:BX,BZ:"
                     "NA,NB, in the x–z plane)")
        ->type_name("SPEC")
        ->allow_extra_args(false);
    measure
        ->add_option_function<std::string>(
            "--file", [&s](const std::string& f) { s.file = f; },
            "measurements one per line, as 'point SPEC', 'height SPEC', 'line SPEC', 'plane "
            "SPEC'; # starts a comment")
        ->type_name("FILE");
    measure->add_option("--name", s.name, "the name of what is written: NAME.csv, NAME_PLANE.pvd")
        ->capture_default_str()
        ->type_name("NAME");
    measure
        ->add_option("--fields", s.fields,
                     "the fields of points and lines: any of pressure, velocity, density, "
                     "fraction (the fluid fraction)")
        ->capture_default_str()
        ->type_name("LIST");
}

} // namespace sluice
