// neighbours_bench: the GPU neighbour modules (construction × query × binWidth) on synthetic
// distributions, in one process (issue 3, item 4).
//
// For each dimension × size × distribution × neighbour density:
//  - construction time of counting-sort and radix-sort at every bin width, split into stages,
//    from shuffled input and from input already in bin order (a solver's next step);
//  - query time of moore and strips at every bin width for two workloads: counting neighbours,
//    and the Circles force update (thesis Alg. 3);
//  - candidates and neighbours per particle, their ratio (surplus, thesis table 6.1), achieved
//    candidate checks and bytes per second.
// Distributions: circles-0 (the Circles model's start: uniform random, thesis ch. 3), circles-200
// (after 200 Circles steps: clustered), lattice (jittered SPH lattice, spacing dp, R = 2h), and
// circles-run (query time averaged over the 200 steps themselves, as the thesis code reports it).
// Timing: CUDA events, warm-up, median of the repetitions, L2 flushed before each timed run.
// Output: markdown tables on stdout, one CSV row per module and configuration.
//
// Run `neighbours_bench --help` for the options.

#include "cuda_builder.h"
#include "cuda_check.h"
#include "grid.h"
#include "module.h"
#include "query.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

using namespace sluice;

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr float circles_force = 0.05f; ///< unified force k (thesis ch. 3.1.2)
constexpr float search_radius = 1.0f;  ///< R; the Circles attraction radius r is R/2

// ---------------------------------------------------------------------------------------------
// Options

struct Options {
    std::vector<std::uint32_t> sizes = {100000, 1000000, 4000000};
    std::vector<int> dims = {2, 3};
    std::vector<std::string> dists = {"circles-0", "circles-200", "lattice"};
    std::vector<int> neighbours = {40, 100};
    std::vector<float> widths = {1.0f, 0.5f, 1.0f / 3.0f};
    std::vector<Construction> constructions = {Construction::counting_sort,
                                               Construction::radix_sort, Construction::linked_list};
    std::vector<Layout> layouts = {Layout::reorder, Layout::index};
    std::vector<QueryTag> queries = {MooreQuery{}, StripsQuery{}, ChordsQuery{}, ModularQuery{},
                                     HybridQuery{}};
    int reps = 20;
    int warmup = 3;
    int circles_steps = 200;
    int block = 128;
    bool flush_l2 = true;
    bool tune = false;
    std::string csv = "neighbours_bench.csv";
};

const char* usage = R"(neighbours_bench [options]
  --sizes LIST         particle counts (default 1e5,1e6,4e6)
  --dims LIST          2,3 (default both)
  --dists LIST         circles-0,circles-200,lattice (default all; circles-200 also adds the
                       circles-run rows: query time averaged over the 200 steps)
  --neighbours LIST    average neighbour counts (default 40,100)
  --widths LIST        bin widths in (0, 1] (default 1,0.5,0.333333)
  --constructions LIST counting-sort,radix-sort,linked-list (default all three)
  --queries LIST       moore,strips,chords,modular,hybrid (default all five)
  --layouts LIST       reorder,index (default both): reorder queries particles in bin order
                       over the sorted copy; index queries them in a random order (the
                       shuffled input, as agents created at random places are) through the
                       permutation (PBM constructions) or the lists (linked-list, index only)
  --reps N             timed repetitions, median reported (default 20)
  --warmup N           untimed runs first (default 3)
  --steps N            Circles steps for circles-200 (default 200)
  --block N            threads per block of the query kernels (default 128)
  --no-flush           do not flush the L2 cache before each timed run
  --tune               time the query at several block sizes and carveouts, then exit
  --csv FILE           CSV output (default neighbours_bench.csv)
  --quick              --sizes 1e6 --dims 3 --neighbours 100 (a few-minute run)
)";

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

Options parse_options(int argc, char** argv) {
    Options o;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        auto value = [&]() -> std::string {
            if (a + 1 >= argc)
                throw std::invalid_argument(arg + " needs a value");
            return argv[++a];
        };
        if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            std::exit(0);
        } else if (arg == "--sizes") {
            o.sizes.clear();
            for (const auto& s : split(value()))
                o.sizes.push_back(static_cast<std::uint32_t>(std::stod(s)));
        } else if (arg == "--dims") {
            o.dims.clear();
            for (const auto& s : split(value())) {
                const int d = std::stoi(s);
                if (d != 2 && d != 3)
                    throw std::invalid_argument("--dims: 2 or 3");
                o.dims.push_back(d);
            }
        } else if (arg == "--dists") {
            o.dists = split(value());
            for (const auto& d : o.dists)
                if (d != "circles-0" && d != "circles-200" && d != "lattice")
                    throw std::invalid_argument("unknown distribution '" + d +
                                                "' (valid: circles-0, circles-200, lattice)");
        } else if (arg == "--neighbours") {
            o.neighbours.clear();
            for (const auto& s : split(value()))
                o.neighbours.push_back(std::stoi(s));
        } else if (arg == "--widths") {
            o.widths.clear();
            for (const auto& s : split(value()))
                o.widths.push_back(parse_bin_width(s));
        } else if (arg == "--constructions") {
            o.constructions.clear();
            for (const auto& s : split(value()))
                o.constructions.push_back(parse_construction(s));
        } else if (arg == "--layouts") {
            o.layouts.clear();
            for (const auto& s : split(value()))
                o.layouts.push_back(parse_layout(s));
        } else if (arg == "--queries") {
            o.queries.clear();
            for (const auto& s : split(value()))
                o.queries.push_back(parse_query(s));
        } else if (arg == "--reps") {
            o.reps = std::stoi(value());
        } else if (arg == "--warmup") {
            o.warmup = std::stoi(value());
        } else if (arg == "--steps") {
            o.circles_steps = std::stoi(value());
        } else if (arg == "--block") {
            o.block = std::stoi(value());
        } else if (arg == "--no-flush") {
            o.flush_l2 = false;
        } else if (arg == "--tune") {
            o.tune = true;
        } else if (arg == "--csv") {
            o.csv = value();
        } else if (arg == "--quick") {
            o.sizes = {1000000};
            o.dims = {3};
            o.neighbours = {100};
        } else {
            throw std::invalid_argument("unknown option '" + arg + "'\n" + usage);
        }
    }
    if (o.reps < 1 || o.warmup < 0 || o.block < 32 || o.block > 512 || o.block % 32)
        throw std::invalid_argument("bad --reps, --warmup or --block");
    return o;
}

