#pragma once
/// \file floating_reader.h
/// The case reader's part for floating objects (case/floating_model.h; the XML in
/// cases/README.md, "<floating>"): an obstacle's <floating> element with its <hinge> and
/// <spring> children, and the checks that need the whole case.

#include "case/case_model.h"
#include "case/xml_reading.h"

namespace sluice::case_xml {

/// Reads a <floating> element (the obstacle's child).
Floating read_floating(const Reader& r, const Element& e);

/// The checks of floating objects that need the whole case (after the domain is known): a
/// floating object is a named obstacle without a <motion>; a spring's other body exists, floats
/// and is not the body itself; the centre of mass, the hinge's point and the springs' points lie
/// in the domain; the mass and inertia make a body (a positive mass, an inertia tensor that is
/// symmetric and positive definite and satisfies the triangle inequalities of its principal
/// moments).
void check_floating(const Reader& r, const Case& c);

} // namespace sluice::case_xml
