#pragma once
/// \file report.h
/// neighbours_bench's report: a markdown header (device, command, timing), markdown tables per
/// configuration, the targets, and the CSV (one row per module and configuration; its
/// columns are what postprocess/plot_neighbour_bench.py reads).

#include "options.h"
#include "results.h"

#include <ostream>
#include <string>
#include <vector>

namespace sluice::bench {

/// The markdown header: device, CUDA versions, date, command line and how times are taken.
/// \throws CudaError where the device cannot be queried.
void print_device(std::ostream& out, int argc, char** argv, const Options& o);

/// Markdown tables of the configuration of `f` (same_configuration), one line per query label
/// and per construction label.
void print_tables(const std::vector<Row>& rows, const Row& f, std::ostream& out);

/// The targets (issue 3), where `rows` holds the rows they need.
void print_targets(const std::vector<Row>& rows, std::ostream& out);

/// The CSV columns, in order.
const std::vector<std::string>& csv_columns();

/// Writes every row to `path` afresh (csv_row.h: header, then a row per Row).
/// \throws std::runtime_error if the file cannot be written.
void write_csv(const std::vector<Row>& rows, const std::string& path);

} // namespace sluice::bench