// ---------------------------------------------------------------------------------------------
// Device helpers

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) { resize(n); }
    ~DeviceBuffer() {
        if (ptr_)
            cudaFree(ptr_);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void resize(std::size_t n) {
        if (n <= size_ && ptr_)
            return;
        if (ptr_)
            SLUICE_CUDA_CHECK(cudaFree(ptr_));
        ptr_ = nullptr;
        SLUICE_CUDA_CHECK(cudaMalloc(&ptr_, std::max<std::size_t>(n, 1) * sizeof(T)));
        size_ = n;
    }
    // Plain cudaMemcpy runs on the legacy stream, which does not wait for the benchmark's
    // non-blocking stream: synchronise the device first.
    void upload(const std::vector<T>& host) {
        SLUICE_CUDA_CHECK(cudaDeviceSynchronize());
        resize(host.size());
        SLUICE_CUDA_CHECK(
            cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download(std::size_t n) const {
        std::vector<T> host(n);
        SLUICE_CUDA_CHECK(cudaDeviceSynchronize());
        SLUICE_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    T* get() const { return ptr_; }

private:
    T* ptr_ = nullptr;
    std::size_t size_ = 0;
};

class Event {
public:
    Event() { SLUICE_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

double median(std::vector<double> v) {
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Runs and times device work: warm-up, then reps timed runs between events, each after an L2
/// flush (a memset of twice the L2 size), so no run finds the previous run's data in cache.
class Timer {
public:
    Timer(cudaStream_t stream, const Options& o) : stream_(stream), o_(o) {
        int device = 0;
        SLUICE_CUDA_CHECK(cudaGetDevice(&device));
        int l2 = 0;
        SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        flush_bytes_ = 2 * static_cast<std::size_t>(l2);
        flush_.resize(flush_bytes_);
    }
    void flush() {
        if (o_.flush_l2)
            SLUICE_CUDA_CHECK(
                cudaMemsetAsync(flush_.get(), ++flush_value_ & 0xFF, flush_bytes_, stream_));
    }
    template <class F>
    double median_ms(F&& enqueue) {
        for (int w = 0; w < o_.warmup; ++w)
            enqueue();
        std::vector<double> times;
        for (int r = 0; r < o_.reps; ++r) {
            flush();
            SLUICE_CUDA_CHECK(cudaEventRecord(start_.get(), stream_));
            enqueue();
            SLUICE_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_));
            SLUICE_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
            times.push_back(elapsed_ms(start_.get(), stop_.get()));
        }
        return median(times);
    }
    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_;
    const Options& o_;
    DeviceBuffer<unsigned char> flush_;
    std::size_t flush_bytes_ = 0;
    int flush_value_ = 0;
    Event start_, stop_;
};

// ---------------------------------------------------------------------------------------------
// Query workloads (one thread per particle, in bin order)

template <int D>
struct CountVisitor {
    std::uint32_t count = 0;
    __device__ void operator()(std::uint32_t, const Vec<D>&, float) { ++count; }
};

/// The Circles model's force (thesis eq. 3.4, Alg. 3): F_ij = k sin(−2π |x_j − x_i| / R) times
/// the unit vector from x_i to x_j, for neighbours other than itself. Like the thesis author's
/// code (sp-2018-08, which the issue's anchors timed), the step is the mean force, not the sum.
template <int D>
struct CirclesVisitor {
    Vec<D> force{};
    std::uint32_t count = 0;
    float inv_radius = 1.0f;
    __device__ void operator()(std::uint32_t, const Vec<D>& rij, float r2) {
        if (r2 > 0.0f) {
            const float separation = sqrtf(r2);
            // sin(−2π d/R) as sinpi(−2 d/R): the same function, with an exact range reduction
            // that needs no local memory (sinf's path for huge arguments does).
            const float k = sinpif(-2.0f * separation * inv_radius) * circles_force;
            force -= (k / separation) * rij; // rij = x_i − x_j points away from j
            ++count;
        }
    }
};

template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(512)
    count_kernel(ViewT view, std::uint32_t n, std::uint32_t* __restrict__ counts) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    CountVisitor<D> visit;
    for_each_neighbour<QueryT>(view, detail::load_position(view.positions + k), visit);
    counts[k] = visit.count;
}

template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(512)
    circles_kernel(ViewT view, std::uint32_t n, float env_max, Vec<D>* __restrict__ out) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const Vec<D> x = detail::load_position(view.positions + k);
    CirclesVisitor<D> visit;
    visit.inv_radius = 1.0f / view.radius;
    for_each_neighbour<QueryT>(view, x, visit);
    Vec<D> next = x + (1.0f / static_cast<float>(max(visit.count, 1u))) * visit.force;
    for (int a = 0; a < D; ++a)
        next[a] = fminf(fmaxf(next[a], 0.0f), env_max);
    out[k] = next;
}

/// Candidates (particles in the visited bins), bins and rows of each query: the same block of
/// bins for_each_neighbour visits. Moore reads one range per bin, Strips one per row.
template <class QueryT, int D>
__global__ void
candidates_kernel(NeighbourView<D> view, std::uint32_t n, std::uint32_t* __restrict__ candidates,
                  std::uint32_t* __restrict__ bins, std::uint32_t* __restrict__ rows) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const Vec<D> x = view.positions[k];
    int lo[D], hi[D];
    for (int a = 0; a < D; ++a) {
        lo[a] = view.grid.axis_bin(x[a] - view.radius, a);
        hi[a] = view.grid.axis_bin(x[a] + view.radius, a);
    }
    std::uint32_t c = 0, row_count = 0, bin_count = 0;
    const auto nx = static_cast<std::uint32_t>(view.grid.dims[0]);
    // A row of the block; ChordsQuery narrows it to its chord or skips it (query.h).
    auto add_row = [&](std::uint32_t row, const int(&coordinates)[D]) {
        int lo_x = lo[0], hi_x = hi[0];
        if constexpr (std::is_same_v<QueryT, ChordsQuery>)
            if (!detail::chord_of_row(view, x, coordinates, lo_x, hi_x))
                return;
        c += view.pbm[row + hi_x + 1] - view.pbm[row + lo_x];
        ++row_count;
        bin_count += static_cast<std::uint32_t>(hi_x - lo_x + 1);
    };
    if constexpr (D == 2) {
        for (int by = lo[1]; by <= hi[1]; ++by)
            add_row(static_cast<std::uint32_t>(by) * nx, {0, by});
    } else {
        const auto ny = static_cast<std::uint32_t>(view.grid.dims[1]);
        for (int bz = lo[2]; bz <= hi[2]; ++bz)
            for (int by = lo[1]; by <= hi[1]; ++by)
                add_row((static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx,
                        {0, by, bz});
    }
    candidates[k] = c;
    rows[k] = row_count;
    bins[k] = bin_count;
}

template <class KernelT>
void prefer_l1(KernelT kernel) {
    // The query kernels use no shared memory: give the unified L1/shared storage to L1.
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                           static_cast<int>(cudaSharedmemCarveoutMaxL1)));
}

