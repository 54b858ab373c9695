#pragma once
/// \file measurements.h
/// What `sluice measure` measures: points, vertical level lines, lines of points and planes, as
/// given on its command line or in a file (solver/app/README.md, "measure"), checked against the
/// run's case and turned into the case's own gauges (case/gauge_plan.h): a point is a <probe>, a
/// level line a <height>, a line N probes NAME_0 … NAME_{N−1}; a plane is a grid of points
/// sampled the same way and written as a .vtp per snapshot.

#include "case/case_model.h"

#include <array>
#include <string>
#include <vector>

namespace sluice {

enum class MeasureKind { point, height, line, plane };

struct Measurement {
    MeasureKind kind = MeasureKind::point;
    std::string name;
    /// point: the point; height: (x, y) of the line; line: its ends a, b; plane: corner a, the
    /// ends of its edges b and c (m, 3D positions; 2D: y = 0).
    std::array<double, 3> a{}, b{}, c{};
    std::array<int, 2> count{1, 1}; ///< line: points; plane: along a→b and a→c
    std::string where;              ///< "--point P1=…" or "FILE:LINE", for messages
};

/// One measurement from its SPEC ("NAME=X,Y,Z", "NAME=X,Y", "NAME=X0,Y0,Z0:X1,Y1,Z1:N",
/// "NAME=O:A:B:NA,NB"; 2D without the y's), checked against the case: numbers finite, counts
/// ≥ 2 (a line at most 10⁴ points, a column each; a plane 10⁷, and some area), every point inside
/// the run's domain (a level line: its x, y), the name as a gauge's (letters, digits, '_', '-';
/// not `t`).
/// \throws UsageError naming `where`, the spec and what is wrong.
Measurement parse_measurement(MeasureKind kind, const std::string& spec, const Case& c,
                              const std::string& where);

/// Every line of `path` that is not blank or a comment ('#' to the end of a line) as
/// "KIND SPEC", KIND one of point, height, line, plane.
/// \throws UsageError naming the file and the line.
std::vector<Measurement> read_measurement_file(const std::string& path, const Case& c);

/// \throws UsageError when two measurements share a name (or a line's NAME_k another's name).
void require_unique_names(const std::vector<Measurement>& all);

/// The points, level lines and lines as gauges of the case (probes with `fields`).
Gauges as_gauges(const std::vector<Measurement>& all, const std::vector<ProbeField>& fields);

/// A plane's grid points, a→b fastest (m; 2D: y = 0).
std::vector<std::array<float, 3>> plane_points(const Measurement& plane);

/// The probe fields of a list such as "pressure velocity" (spaces or commas).
/// \throws UsageError naming an unknown or repeated field.
std::vector<ProbeField> parse_probe_fields(const std::string& text);

} // namespace sluice
