#include "report.h"

#include "csv_row.h"
#include "cuda_check.h"
#include "data_sets.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <set>
#include <sstream>
#include <variant>

namespace sluice::bench {

namespace {

std::string fmt(double v, int precision = 3) {
    if (std::isnan(v))
        return "–";
    std::ostringstream s;
    s << std::fixed << std::setprecision(precision) << v;
    return s.str();
}

/// "clear:0.0039|histogram:0.0123|..." (CSV) or "clear 0.0039, histogram 0.0123, ..." (markdown,
/// where '|' would split the table cell).
std::string stage_string(const Stages& stages, bool markdown = false) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(4);
    for (std::size_t i = 0; i < stages.size(); ++i)
        s << (i ? (markdown ? ", " : "|") : "") << stages[i].first << (markdown ? " " : ":")
          << stages[i].second;
    return s.str();
}

/// The row of module (c, q, w, layout) in the configuration of `like`, or nullptr.
const Row* find_row(const std::vector<Row>& rows, const Row& like, Construction c,
                    const QueryTag& q, float w, Layout layout = Layout::reorder) {
    for (const Row& r : rows)
        if (same_configuration(r, like) && r.module.construction == c &&
            r.module.query.index() == q.index() && std::fabs(r.module.bin_width - w) < 1e-6f &&
            r.module.layout == layout)
            return &r;
    return nullptr;
}

/// Against moore/1 of the same construction and layout (a linked list: counting-sort's reorder
/// moore/1, the default structure; so is an index row when its construction's reorder row is
/// missing).
double speedup_vs_moore1(const std::vector<Row>& rows, const Row& r, bool circles) {
    const Row* base = is_linked_list(r.module.construction)
                          ? find_row(rows, r, Construction::counting_sort, MooreQuery{}, 1.0f)
                          : find_row(rows, r, r.module.construction, MooreQuery{}, 1.0f);
    if (!base)
        return std::nan("");
    const double b = circles ? base->query_result.circles_ms : base->query_result.count_ms;
    const double t = circles ? r.query_result.circles_ms : r.query_result.count_ms;
    return b / t;
}

/// Giga-things per second: `per_particle` things for each of n particles in `ms`.
double rate(double per_particle, std::uint32_t n, double ms) {
    return per_particle * n / (ms * 1e-3) / 1e9;
}

void print_query_table(const std::vector<Row>& rows, const Row& f, std::ostream& out) {
    const bool run = f.dist == "circles-run";
    if (!run) {
        out << "Queries (structure built from presorted input):\n\n"
            << "| query/binWidth[/index] | count ms | circles ms | cand/p | nbrs/p | surplus | "
               "ranges/p | Gcand/s (circles) | GB/s (circles) | speed-up vs moore/1 "
               "(count, circles) |\n"
            << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    } else {
        out << "Circles model run (counting-sort construction every step):\n\n"
            << "| query/binWidth | query ms (mean) | query ms (median) | construction ms "
               "(mean) | speed-up vs moore/1 (mean) |\n|---|---:|---:|---:|---:|\n";
    }
    std::set<std::string> printed;
    for (const Row& r : rows) {
        if (!same_configuration(r, f))
            continue;
        // One query line per (query, width, layout; lists apart): the PBM construction does not
        // change it.
        const bool lists = is_linked_list(r.module.construction);
        const std::string label =
            (lists ? std::string(construction_name(r.module.construction)) + " " : std::string()) +
            std::string(query_name(r.module.query)) + "/" + width_label(r.module.bin_width) +
            (r.module.layout == Layout::index && !lists ? "/index" : "");
        if (!printed.insert(label).second)
            continue;
        const QueryResult& q = r.query_result;
        if (run) {
            out << "| " << label << " | " << fmt(q.circles_ms) << " | " << fmt(q.run_median_ms)
                << " | " << fmt(r.build.presorted_ms, 4) << " | "
                << fmt(speedup_vs_moore1(rows, r, true), 2) << " |\n";
            continue;
        }
        out << "| " << label << " | " << fmt(q.count_ms) << " | " << fmt(q.circles_ms) << " | "
            << fmt(q.candidates, 1) << " | " << fmt(q.neighbours, 1) << " | "
            << fmt(q.candidates / q.neighbours, 2) << " | " << fmt(q.ranges, 1) << " | "
            << fmt(rate(q.candidates, r.n, q.circles_ms), 0) << " | "
            << fmt(rate(q.bytes_circles, r.n, q.circles_ms), 0) << " | "
            << fmt(speedup_vs_moore1(rows, r, false), 2) << ", "
            << fmt(speedup_vs_moore1(rows, r, true), 2) << " |\n";
    }
}

void print_construction_table(const std::vector<Row>& rows, const Row& f, std::ostream& out) {
    out << "\nConstruction (ms; stages from separate timed runs):\n\n"
        << "| construction/binWidth[/index] | bins | presorted | stages (presorted) | "
           "shuffled | stages (shuffled) |\n|---|---:|---:|---|---:|---|\n";
    std::set<std::string> built;
    for (const Row& r : rows) {
        if (!same_configuration(r, f))
            continue;
        const std::string label = std::string(construction_name(r.module.construction)) + "/" +
                                  width_label(r.module.bin_width) +
                                  (r.module.layout == Layout::index ? "/index" : "");
        if (!built.insert(label).second)
            continue; // one line per (construction, width, layout)
        out << "| " << label << " | " << r.bins << " | " << fmt(r.build.presorted_ms, 4) << " | "
            << stage_string(r.build.presorted_stages, true) << " | " << fmt(r.build.shuffled_ms, 4)
            << " | " << stage_string(r.build.shuffled_stages, true) << " |\n";
    }
}

/// The construction target of a counting-sort strips row (10^6, ~100, width 1 or 0.5), if its
/// radix-sort row is there; whether a line was printed.
bool print_construction_target(const std::vector<Row>& rows, const Row& r, std::ostream& out) {
    const float w = r.module.bin_width;
    const Row* radix = find_row(rows, r, Construction::radix_sort, StripsQuery{}, w);
    if (!radix)
        return false;
    const double ratio = radix->build.presorted_ms / r.build.presorted_ms;
    out << "- construction, " << r.dim << "D " << r.dist << " 10^6 presorted, binWidth "
        << width_label(w) << ": counting-sort " << fmt(r.build.presorted_ms, 4)
        << " ms, radix-sort " << fmt(radix->build.presorted_ms, 4) << " ms: " << fmt(ratio, 2)
        << "x (target >= 1.5x and < 0.06 ms: "
        << (ratio >= 1.5 && r.build.presorted_ms < 0.06 ? "met" : "MISSED") << ")\n";
    return true;
}

/// The query target of a 3D Circles counting-sort strips/0.5 row, if its moore/1 row is there.
bool print_query_target(const std::vector<Row>& rows, const Row& r, std::ostream& out) {
    const Row* moore = find_row(rows, r, r.module.construction, MooreQuery{}, 1.0f);
    if (!moore)
        return false;
    const double ratio = moore->query_result.circles_ms / r.query_result.circles_ms;
    out << "- query, 3D Circles " << r.dist << " 10^6 ~100"
        << (r.dist == "circles-run"
                ? std::string(" (mean over the run)")
                : " (measured " + fmt(r.query_result.neighbours, 1) + " neighbours)")
        << ": strips/0.5 " << fmt(r.query_result.circles_ms) << " ms, moore/1 "
        << fmt(moore->query_result.circles_ms) << " ms: " << fmt(ratio, 2)
        << "x (target >= 1.25x: " << (ratio >= 1.25 ? "met" : "MISSED")
        << "; strips/0.5 < 1.5 ms: " << (r.query_result.circles_ms < 1.5 ? "met" : "MISSED")
        << ")\n";
    return true;
}

} // namespace