unsigned grid_for(std::uint32_t n, int block) {
    return static_cast<unsigned>((static_cast<std::uint64_t>(n) + block - 1) / block);
}

// ---------------------------------------------------------------------------------------------
// Distributions

/// Ball volume of radius 1 in D dimensions.
double ball_volume(int dim) {
    return dim == 2 ? pi : 4.0 * pi / 3.0;
}

template <int D>
struct Dataset {
    std::string name;
    std::vector<Vec<D>> positions;
    Vec<D> lo{}, hi{};
    float env_max = 0.0f; ///< Circles: positions are clamped to [0, env_max]
    std::string note;
};

/// Circles start (thesis eq. 3.1): uniform random in [0, W)^D with W from the neighbour count:
/// N = n V_D R^D / W^D (the author's code floors W, which the anchors used: 10^6 particles,
/// N = 100 gives W = 34 and 106.6 neighbours in 3D).
template <int D>
Dataset<D> circles_start(std::uint32_t n, int neighbours, unsigned seed) {
    Dataset<D> d;
    d.name = "circles-0";
    const double w =
        std::floor(std::pow(n * ball_volume(D) * std::pow(search_radius, D) / neighbours, 1.0 / D));
    d.env_max = static_cast<float>(w);
    for (int a = 0; a < D; ++a)
        d.lo[a] = 0.0f, d.hi[a] = d.env_max;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, d.env_max);
    d.positions.resize(n);
    for (Vec<D>& x : d.positions) {
        x = Vec<D>{};
        for (int a = 0; a < D; ++a)
            x[a] = std::min(u(rng), std::nextafter(d.env_max, 0.0f));
    }
    std::ostringstream note;
    note << "W = " << w << ", expected " << std::setprecision(4)
         << n * ball_volume(D) / std::pow(w, D) << " neighbours";
    d.note = note.str();
    return d;
}

/// Jittered SPH lattice: spacing dp with N = V_D (R/dp)^D, m = round(n^(1/D)) per axis,
/// each particle moved by up to ±0.1 dp per axis.
template <int D>
Dataset<D> jittered_lattice(std::uint32_t n, int neighbours, unsigned seed) {
    Dataset<D> d;
    d.name = "lattice";
    const double dp = search_radius * std::pow(ball_volume(D) / neighbours, 1.0 / D);
    const int m = static_cast<int>(std::lround(std::pow(static_cast<double>(n), 1.0 / D)));
    std::uint64_t total = 1;
    for (int a = 0; a < D; ++a)
        total *= m;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.1, 0.1);
    d.positions.resize(total);
    for (std::uint64_t i = 0; i < total; ++i) {
        std::uint64_t rest = i;
        Vec<D> x{};
        for (int a = 0; a < D; ++a) {
            x[a] = static_cast<float>((static_cast<double>(rest % m) + 0.5 + jitter(rng)) * dp);
            rest /= m;
        }
        d.positions[i] = x;
    }
    for (int a = 0; a < D; ++a)
        d.lo[a] = 0.0f, d.hi[a] = static_cast<float>(m * dp);
    d.env_max = d.hi[0];
    std::ostringstream note;
    note << m << "^" << D << " particles, dp = " << std::setprecision(4) << dp << " R";
    d.note = note.str();
    return d;
}

// ---------------------------------------------------------------------------------------------
// Results

