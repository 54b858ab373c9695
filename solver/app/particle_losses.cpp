#include "app/particle_losses.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace sluice {

namespace {

constexpr std::size_t fluid = 0, boundary = 1;

std::size_t index_of(ParticleType type) {
    return type == ParticleType::boundary ? boundary : fluid;
}

const char* type_name(std::size_t type) {
    return type == boundary ? "boundary" : "fluid";
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

std::array<std::uint64_t, 2> excluded_by_type(const SimulationState& state) {
    std::array<std::uint64_t, 2> out{0, 0};
    // state.excluded is ascending; the state lists every particle, excluded ones included.
    for (std::size_t k = 0; k < state.size(); ++k)
        if (std::binary_search(state.excluded.begin(), state.excluded.end(), state.id[k]))
            ++out[index_of(state.type[k])];
    return out;
}

ParticleLosses::ParticleLosses(std::uint64_t fluid_at_start, std::uint64_t lost_fluid,
                               std::uint64_t lost_boundary, double max_fluid_percent)
    : fluid_at_start_(fluid_at_start),
      max_fluid_percent_(max_fluid_percent), lost_{lost_fluid, lost_boundary} {}

std::string ParticleLosses::format_percent(double percent) {
    std::ostringstream out;
    if (percent > 0.0 && percent < 0.1)
        out << std::setprecision(2) << percent;
    else
        out << std::fixed << std::setprecision(1) << percent;
    return out.str();
}

double ParticleLosses::fluid_percent() const {
    return fluid_at_start_ > 0
               ? 100.0 * static_cast<double>(lost_[fluid]) / static_cast<double>(fluid_at_start_)
               : 0.0;
}

std::vector<std::string> ParticleLosses::add(const std::vector<Exclusion>& exclusions) {
    std::vector<std::string> lines;
    for (const Exclusion& e : exclusions) {
        const std::size_t t = index_of(e.type);
        ++lost_[t];
        if (named_[t] == named_per_type) {
            ++unreported_[t];
            continue;
        }
        ++named_[t];
        std::ostringstream line;
        line << "t = " << e.time << " s (step " << e.step << "): " << type_name(t) << " particle "
             << e.id << " left the domain at (" << e.position[0] << ", " << e.position[1] << ", "
             << e.position[2] << ") m and is excluded (" << lost_[t] << " in all";
        if (named_[t] == named_per_type)
            line << "; further ones are counted at each output time";
        line << ")";
        lines.push_back(line.str());
    }
    return lines;
}

std::vector<std::string> ParticleLosses::unreported_lines(double time) {
    std::vector<std::string> lines;
    for (const std::size_t t : {fluid, boundary}) {
        if (unreported_[t] == 0)
            continue;
        std::ostringstream line;
        line << "t = " << time << " s: " << unreported_[t] << " more " << type_name(t)
             << (unreported_[t] == 1 ? " particle" : " particles") << " excluded (total "
             << lost_[t];
        if (t == fluid)
            line << ", " << format_percent(fluid_percent()) << " % of the fluid";
        line << ")";
        lines.push_back(line.str());
        unreported_[t] = 0;
    }
    return lines;
}

std::vector<std::string> ParticleLosses::total_lines() const {
    std::vector<std::string> lines;
    if (lost_[fluid] > 0)
        lines.push_back(std::to_string(lost_[fluid]) + " of " +
                        plural(fluid_at_start_, "fluid particle", "fluid particles") + " (" +
                        format_percent(fluid_percent()) + " %) left the domain and were excluded");
    if (lost_[boundary] > 0)
        lines.push_back(plural(lost_[boundary], "boundary particle", "boundary particles") +
                        " left the domain with their object and were excluded");
    return lines;
}

bool ParticleLosses::exceeded() const {
    // lost / at_start > max / 100, without rounding the share
    return static_cast<double>(lost_[fluid]) * 100.0 >
           max_fluid_percent_ * static_cast<double>(fluid_at_start_);
}

std::string ParticleLosses::limit_message() const {
    std::ostringstream msg;
    msg << lost_[fluid] << " of " << plural(fluid_at_start_, "fluid particle", "fluid particles")
        << " (" << format_percent(fluid_percent()) << " %) left the domain, more than the "
        << max_fluid_percent_ << " % a run may lose (--max-loss, <run maxLoss>)";
    return msg.str();
}

LossSummary ParticleLosses::summary() const {
    LossSummary s;
    s.fluid = lost_[fluid];
    s.fluid_at_start = fluid_at_start_;
    s.fluid_percent = fluid_percent();
    s.boundary = lost_[boundary];
    s.max_fluid_percent = max_fluid_percent_;
    s.exceeded = exceeded();
    return s;
}

} // namespace sluice
