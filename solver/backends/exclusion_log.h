#pragma once
/// \file exclusion_log.h
/// Which particles have left the domain, so that each is reported once (both backends).

#include "backends/simulation.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sluice {

/// Which particles have left the domain, so that Simulation::take_exclusions reports each once.
class ExclusionLog {
public:
    explicit ExclusionLog(std::size_t particles = 0) : recorded_(particles, false) {}

    /// Records the particles ids[0, count) (excluded at the end of `step`, time `time`) that
    /// were not recorded before; position_of(k) gives the position (x, y, z) of ids[k] and
    /// type_of(k) its ParticleType.
    template <class PositionOfT, class TypeOfT>
    void record(std::uint32_t count, const std::uint32_t* ids, PositionOfT position_of,
                TypeOfT type_of, std::uint64_t step, double time) {
        const std::size_t first = pending_.size();
        for (std::uint32_t k = 0; k < count; ++k) {
            if (recorded_[ids[k]])
                continue;
            recorded_[ids[k]] = true;
            pending_.push_back({ids[k], step, time, position_of(k), type_of(k)});
        }
        std::sort(pending_.begin() + static_cast<std::ptrdiff_t>(first), pending_.end(),
                  [](const Exclusion& a, const Exclusion& b) { return a.id < b.id; });
    }

    /// Marks particles as already reported (a restored run's earlier exclusions).
    void mark_reported(const std::vector<std::uint32_t>& ids) {
        for (const std::uint32_t id : ids)
            if (id < recorded_.size())
                recorded_[id] = true;
    }

    /// Every particle reported so far, ascending.
    std::vector<std::uint32_t> reported() const {
        std::vector<std::uint32_t> out;
        for (std::size_t id = 0; id < recorded_.size(); ++id)
            if (recorded_[id])
                out.push_back(static_cast<std::uint32_t>(id));
        return out;
    }

    /// The exclusions recorded since the last call, by step and then id.
    std::vector<Exclusion> take() {
        std::vector<Exclusion> out;
        out.swap(pending_);
        return out;
    }

private:
    std::vector<bool> recorded_; ///< by id
    std::vector<Exclusion> pending_;
};

} // namespace sluice