struct ConstructionResult {
    double presorted_ms = 0, shuffled_ms = 0;
    std::vector<std::pair<std::string, double>> presorted_stages, shuffled_stages;
};

struct QueryResult {
    double count_ms = std::nan(""), circles_ms = std::nan("");
    double candidates = 0, neighbours = 0, ranges = 0; ///< per particle
    double bytes_circles = 0, bytes_count = 0;         ///< logical bytes per query
    double pbm_loads = 0, bins = 0;                    ///< per particle
    double run_median_ms = std::nan("");               ///< circles-run: median over the steps
};

struct Row {
    int dim;
    std::uint32_t n;
    std::string dist;
    int target_neighbours;
    std::string note;
    Construction construction;
    std::string query;
    float width;
    std::uint32_t bins;
    ConstructionResult build;
    QueryResult query_result;
    bool has_build = true;
    Layout layout = Layout::reorder;
};

std::string width_name(float w) {
    std::ostringstream s;
    if (std::fabs(w - 1.0f / 3.0f) < 1e-6f)
        s << "1/3";
    else
        s << w;
    return s.str();
}

std::string module_name(Construction c, const std::string& q, float w,
                        Layout layout = Layout::reorder) {
    return std::string(construction_name(c)) + "/" + q + "/" + width_name(w) +
           (layout == Layout::index ? "/index" : "");
}

/// "clear:0.0039|histogram:0.0123|..." (CSV) or "clear 0.0039, histogram 0.0123, ..." (markdown,
/// where '|' would split the table cell).
std::string stage_string(const std::vector<std::pair<std::string, double>>& stages,
                         bool markdown = false) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(4);
    for (std::size_t i = 0; i < stages.size(); ++i)
        s << (i ? (markdown ? ", " : "|") : "") << stages[i].first << (markdown ? " " : ":")
          << stages[i].second;
    return s.str();
}

// ---------------------------------------------------------------------------------------------
// The benchmark of one dataset

template <int D>
class Bench {
public:
    Bench(const Options& o, Timer& timer, std::vector<Row>& rows)
        : o_(o), timer_(timer), rows_(rows) {}

    /// Constructions and queries of every module on one dataset.
    void run(const Dataset<D>& data, int target) {
        const auto n = static_cast<std::uint32_t>(data.positions.size());
        cudaStream_t s = timer_.stream();
        // Shuffled input: a random permutation of the dataset.
        std::vector<Vec<D>> shuffled = data.positions;
        std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(99));
        d_shuffled_.upload(shuffled);
        d_presorted_.resize(n);
        d_out_.resize(n);
        d_u32_a_.resize(n), d_u32_b_.resize(n), d_u32_c_.resize(n);

        for (float w : o_.widths) {
            const GridSpec<D> grid = make_grid<D>(data.lo, data.hi, search_radius, w);
            // Presorted input: the dataset in bin order.
            CudaNeighbourBuilder<D> reference(Construction::counting_sort);
            reference.build(d_shuffled_.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
            SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_presorted_.get(), reference.d_sorted_positions(),
                                              n * sizeof(Vec<D>), cudaMemcpyDeviceToDevice, s));
            std::map<std::pair<Construction, Layout>, ConstructionResult> builds;
            for (Construction c : o_.constructions)
                for (Layout layout : o_.layouts)
                    if (module_exists(c, MooreQuery{}, layout)) // Moore walks every structure
                        builds[{c, layout}] = time_construction(c, layout, grid, n);

