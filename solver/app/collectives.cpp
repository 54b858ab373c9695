#include "app/collectives.h"

#include "io/checkpoint.h"

#include <algorithm>
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

/// Several processes: exclusions and an interrupt on any process, known to all (one small
/// reduction a step; the first process gathers the exclusions to report).
bool combine_step_flags(const Communicator& comm, bool stop, std::vector<Exclusion>& exclusions) {
    double flags[2] = {stop ? 1.0 : 0.0, static_cast<double>(exclusions.size())};
    comm.sum(flags, 2);
    if (flags[1] > 0.0) {
        constexpr std::size_t fields = 7; // id, step, time, x, y, z, boundary (0 or 1)
        std::vector<double> mine;
        for (const Exclusion& e : exclusions)
            mine.insert(mine.end(), {double(e.id), double(e.step), e.time, double(e.position[0]),
                                     double(e.position[1]), double(e.position[2]),
                                     e.type == ParticleType::boundary ? 1.0 : 0.0});
        exclusions.clear();
        for (const std::vector<double>& v : gather_values(comm, mine))
            for (std::size_t k = 0; k + fields <= v.size(); k += fields)
                exclusions.push_back(
                    {static_cast<std::uint32_t>(v[k]),
                     static_cast<std::uint64_t>(v[k + 1]),
                     v[k + 2],
                     {static_cast<float>(v[k + 3]), static_cast<float>(v[k + 4]),
                      static_cast<float>(v[k + 5])},
                     v[k + 6] > 0.5 ? ParticleType::boundary : ParticleType::fluid});
        std::sort(exclusions.begin(), exclusions.end(),
                  [](const Exclusion& a, const Exclusion& b) { return a.id < b.id; });
    }
    return flags[0] > 0.0;
}

/// Several processes: the slabs and each process's figures, for summary.json (collective).
DecompositionSummary decomposition_summary(const Case& c, const Simulation& sim,
                                           const Communicator& comm) {
    const SlabDecomposition d = *sim.decomposition();
    const ParticleCounts own = sim.counts();
    std::vector<double> mine = {static_cast<double>(own.fluid), static_cast<double>(own.boundary),
                                static_cast<double>(own.excluded)};
    const StageTimes stages = sim.stage_times();
    for (const auto& [name, seconds] : stages)
        mine.push_back(seconds);
    DecompositionSummary ds;
    ds.axis = axis_name(c.dimension, d.axis);
    ds.halo_width = d.halo_width;
    ds.faces = d.faces;
    ds.balance_history = d.history;
    const std::vector<std::vector<double>> each = gather_values(comm, mine);
    for (int r = 0; r < comm.size(); ++r) {
        const std::vector<double>& v = each[static_cast<std::size_t>(r)];
        ProcessSummary p;
        p.final_counts = {static_cast<std::uint64_t>(v[0]), static_cast<std::uint64_t>(v[1]),
                          static_cast<std::uint64_t>(v[2])};
        p.slab_lower = d.faces[static_cast<std::size_t>(r)];
        p.slab_upper = d.faces[static_cast<std::size_t>(r) + 1];
        for (std::size_t k = 0; k < stages.size(); ++k)
            p.stages.emplace_back(stages[k].first, v[3 + k]);
        ds.processes.push_back(std::move(p));
    }
    return ds;
}

} // namespace sluice