void print_tables(const std::vector<Row>& rows, const Row& f, std::ostream& out) {
    out << "\n### " << f.dim << "D, n = " << f.n << ", " << f.dist << ", ~" << f.target_neighbours
        << " neighbours (" << f.note << ")\n\n";
    print_query_table(rows, f, out);
    if (f.dist != "circles-run")
        print_construction_table(rows, f, out);
}

void print_targets(const std::vector<Row>& rows, std::ostream& out) {
    out << "\n## Targets (issue 3)\n\n";
    bool any = false;
    for (const Row& r : rows) {
        if (r.n < 950000 || r.n > 1050000 || r.target_neighbours != 100)
            continue;
        if (r.module.layout != Layout::reorder ||
            r.module.construction != Construction::counting_sort ||
            !std::holds_alternative<StripsQuery>(r.module.query))
            continue;
        const float w = r.module.bin_width;
        if (r.dist != "circles-run" && (w == 1.0f || w == 0.5f))
            any = print_construction_target(rows, r, out) || any;
        if (r.dim == 3 && r.dist.rfind("circles", 0) == 0 && w == 0.5f)
            any = print_query_target(rows, r, out) || any;
    }
    if (!any)
        out << "(this run holds none of the target configurations: 10^6 particles, ~100 "
               "neighbours)\n";
    out << "\nAnchors on this H100 (issue 3): thesis code strips/0.5 2.28 ms, original/1.0 "
           "2.90 ms (3D Circles, 10^6, ~106 neighbours, mean over 200 steps); its construction "
           "0.09 ms.\n";
}