            // Queries: reorder on the structure built from the presorted input (particles and
            // threads in bin order); index through the permutation or the lists over the
            // shuffled input (particles and threads in a random order).
            const NeighbourView<D> view = reference.build(d_presorted_.get(), n, grid,
                                                          search_radius, OutsidePolicy::clamp, s);
            CudaNeighbourBuilder<D> indexed(Construction::counting_sort),
                linked(Construction::linked_list);
            const AnyNeighbourView<D> index_view = indexed.build_view(
                d_shuffled_.get(), n, grid, search_radius, OutsidePolicy::clamp, Layout::index, s);
            const AnyNeighbourView<D> list_view = linked.build_view(
                d_shuffled_.get(), n, grid, search_radius, OutsidePolicy::clamp, Layout::index, s);
            for (const QueryTag& q : o_.queries) {
                const QueryResult stats =
                    std::visit([&](auto tag) { return query_stats<decltype(tag)>(view, n); }, q);
                for (Layout layout : o_.layouts)
                    for (bool lists : {false, true}) {
                        if (lists && !module_exists(Construction::linked_list, q, layout))
                            continue;
                        const bool wanted = std::any_of(
                            o_.constructions.begin(), o_.constructions.end(), [&](Construction c) {
                                return (c == Construction::linked_list) == lists;
                            });
                        if (!wanted)
                            continue;
                        QueryResult qr;
                        dispatch_neighbour_query<D>(
                            q,
                            lists ? list_view
                                  : (layout == Layout::index ? index_view
                                                             : AnyNeighbourView<D>(view)),
                            [&](auto tag, const auto& v) {
                                qr = time_query<decltype(tag)>(v, stats, n, data.env_max);
                            });
                        for (Construction c : o_.constructions) {
                            if ((c == Construction::linked_list) != lists)
                                continue;
                            Row row{D,
                                    n,
                                    data.name,
                                    target,
                                    data.note,
                                    c,
                                    std::string(query_name(q)),
                                    w,
                                    grid.bin_count(),
                                    builds[{c, layout}],
                                    qr,
                                    true,
                                    layout};
                            rows_.push_back(row);
                        }
                    }
            }
        }
    }

    /// The Circles model run for `steps` steps from `start` with counting-sort and each query
    /// and width: mean query and construction time over the steps (rows "circles-run"); returns
    /// the final state of the strips/0.5 run (or of the first run without one): circles-200.
    Dataset<D> run_circles(const Dataset<D>& start, int target, int steps) {
        const auto n = static_cast<std::uint32_t>(start.positions.size());
        cudaStream_t s = timer_.stream();
        DeviceBuffer<Vec<D>> d_first(n), d_second(n);
        std::vector<Vec<D>> final_positions;
        Event e0, e1, e2;
        for (float w : o_.widths) {
            const GridSpec<D> grid = make_grid<D>(start.lo, start.hi, search_radius, w);
            for (const QueryTag& q : o_.queries) {
                d_first.upload(start.positions);
                Vec<D>* d_a = d_first.get(); // positions of this step (bin order after step 0)
                Vec<D>* d_b = d_second.get();
                CudaNeighbourBuilder<D> builder(Construction::counting_sort);
                builder.reserve(n, grid.bin_count());
                double build_sum = 0, query_sum = 0;
                std::vector<double> query_times;
                for (int step = 0; step < steps; ++step) {
                    SLUICE_CUDA_CHECK(cudaEventRecord(e0.get(), s));
                    const NeighbourView<D> view =
                        builder.build(d_a, n, grid, search_radius, OutsidePolicy::clamp, s);
                    SLUICE_CUDA_CHECK(cudaEventRecord(e1.get(), s));
                    std::visit(
                        [&](auto tag) {
                            circles_kernel<decltype(tag)>
                                <<<grid_for(n, o_.block), o_.block, 0, s>>>(view, n, start.env_max,
                                                                            d_b);
                        },
                        q);
                    SLUICE_CUDA_CHECK_LAUNCH();
                    SLUICE_CUDA_CHECK(cudaEventRecord(e2.get(), s));
                    SLUICE_CUDA_CHECK(cudaEventSynchronize(e2.get()));
                    build_sum += elapsed_ms(e0.get(), e1.get());
                    query_times.push_back(elapsed_ms(e1.get(), e2.get()));
                    query_sum += query_times.back();
                    std::swap(d_a, d_b);
                }
                QueryResult qr;
                qr.circles_ms = query_sum / steps;
                qr.run_median_ms = median(query_times);
                qr.count_ms = std::nan("");
                ConstructionResult br;
                br.presorted_ms = build_sum / steps;
                br.shuffled_ms = std::nan("");
                std::ostringstream note;
                note << start.note << "; " << steps << " steps";
                rows_.push_back(Row{D, n, "circles-run", target, note.str(),
                                    Construction::counting_sort, std::string(query_name(q)), w,
                                    grid.bin_count(), br, qr, true});
                // circles-200 is the state reached with strips/0.5 (any module would do; this
                // one is fixed so that the dataset does not depend on the options).
                const bool canonical = std::holds_alternative<StripsQuery>(q) && w == 0.5f;
                if (!final_positions.empty() && !canonical)
                    continue;
                final_positions.resize(n);
                SLUICE_CUDA_CHECK(cudaDeviceSynchronize());
                SLUICE_CUDA_CHECK(cudaMemcpy(final_positions.data(), d_a, n * sizeof(Vec<D>),
                                             cudaMemcpyDeviceToHost));
            }
        }
        Dataset<D> end = start;
        end.name = "circles-200";
        end.positions = final_positions;
        std::ostringstream note;
        note << start.note << " at the start; after " << steps << " steps";
        end.note = note.str();
        return end;
    }

    /// Query times at several block sizes and carveouts (3D 10^6 tuning), printed.
    void tune(const Dataset<D>& data) {
        const auto n = static_cast<std::uint32_t>(data.positions.size());
        cudaStream_t s = timer_.stream();
        d_shuffled_.upload(data.positions);
        d_out_.resize(n);
        for (float w : {1.0f, 0.5f}) {
            const GridSpec<D> grid = make_grid<D>(data.lo, data.hi, search_radius, w);
            CudaNeighbourBuilder<D> builder;
            builder.build(d_shuffled_.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
            SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_out_.get(), builder.d_sorted_positions(),
                                              n * sizeof(Vec<D>), cudaMemcpyDeviceToDevice, s));
            const NeighbourView<D> view =
                builder.build(d_out_.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
            DeviceBuffer<Vec<D>> d_next(n);
            for (const QueryTag& q : o_.queries)
                std::visit(
                    [&](auto tag) {
                        using QueryT = decltype(tag);
                        for (bool max_l1 : {false, true}) {
                            if (max_l1)
                                prefer_l1(circles_kernel<QueryT, NeighbourView<D>>);
                            for (int block : {64, 128, 256, 512}) {
                                const double ms = timer_.median_ms([&] {
                                    circles_kernel<QueryT><<<grid_for(n, block), block, 0, s>>>(
                                        view, n, data.env_max, d_next.get());
                                    SLUICE_CUDA_CHECK_LAUNCH();
                                });
                                std::cout
                                    << "tune " << D << "D " << data.name << " " << query_name(q)
                                    << "/" << width_name(w) << " block " << block
                                    << (max_l1 ? " carveout=maxL1" : " carveout=default")
                                    << ": circles " << std::fixed << std::setprecision(4) << ms
                                    << " ms" << std::endl;
                            }
                        }
                    },
                    q);
        }
    }

