// neighbours_bench: the GPU neighbour modules (construction × query × binWidth × layout) on
// synthetic data sets, in one process (issue 3, item 4; neighbours/BENCHMARK.md).
//
// For each dimension × size × distribution × neighbour density (data_sets.h):
//  - construction time of each construction at every bin width, split into stages, from
//    shuffled input and from input already in bin order (a solver's next step);
//  - query time of each traversal at every bin width and layout for two workloads: counting
//    neighbours, and the Circles force update (thesis Alg. 3) (workloads.cuh, module_bench.cuh);
//  - candidates and neighbours per particle, their ratio (surplus, thesis table 6.1), achieved
//    candidate checks and bytes per second;
//  - circles-run: query time averaged over the Circles steps themselves, as the thesis code
//    reports it (circles_run.cuh).
// --collisions instead runs Barbieri et al.'s benchmark (collisions_run.cuh).
// Timing: timing.cuh. Output: markdown tables on stdout and one CSV row per module and
// configuration (report.h). `neighbours_bench --help` lists the options.

#include "circles_run.cuh"
#include "collisions_run.cuh"
#include "cuda_check.h"
#include "data_sets.h"
#include "device_memory.cuh"
#include "module_bench.cuh"
#include "options.h"
#include "report.h"
#include "results.h"
#include "timing.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sluice;
using namespace sluice::bench;

namespace {

/// Prints the tables of the configuration just measured and rewrites the CSV, so that a run cut
/// short still leaves every finished configuration behind.
void report_last(const std::vector<Row>& rows, const Options& o) {
    if (rows.empty())
        return;
    print_tables(rows, rows.back(), std::cout);
    std::cout << std::flush;
    write_csv(rows, o.csv);
}

template <int D>
void run_dimension(const Options& o, Timer& timer, std::vector<Row>& rows) {
    ModuleBench<D> bench(o, timer, rows);
    auto has = [&](const std::string& d) {
        return std::find(o.dists.begin(), o.dists.end(), d) != o.dists.end();
    };
    for (std::uint32_t n : o.sizes)
        for (int target : o.neighbours) {
            const unsigned seed = 1000u * D + n % 997u + static_cast<unsigned>(target);
            const auto t0 = std::chrono::steady_clock::now();
            const Dataset<D> start = circles_start<D>(n, target, seed);
            if (o.tune) {
                tune(o, timer, start);
                continue;
            }
            if (has("circles-0")) {
                bench.run(start, target);
                report_last(rows, o);
            }
            if (has("circles-200")) {
                const Dataset<D> clustered =
                    run_circles(o, timer, start, target, o.circles_steps, rows);
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

/// Throws a plain message where there is no usable GPU, before any CUDA call that would fail
/// with a less readable one.
void require_device() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        throw std::runtime_error(std::string("no CUDA device: it times GPU modules and needs a "
                                             "GPU (cudaGetDeviceCount: ") +
                                 (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) + ")");
}

} // namespace

int main(int argc, char** argv) {
    try {
        int exit_code = 0;
        const std::optional<Options> parsed = parse_options(argc, argv, exit_code);
        if (!parsed)
            return exit_code;
        const Options& o = *parsed;
        require_device();
        cudaStream_t stream;
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        std::vector<Row> rows;
        {
            gpu::DeviceMemoryAccount account;
            Timer timer(stream, o.timing, account);
            std::ostringstream head;
            print_device(head, argc, argv, o);
            std::cout << head.str() << std::flush;
            if (o.collisions)
                run_collision_benchmark(o, stream, std::cout);
            for (int d : o.collisions ? std::vector<int>{} : o.dims) {
                if (d == 2)
                    run_dimension<2>(o, timer, rows);
                else
                    run_dimension<3>(o, timer, rows);
            }
        }
        SLUICE_CUDA_CHECK(cudaStreamDestroy(stream));
        if (o.tune)
            return 0;
        if (o.collisions) {
            std::cout << "\nCSV: " << o.csv << std::endl;
            return 0;
        }
        print_targets(rows, std::cout);
        write_csv(rows, o.csv);
        std::cout << "\nCSV: " << o.csv << std::endl;
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "neighbours_bench: " << e.what() << std::endl;
        return 1;
    }
}
