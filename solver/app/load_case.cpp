// load_case (command_line.h): the case a command runs, read with the command line's overrides
// (a file of its own: command_line.cpp parses the command line, this applies it to a case).

#include "app/command_line.h"

#include "case/case_reader.h"
#include "io/vtp_file.h"

#include <cmath>
#include <string>

namespace sluice {

Case load_case(const Options& o, bool tank_lattice) {
    // --dp and --end-time go through the reader, so that every rule of a case holds at the
    // spacing and up to the time that run (walls thick enough, the domain around what moving
    // objects sweep), each error at the line of the element at fault.
    if (o.dp && !(*o.dp > 0.0 && std::isfinite(*o.dp)))
        throw UsageError("--dp expects a positive particle spacing in m, got " +
                         std::to_string(*o.dp));
    CaseOverrides overrides;
    overrides.dp = o.dp;
    overrides.coef_sound = o.coef_sound;
    overrides.end_time = o.end_time;
    overrides.tank_lattice = tank_lattice;
    Case c = read_case(o.case_path, overrides);
    if (o.out)
        c.run.output_dir = *o.out;
    if (o.neighbours) {
        c.neighbours = *o.neighbours;
        c.neighbours_auto = false; // a module named on the command line wins over the case's auto
    }
    if (o.neighbours_auto)
        c.neighbours_auto = true;
    if (o.output_interval)
        c.run.output_interval = *o.output_interval;
    if (o.max_loss)
        c.run.max_loss_percent = *o.max_loss;
    if (o.compressor)
        c.output.format.compressor = *o.compressor;
    if (o.compression_level) {
        if (c.output.format.compressor == Compressor::none)
            throw UsageError("--compression-level has no meaning with the compressor 'none'");
        c.output.format.level = *o.compression_level;
    } else if (o.compressor == Compressor::none) {
        c.output.format.level = 0; // a level the case gave for another compressor
    }
    if (o.fields)
        parse_fields(*o.fields, c.output.format);
    if (o.boundary_only_first)
        c.output.boundary_only_first = *o.boundary_only_first;
    if (o.writers)
        c.output.writers = *o.writers;
    if (o.balance_interval)
        c.run.balance_interval = *o.balance_interval;
    o.physics.apply(c.physics);
    return c;
}

} // namespace sluice