private:
    ConstructionResult time_construction(Construction c, Layout layout, const GridSpec<D>& grid,
                                         std::uint32_t n) {
        CudaNeighbourBuilder<D> builder(c);
        builder.reserve(n, grid.bin_count());
        cudaStream_t s = timer_.stream();
        ConstructionResult r;
        const int stages = CudaNeighbourBuilder<D>::stage_count(c);
        std::vector<Event> events(stages + 1);
        BuildStageEvents timing;
        for (int i = 0; i <= stages; ++i)
            timing.events[i] = events[i].get();
        for (bool presorted : {true, false}) {
            const Vec<D>* input = presorted ? d_presorted_.get() : d_shuffled_.get();
            auto build = [&] {
                builder.build_view(input, n, grid, search_radius, OutsidePolicy::clamp, layout, s);
            };
            const double total = timer_.median_ms(build);
            // Stages: separate timed runs with an event between stages.
            std::vector<std::vector<double>> per_stage(stages);
            for (int rep = 0; rep < o_.reps; ++rep) {
                timer_.flush();
                builder.build_view(input, n, grid, search_radius, OutsidePolicy::clamp, layout, s,
                                   &timing);
                SLUICE_CUDA_CHECK(cudaEventSynchronize(events[stages].get()));
                for (int i = 0; i < stages; ++i)
                    per_stage[i].push_back(elapsed_ms(events[i].get(), events[i + 1].get()));
            }
            std::vector<std::pair<std::string, double>> named;
            for (int i = 0; i < stages; ++i)
                named.emplace_back(CudaNeighbourBuilder<D>::stage_name(c, i), median(per_stage[i]));
            (presorted ? r.presorted_ms : r.shuffled_ms) = total;
            (presorted ? r.presorted_stages : r.shuffled_stages) = named;
        }
        return r;
    }

    /// Candidates, neighbours and ranges per particle of a traversal, and the bytes it reads,
    /// from the structure of the reorder layout (the index layouts visit the same candidates).
    template <class QueryT>
    QueryResult query_stats(const NeighbourView<D>& view, std::uint32_t n) {
        cudaStream_t s = timer_.stream();
        QueryResult r;
        candidates_kernel<QueryT, D><<<grid_for(n, 256), 256, 0, s>>>(
            view, n, d_u32_a_.get(), d_u32_b_.get(), d_u32_c_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const auto candidates = d_u32_a_.download(n), bins = d_u32_b_.download(n),
                   rows = d_u32_c_.download(n);
        count_kernel<QueryT><<<grid_for(n, o_.block), o_.block, 0, s>>>(view, n, d_u32_a_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const auto neighbours = d_u32_a_.download(n);
        const bool strips = !detail::bin_by_bin<QueryT>; // a range per row
        double c = 0, nb = 0, ranges = 0, pbm_loads = 0, bin_total = 0;
        for (std::uint32_t k = 0; k < n; ++k) {
            c += candidates[k];
            nb += neighbours[k];
            ranges += strips ? rows[k] : bins[k];
            bin_total += bins[k];
            // Strips: 2 PBM entries per row; Moore: one per bin plus one per row.
            pbm_loads += strips ? 2.0 * rows[k] : bins[k] + rows[k];
        }
        r.candidates = c / n;
        r.neighbours = nb / n;
        r.ranges = ranges / n;
        r.pbm_loads = pbm_loads / n;
        r.bins = bin_total / n;
        return r;
    }

    /// Times count and Circles queries of one traversal over a view; the statistics come from
    /// query_stats. Bytes per query: positions of the candidates and the query point, PBM
    /// entries (reorder, index) or heads (lists), a permutation or next entry per candidate
    /// (index, lists), and what the kernel writes.
    template <class QueryT, class ViewT>
    QueryResult time_query(const ViewT& view, const QueryResult& stats, std::uint32_t n,
                           float env_max) {
        cudaStream_t s = timer_.stream();
        const int block = o_.block;
        prefer_l1(count_kernel<QueryT, ViewT>);
        prefer_l1(circles_kernel<QueryT, ViewT>);
        QueryResult r = stats;
        constexpr bool lists = std::is_same_v<ViewT, LinkedListView<D>>;
        const double structure = lists ? 4.0 * r.bins : 4.0 * r.pbm_loads;
        const double indirection = indexes_input_order<ViewT> ? 4.0 * r.candidates : 0.0;
        const double common =
            r.candidates * sizeof(Vec<D>) + structure + indirection + sizeof(Vec<D>);
        r.bytes_count = common + 4.0;
        r.bytes_circles = common + sizeof(Vec<D>);
        r.count_ms = timer_.median_ms([&] {
            count_kernel<QueryT><<<grid_for(n, block), block, 0, s>>>(view, n, d_u32_a_.get());
            SLUICE_CUDA_CHECK_LAUNCH();
        });
        r.circles_ms = timer_.median_ms([&] {
            circles_kernel<QueryT>
                <<<grid_for(n, block), block, 0, s>>>(view, n, env_max, d_out_.get());
            SLUICE_CUDA_CHECK_LAUNCH();
        });
        return r;
    }

    const Options& o_;
    Timer& timer_;
    std::vector<Row>& rows_;
    DeviceBuffer<Vec<D>> d_shuffled_, d_presorted_, d_out_;
    DeviceBuffer<std::uint32_t> d_u32_a_, d_u32_b_, d_u32_c_;
};

// ---------------------------------------------------------------------------------------------
// Reports

std::string fmt(double v, int precision = 3) {
    if (std::isnan(v))
        return "–";
    std::ostringstream s;
    s << std::fixed << std::setprecision(precision) << v;
    return s.str();
}

const Row* find_row(const std::vector<Row>& rows, const Row& like, Construction c,
                    const std::string& q, float w, Layout layout = Layout::reorder) {
    for (const Row& r : rows)
        if (r.dim == like.dim && r.n == like.n && r.dist == like.dist &&
            r.target_neighbours == like.target_neighbours && r.construction == c && r.query == q &&
            std::fabs(r.width - w) < 1e-6f && r.layout == layout)
            return &r;
    return nullptr;
}

/// Against moore/1 of the same construction and layout (a linked list: counting-sort's reorder
/// moore/1, the default structure; so is an index row when its construction's reorder row is
/// missing).
double speedup_vs_moore1(const std::vector<Row>& rows, const Row& r, bool circles) {
    const Row* base = r.construction == Construction::linked_list
                          ? find_row(rows, r, Construction::counting_sort, "moore", 1.0f)
                          : find_row(rows, r, r.construction, "moore", 1.0f);
    if (!base)
        return std::nan("");
    const double b = circles ? base->query_result.circles_ms : base->query_result.count_ms;
    const double t = circles ? r.query_result.circles_ms : r.query_result.count_ms;
    return b / t;
}

/// Markdown tables of the configuration (dimension, n, distribution, density) of `f`.
void print_tables(const std::vector<Row>& rows, const Row* f, std::ostream& out) {
    {
        out << "\n### " << f->dim << "D, n = " << f->n << ", " << f->dist << ", ~"
            << f->target_neighbours << " neighbours (" << f->note << ")\n\n";
        const bool run = f->dist == "circles-run";
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
            if (!(r.dim == f->dim && r.n == f->n && r.dist == f->dist &&
                  r.target_neighbours == f->target_neighbours))
                continue;
            // One query line per (query, width, layout; lists apart): the PBM construction does
            // not change it.
            const bool lists = r.construction == Construction::linked_list;
            const std::string label = (lists ? std::string("linked-list ") : std::string()) +
                                      r.query + "/" + width_name(r.width) +
                                      (r.layout == Layout::index && !lists ? "/index" : "");
            if (!printed.insert(label).second)
                continue;
            const QueryResult& q = r.query_result;
            if (run) {
                out << "| " << label << " | " << fmt(q.circles_ms) << " | " << fmt(q.run_median_ms)
                    << " | " << fmt(r.build.presorted_ms, 4) << " | "
                    << fmt(speedup_vs_moore1(rows, r, true), 2) << " |\n";
                continue;
            }
            const double cand_rate = q.candidates * r.n / (q.circles_ms * 1e-3) / 1e9;
            const double bytes_rate = q.bytes_circles * r.n / (q.circles_ms * 1e-3) / 1e9;
            out << "| " << label << " | " << fmt(q.count_ms) << " | " << fmt(q.circles_ms) << " | "
                << fmt(q.candidates, 1) << " | " << fmt(q.neighbours, 1) << " | "
                << fmt(q.candidates / q.neighbours, 2) << " | " << fmt(q.ranges, 1) << " | "
                << fmt(cand_rate, 0) << " | " << fmt(bytes_rate, 0) << " | "
                << fmt(speedup_vs_moore1(rows, r, false), 2) << ", "
                << fmt(speedup_vs_moore1(rows, r, true), 2) << " |\n";
        }
        if (run)
            return;
        out << "\nConstruction (ms; stages from separate timed runs):\n\n"
            << "| construction/binWidth[/index] | bins | presorted | stages (presorted) | "
               "shuffled | stages (shuffled) |\n|---|---:|---:|---|---:|---|\n";
        std::set<std::string> built;
        for (const Row& r : rows) {
            if (!(r.dim == f->dim && r.n == f->n && r.dist == f->dist &&
                  r.target_neighbours == f->target_neighbours))
                continue;
            const std::string label = std::string(construction_name(r.construction)) + "/" +
                                      width_name(r.width) +
                                      (r.layout == Layout::index ? "/index" : "");
            if (!built.insert(label).second)
                continue; // one line per (construction, width, layout)
            out << "| " << label << " | " << r.bins << " | " << fmt(r.build.presorted_ms, 4)
                << " | " << stage_string(r.build.presorted_stages, true) << " | "
                << fmt(r.build.shuffled_ms, 4) << " | "
                << stage_string(r.build.shuffled_stages, true) << " |\n";
        }
    }
}

