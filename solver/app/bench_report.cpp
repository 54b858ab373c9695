#include "app/bench_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace sluice {

std::string bench_fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

std::string bench_general(double v) {
    std::ostringstream s;
    s << std::setprecision(3) << v;
    return s.str();
}

void compare_final_states(BenchModuleResult& r, const Snapshot& reference, double dp, double rho0,
                          double tolerance, bool developed) {
    const Snapshot& s = r.final_state;
    double dx = 0.0, drho = 0.0;
    std::size_t only_one = 0;
    std::size_t i = 0, k = 0;
    while (i < s.size() || k < reference.size()) {
        if (k == reference.size() || (i < s.size() && s.id[i] < reference.id[k])) {
            ++only_one, ++i;
            continue;
        }
        if (i == s.size() || reference.id[k] < s.id[i]) {
            ++only_one, ++k;
            continue;
        }
        for (int a = 0; a < 3; ++a)
            dx = std::max<double>(dx, std::fabs(s.position[i][a] - reference.position[k][a]));
        drho = std::max<double>(drho, std::fabs(s.density[i] - reference.density[k]));
        if (!std::isfinite(s.position[i][0]) || !std::isfinite(s.density[i]))
            dx = HUGE_VAL;
        ++i, ++k;
    }
    r.max_dx_over_dp = dx / dp;
    r.max_drho_over_rho0 = drho / rho0;
    r.particles_in_one_state = only_one;
    if (only_one > 0 && !developed) {
        r.agrees = false;
        r.disagreement =
            "particles " + std::to_string(s.size()) + " vs " + std::to_string(reference.size());
    } else if (!(r.max_dx_over_dp <= tolerance)) {
        r.agrees = false;
        r.disagreement = "max |dx| = " + bench_general(r.max_dx_over_dp) + " dp";
    }
}

