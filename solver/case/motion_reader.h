#pragma once
/// \file motion_reader.h
/// The case reader's part for boundary objects and moving boundaries (case_reader.cpp calls it):
/// an object's name, moment point and <motion> (case/motion_model.h; the XML in
/// cases/README.md, "<motion>"), <damping> zones, and the checks that need the whole case (the
/// run's end time): names unique, moving objects inside the domain for the whole run.

#include "case/case_model.h"
#include "case/xml_reading.h"

namespace sluice::case_xml {

/// The attributes every boundary object takes besides its geometry: add them to its Element's
/// list (and "motion" to its children).
inline const Names object_attributes = {"name", "momentPoint"};

/// Reads name, momentPoint and the <motion> child of a <tank> or <obstacle>. `case_file` is the
/// case file's path: a <file> segment's CSV is read relative to its folder.
ObjectProperties read_object_properties(const Reader& r, const Element& e, const Constants& k);

/// Reads a <damping start end [reduction]> element of <geometry>.
DampingZone read_damping(const Reader& r, const Element& e);

/// The checks of objects and damping zones that need the whole case (read_document calls it
/// last): object names unique and CSV-safe, moving objects inside the domain up to the run's end
/// time (first_domain_exit), damping zones inside the domain.
void check_objects(const Reader& r, const Case& c);

} // namespace sluice::case_xml