void write_csv(const std::vector<Row>& rows, const std::string& path) {
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << "dim,n,distribution,target_neighbours,module,construction,query,bin_width,layout,bins,"
         "build_presorted_ms,build_shuffled_ms,stages_presorted,stages_shuffled,"
         "query_count_ms,query_circles_ms,candidates_per_particle,neighbours_per_particle,"
         "surplus,ranges_per_particle,gcand_per_s_count,gcand_per_s_circles,"
         "gbytes_per_s_count,gbytes_per_s_circles,speedup_vs_moore1_count,"
         "speedup_vs_moore1_circles,note\n";
    f << std::setprecision(6);
    for (const Row& r : rows) {
        const QueryResult& q = r.query_result;
        auto rate = [&](double per_particle, double ms) {
            return per_particle * r.n / (ms * 1e-3) / 1e9;
        };
        std::string note = r.note;
        std::replace(note.begin(), note.end(), ',', ';');
        f << r.dim << ',' << r.n << ',' << r.dist << ',' << r.target_neighbours << ','
          << module_name(r.construction, r.query, r.width, r.layout) << ','
          << construction_name(r.construction) << ',' << r.query << ',' << r.width << ','
          << layout_name(r.layout) << ',' << r.bins << ',' << r.build.presorted_ms << ','
          << r.build.shuffled_ms << ',' << stage_string(r.build.presorted_stages) << ','
          << stage_string(r.build.shuffled_stages) << ',' << q.count_ms << ',' << q.circles_ms
          << ',' << q.candidates << ',' << q.neighbours << ','
          << (q.neighbours > 0 ? q.candidates / q.neighbours : std::nan("")) << ',' << q.ranges
          << ',' << rate(q.candidates, q.count_ms) << ',' << rate(q.candidates, q.circles_ms) << ','
          << rate(q.bytes_count, q.count_ms) << ',' << rate(q.bytes_circles, q.circles_ms) << ','
          << speedup_vs_moore1(rows, r, false) << ',' << speedup_vs_moore1(rows, r, true) << ','
          << note << '\n';
    }
}