namespace {

void print_row(std::ostream& out, const BenchModuleResult& r, bool with_output, bool with_gauges) {
    const double share = (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step;
    out << "| " << r.module.name() << " | " << bench_fixed(r.ms_per_step, 3) << " | "
        << bench_fixed(r.stage_ms[0], 3) << " | " << bench_fixed(r.stage_ms[1], 3) << " | "
        << bench_fixed(r.stage_ms[2], 3) << " | " << bench_fixed(r.stage_ms[3], 3) << " | "
        << bench_fixed(r.rest_ms, 3) << " | ";
    if (with_output)
        out << bench_fixed(r.output_wait_ms, 3) << " | " << r.snapshots << " | ";
    if (with_gauges)
        out << bench_fixed(r.interleaved_ms_per_step, 3) << " | "
            << bench_fixed(r.gauged_ms_per_step, 3) << " | "
            << bench_fixed(100.0 * (r.gauged_ms_per_step / r.interleaved_ms_per_step - 1.0), 2)
            << " % | ";
    out << bench_fixed(100.0 * share, 1) << " % | " << bench_fixed(r.mparticle_steps, 1) << " | "
        << bench_fixed(r.bytes_per_particle, 0) << " | " << bench_general(r.max_dx_over_dp) << " | "
        << bench_general(r.max_drho_over_rho0)
        << (r.agrees ? "" : " (DIFFERS: " + r.disagreement + ")")
        << (r.agrees && r.particles_in_one_state ? " (" + std::to_string(r.particles_in_one_state) +
                                                       " particle(s) excluded at a different step)"
                                                 : "")
        << " |\n";
}

/// What the columns mean, and whether the modules agree.
void print_notes(std::ostream& out, const BenchSetting& s,
                 const std::vector<BenchModuleResult>& results, bool all_agree) {
    const BenchOptions& options = s.options;
    const bool with_output = options.output_interval.has_value();
    const bool with_gauges = options.gauges;
    out << "\nms per step: wall time of the timed steps over their number; the stages are "
        << (s.gpu ? "CUDA-event" : "stage-clock")
        << " times per step (interaction includes the neighbour queries), rest = ms/step − "
           "the four stages (dt, checks, the per-step host synchronisation"
        << (with_output ? ", the output wait: the stepping thread starting snapshot copies and "
                          "waiting for a free copy slot or writer"
                        : "")
        << ")"
        << (with_gauges ? ". With gauges: the case's " + std::to_string(s.c.gauges.gauges.size()) +
                              " gauge(s) (" + std::to_string(s.gauge_points) + " query points, " +
                              std::to_string(s.gauge_fronts) +
                              " front(s)) timed over twice the steps again, in alternating "
                              "blocks (of 10 steps, fewer for short runs) without and with the "
                              "gauges sampled after every "
                              "step; gauge cost = with / without, less 1"
                        : std::string())
        << ". Neighbour share = "
           "(construction + reorder) / ms per step. Final states compared with "
        << results.front().module.name() << " after "
        << options.warmup_steps + options.steps * (with_gauges ? 3 : 1)
        << " steps: " << (all_agree ? "all agree" : "SOME DIFFER")
        << " (tolerance: max |dx| <= " << options.tolerance << " dp over the particles in both, "
        << (s.developed ? "which from a developed flow may differ by splashing particles excluded "
                          "a step apart"
                        : "equal particle counts")
        << ").\n";
}

} // namespace

void print_bench_table(std::ostream& out, const BenchSetting& s,
                       const std::vector<BenchModuleResult>& results, bool all_agree) {
    const BenchOptions& options = s.options;
    const bool with_output = options.output_interval.has_value();
    const bool with_gauges = options.gauges;
    out << "| module | ms/step | construction | reorder | interaction | integration | rest | "
        << (with_output ? "output wait | snapshots | " : "")
        << (with_gauges ? "ms/step without / with gauges | | gauge cost | " : "")
        << "neighbour share | M particle-steps/s | bytes/particle | max dx/dp | max drho/rho0 |\n"
        << "|---|---:|---:|---:|---:|---:|---:|" << (with_output ? "---:|---:|" : "")
        << (with_gauges ? "---:|---:|---:|" : "") << "---:|---:|---:|---:|---:|\n";
    for (const BenchModuleResult& r : results)
        print_row(out, r, with_output, with_gauges);
    print_notes(out, s, results, all_agree);
    const bool symplectic = s.c.physics.integrator == IntegratorKind::symplectic;
    if (s.gpu && symplectic && options.cuda.corrector == CorrectorNeighbours::lists) {
        out << "Timed steps whose passes read the neighbour lists (and of those on an earlier "
               "step's build):";
        for (const BenchModuleResult& r : results)
            out << ' ' << r.module.name() << ' ' << bench_fixed(100.0 * r.corrector_list_share, 0)
                << " % (" << bench_fixed(100.0 * r.kept_list_share, 0) << " %)"
                << (&r == &results.back() ? "" : ",");
        out << ".\n";
    }
    const auto fastest = std::min_element(
        results.begin(), results.end(), [](const BenchModuleResult& a, const BenchModuleResult& b) {
            return a.ms_per_step < b.ms_per_step;
        });
    out << "fastest: " << fastest->module.name() << ", " << bench_fixed(fastest->ms_per_step, 3)
        << " ms per step = " << bench_fixed(fastest->mparticle_steps, 1)
        << " million particle-steps per second\n";
}

void write_bench_csv(const std::string& path, const BenchSetting& s,
                     const std::vector<BenchModuleResult>& results) {
    const Case& c = s.c;
    const BenchOptions& options = s.options;
    std::ofstream csv(path);
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + path);
    csv << "case,dimension,particles,fluid,boundary,dp_m,h_over_dp,integrator,backend,device,"
           "steps,module,construction,query,bin_width,layout,ms_per_step,construction_ms,reorder_"
           "ms,"
           "interaction_ms,integration_ms,rest_ms,neighbour_share,mparticle_steps_per_s,"
           "bytes_per_particle,final_particles,max_dx_over_dp,max_drho_over_rho0,agrees,"
           "start_time_s,output_interval_s,output_wait_ms,snapshots,interleaved_ms_per_step,"
           "gauged_ms_per_step,corrector_list_share\n";
    csv << std::setprecision(9);
    for (const BenchModuleResult& r : results) {
        csv << c.name << ',' << c.dimension << ',' << s.particles << ',' << s.fluid << ','
            << s.boundary << ',' << c.dp << ',' << s.h / c.dp << ','
            << to_string(c.physics.integrator) << ',' << (s.gpu ? "cuda" : "cpu") << ",\""
            << (s.gpu ? cuda_device_name() : std::string("cpu")) << "\"," << options.steps << ','
            << r.module.name() << ',' << construction_name(r.module.construction) << ','
            << query_name(r.module.query) << ',' << r.module.bin_width << ','
            << layout_name(r.module.layout) << ',' << r.ms_per_step << ',' << r.stage_ms[0] << ','
            << r.stage_ms[1] << ',' << r.stage_ms[2] << ',' << r.stage_ms[3] << ',' << r.rest_ms
            << ',' << (r.stage_ms[0] + r.stage_ms[1]) / r.ms_per_step << ',' << r.mparticle_steps
            << ',' << r.bytes_per_particle << ',' << r.final_particles << ',' << r.max_dx_over_dp
            << ',' << r.max_drho_over_rho0 << ',' << (r.agrees ? 1 : 0) << ',' << s.start_time
            << ',' << (options.output_interval ? *options.output_interval : 0.0) << ','
            << r.output_wait_ms << ',' << r.snapshots << ',' << r.interleaved_ms_per_step << ','
            << r.gauged_ms_per_step << ',' << r.corrector_list_share << '\n';
    }
    if (!csv)
        throw std::runtime_error("cannot write the bench CSV " + path);
}

} // namespace sluice
