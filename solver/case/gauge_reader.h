#pragma once
/// \file gauge_reader.h
/// The case reader's part for <gauges> (case_reader.cpp calls it once the domain is known): level
/// lines, probes, fronts and wall pressure sensors (cases/README.md, "<gauges>"), every gauge
/// inside the domain and every sensor's face on its wall (case/gauge_plan.h).

#include "case/case_model.h"
#include "case/xml_reading.h"

namespace sluice::case_xml {

/// Reads <gauges interval="T"> and its children into `out`; names unique and CSV-safe.
void read_gauges(const Reader& r, const Element& g, const Case& c, Gauges& out);

} // namespace sluice::case_xml