/// The issue's targets, where the run holds the rows they need.
void print_targets(const std::vector<Row>& rows, std::ostream& out) {
    out << "\n## Targets (issue 3)\n\n";
    bool any = false;
    for (const Row& r : rows) {
        if (r.n < 950000 || r.n > 1050000 || r.target_neighbours != 100)
            continue;
        if (r.layout != Layout::reorder)
            continue;
        if (r.construction == Construction::counting_sort && r.query == "strips" &&
            r.dist != "circles-run" && (r.width == 1.0f || r.width == 0.5f)) {
            const Row* radix = find_row(rows, r, Construction::radix_sort, "strips", r.width);
            if (radix) {
                const double ratio = radix->build.presorted_ms / r.build.presorted_ms;
                out << "- construction, " << r.dim << "D " << r.dist << " 10^6 presorted, binWidth "
                    << width_name(r.width) << ": counting-sort " << fmt(r.build.presorted_ms, 4)
                    << " ms, radix-sort " << fmt(radix->build.presorted_ms, 4)
                    << " ms: " << fmt(ratio, 2) << "x (target >= 1.5x and < 0.06 ms: "
                    << (ratio >= 1.5 && r.build.presorted_ms < 0.06 ? "met" : "MISSED") << ")\n";
                any = true;
            }
        }
        if (r.dim == 3 && r.dist.rfind("circles", 0) == 0 && r.query == "strips" &&
            r.width == 0.5f && r.construction == Construction::counting_sort) {
            const Row* moore = find_row(rows, r, r.construction, "moore", 1.0f);
            if (moore) {
                const double ratio = moore->query_result.circles_ms / r.query_result.circles_ms;
                out << "- query, 3D Circles " << r.dist << " 10^6 ~100"
                    << (r.dist == "circles-run"
                            ? std::string(" (mean over the run)")
                            : " (measured " + fmt(r.query_result.neighbours, 1) + " neighbours)")
                    << ": strips/0.5 " << fmt(r.query_result.circles_ms) << " ms, moore/1 "
                    << fmt(moore->query_result.circles_ms) << " ms: " << fmt(ratio, 2)
                    << "x (target >= 1.25x: " << (ratio >= 1.25 ? "met" : "MISSED")
                    << "; strips/0.5 < 1.5 ms: "
                    << (r.query_result.circles_ms < 1.5 ? "met" : "MISSED") << ")\n";
                any = true;
            }
        }
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
    out << "\n- timing: CUDA events, " << o.warmup << " warm-up runs, median of " << o.reps
        << " runs" << (o.flush_l2 ? ", L2 flushed before each" : ", L2 not flushed")
        << "; query kernels " << o.block << " threads per block, carveout max L1\n"
        << "- search radius R = 1; Circles force k = " << circles_force
        << "; one thread per particle: in bin order (reorder), in a random order (index)\n";
}

/// Prints the tables of the configuration just measured and rewrites the CSV, so that a run cut
/// short still leaves every finished configuration behind.
void report_last(const std::vector<Row>& rows, const Options& o) {
    if (rows.empty())
        return;
    print_tables(rows, &rows.back(), std::cout);
    std::cout << std::flush;
    write_csv(rows, o.csv);
}

template <int D>
void run_dimension(const Options& o, Timer& timer, std::vector<Row>& rows) {
    Bench<D> bench(o, timer, rows);
    auto has = [&](const std::string& d) {
        return std::find(o.dists.begin(), o.dists.end(), d) != o.dists.end();
    };
    for (std::uint32_t n : o.sizes)
        for (int target : o.neighbours) {
            const unsigned seed = 1000u * D + n % 997u + static_cast<unsigned>(target);
            const auto t0 = std::chrono::steady_clock::now();
            const Dataset<D> start = circles_start<D>(n, target, seed);
            if (o.tune) {
                bench.tune(start);
                continue;
            }
            if (has("circles-0")) {
                bench.run(start, target);
                report_last(rows, o);
            }
            if (has("circles-200")) {
                const Dataset<D> clustered = bench.run_circles(start, target, o.circles_steps);
                report_last(rows, o);
                bench.run(clustered, target);
                report_last(rows, o);
            }
            if (has("lattice")) {
                bench.run(jittered_lattice<D>(n, target, seed + 1), target);
                report_last(rows, o);
            }
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::cerr << "done: " << D << "D n=" << n << " ~" << target << " neighbours ("
                      << std::fixed << std::setprecision(1) << seconds << " s)" << std::endl;
        }
}

} // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse_options(argc, argv);
        cudaStream_t stream;
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        std::vector<Row> rows;
        {
            Timer timer(stream, o);
            std::ostringstream head;
            print_device(head, argc, argv, o);
            std::cout << head.str() << std::flush;
            for (int d : o.dims) {
                if (d == 2)
                    run_dimension<2>(o, timer, rows);
                else
                    run_dimension<3>(o, timer, rows);
            }
        }
        SLUICE_CUDA_CHECK(cudaStreamDestroy(stream));
        if (o.tune)
            return 0;
        print_targets(rows, std::cout);
        write_csv(rows, o.csv);
        std::cout << "\nCSV: " << o.csv << std::endl;
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "neighbours_bench: " << e.what() << std::endl;
        return 1;
    }
}