void print_device(std::ostream& out, int argc, char** argv, const Options& o) {
    int device = 0, runtime = 0, driver = 0;
    SLUICE_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    SLUICE_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    SLUICE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    SLUICE_CUDA_CHECK(cudaDriverGetVersion(&driver));
    int clock_khz = 0, mem_clock_khz = 0;
    SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device));
    const std::time_t now = std::time(nullptr);
    out << "# neighbours_bench\n\n"
        << "- device: " << p.name << ", " << p.multiProcessorCount << " SMs, "
        << p.l2CacheSize / (1024 * 1024) << " MiB L2, " << p.totalGlobalMem / (1024 * 1024)
        << " MiB, SM clock " << clock_khz / 1000 << " MHz, memory clock " << mem_clock_khz / 1000
        << " MHz\n"
        << "- CUDA runtime " << runtime / 1000 << "." << (runtime % 1000) / 10 << ", driver "
        << driver / 1000 << "." << (driver % 1000) / 10 << "\n"
        << "- date: " << std::put_time(std::gmtime(&now), "%Y-%m-%d %H:%M UTC") << "\n"
        << "- command:";
    for (int a = 0; a < argc; ++a)
        out << " " << argv[a];
    out << "\n- timing: CUDA events, " << o.timing.warmup << " warm-up runs, median of "
        << o.timing.reps << " runs"
        << (o.timing.flush_l2 ? ", L2 flushed before each" : ", L2 not flushed")
        << "; query kernels " << o.block << " threads per block, carveout max L1\n"
        << "- search radius R = " << search_radius << "; Circles force k = " << circles_force
        << "; one thread per particle: in bin order (reorder), in a random order (index)\n";
}

const std::vector<std::string>& csv_columns() {
    static const std::vector<std::string> columns = {"dim",
                                                     "n",
                                                     "distribution",
                                                     "target_neighbours",
                                                     "module",
                                                     "construction",
                                                     "query",
                                                     "bin_width",
                                                     "layout",
                                                     "bins",
                                                     "build_presorted_ms",
                                                     "build_shuffled_ms",
                                                     "stages_presorted",
                                                     "stages_shuffled",
                                                     "query_count_ms",
                                                     "query_circles_ms",
                                                     "candidates_per_particle",
                                                     "neighbours_per_particle",
                                                     "surplus",
                                                     "ranges_per_particle",
                                                     "gcand_per_s_count",
                                                     "gcand_per_s_circles",
                                                     "gbytes_per_s_count",
                                                     "gbytes_per_s_circles",
                                                     "speedup_vs_moore1_count",
                                                     "speedup_vs_moore1_circles",
                                                     "note"};
    return columns;
}

void write_csv(const std::vector<Row>& rows, const std::string& path) {
    std::vector<CsvRow> lines;
    for (const Row& r : rows) {
        const QueryResult& q = r.query_result;
        std::string note = r.note;
        std::replace(note.begin(), note.end(), ',', ';');
        CsvRow line;
        line.integer(r.dim).integer(r.n).text(r.dist).integer(r.target_neighbours);
        line.text(r.module.name()).text(construction_name(r.module.construction));
        line.text(query_name(r.module.query)).number(r.module.bin_width);
        line.text(layout_name(r.module.layout)).integer(r.bins);
        line.number(r.build.presorted_ms).number(r.build.shuffled_ms);
        line.text(stage_string(r.build.presorted_stages));
        line.text(stage_string(r.build.shuffled_stages));
        line.number(q.count_ms).number(q.circles_ms).number(q.candidates).number(q.neighbours);
        line.number(q.neighbours > 0 ? q.candidates / q.neighbours : std::nan(""));
        line.number(q.ranges);
        line.number(rate(q.candidates, r.n, q.count_ms));
        line.number(rate(q.candidates, r.n, q.circles_ms));
        line.number(rate(q.bytes_count, r.n, q.count_ms));
        line.number(rate(q.bytes_circles, r.n, q.circles_ms));
        line.number(speedup_vs_moore1(rows, r, false)).number(speedup_vs_moore1(rows, r, true));
        line.text(note);
        lines.push_back(std::move(line));
    }
    write_csv_file(path, csv_columns(), lines);
}

} // namespace sluice::bench
