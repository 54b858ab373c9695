#include "app/collectives.h"

#include "io/checkpoint.h"

#include <cstddef>

namespace sluice {

namespace {

std::vector<std::byte> to_bytes(const std::vector<double>& values) {
    std::vector<std::byte> out;
    ByteWriter w(out);
    for (const double v : values)
        w.put(v);
    return out;
}

std::vector<double> to_doubles(const std::vector<std::byte>& bytes) {
    std::vector<double> out(bytes.size() / sizeof(double));
    ByteReader r(bytes);
    for (double& v : out)
        v = r.get<double>();
    return out;
}

} // namespace

/// Each process's values, on every process.
std::vector<std::vector<double>> gather_values(const Communicator& comm,
                                               const std::vector<double>& mine) {
    std::vector<std::vector<double>> out;
    for (const std::vector<std::byte>& b : comm.all_gather(to_bytes(mine)))
        out.push_back(to_doubles(b));
    return out;
}

/// Counts over every process (each counts the particles it owns).
ParticleCounts run_counts(const Simulation& sim, const Communicator* comm) {
    ParticleCounts c = sim.counts();
    if (!comm)
        return c;
    std::uint64_t v[3] = {c.fluid, c.boundary, c.excluded};
    comm->sum(v, 3);
    return {v[0], v[1], v[2]};
}

OutputGroup output_group(const Communicator& comm) {
    OutputGroup g;
    g.rank = comm.rank();
    g.size = comm.size();
    g.barrier = [&comm] { comm.barrier(); };
    g.min = [&comm](double v) { return comm.min(v); };
    g.sum = [&comm](double* values, int count) { comm.sum(values, count); };
    g.gather = [&comm](const std::vector<double>& mine) { return gather_values(comm, mine); };
    return g;
}

} // namespace sluice
