#pragma once
/// \file circles_run.cuh
/// The Circles model run (thesis ch. 3) that makes the circles-200 data set and the circles-run
/// rows, and the launch-configuration sweep of --tune.

#include "cuda_builder.h"
#include "data_sets.h"
#include "device_memory.cuh"
#include "grid.h"
#include "module.h"
#include "options.h"
#include "results.h"
#include "timing.cuh"
#include "workloads.cuh"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>
#include <variant>
#include <vector>

namespace sluice::bench {

/// The Circles model run for `steps` steps from `start` with counting-sort and each selected
/// query and width: mean query and construction time over the steps (a "circles-run" Row each,
/// appended to `rows`); returns the final state of the strips/0.5 run (or of the first run
/// without one): circles-200.
template <int D>
Dataset<D> run_circles(const Options& o, Timer& timer, const Dataset<D>& start, int target,
                       int steps, std::vector<Row>& rows) {
    const auto n = static_cast<std::uint32_t>(start.positions.size());
    cudaStream_t s = timer.stream();
    gpu::DeviceMemoryAccount account;
    gpu::DeviceArray<Vec<D>> d_first, d_second;
    d_first.allocate(n, account);
    d_second.allocate(n, account);
    std::vector<Vec<D>> final_positions;
    Event e0, e1, e2;
    for (float w : o.widths) {
        const GridSpec<D> grid = make_grid<D>(start.lo, start.hi, search_radius, w);
        for (const QueryTag& q : o.queries) {
            gpu::upload(d_first.get(), start.positions, s);
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
                            <<<grid_for(n, o.block), o.block, 0, s>>>(view, n, start.env_max, d_b);
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
            Row row;
            row.dim = D, row.n = n, row.dist = "circles-run", row.target_neighbours = target;
            std::ostringstream note;
            note << start.note << "; " << steps << " steps";
            row.note = note.str();
            row.module = NeighbourModule{Construction::counting_sort, q, w, Layout::reorder};
            row.bins = grid.bin_count();
            row.query_result.circles_ms = query_sum / steps;
            row.query_result.run_median_ms = median(query_times);
            row.build.presorted_ms = build_sum / steps;
            row.build.shuffled_ms = std::nan("");
            rows.push_back(row);
            // circles-200 is the state reached with strips/0.5 (any module would do; this one
            // is fixed so that the data set does not depend on the options).
            const bool canonical = std::holds_alternative<StripsQuery>(q) && w == 0.5f;
            if (!final_positions.empty() && !canonical)
                continue;
            final_positions = gpu::download(d_a, n, s);
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

/// Circles query times at block sizes 64..512 and both carveouts for each selected query at
/// widths 1 and 0.5, printed on stdout (--tune).
template <int D>
void tune(const Options& o, Timer& timer, const Dataset<D>& data) {
    const auto n = static_cast<std::uint32_t>(data.positions.size());
    cudaStream_t s = timer.stream();
    gpu::DeviceMemoryAccount account;
    gpu::DeviceArray<Vec<D>> d_input, d_sorted, d_next;
    for (gpu::DeviceArray<Vec<D>>* a : {&d_input, &d_sorted, &d_next})
        a->allocate(n, account);
    gpu::upload(d_input.get(), data.positions, s);
    for (float w : {1.0f, 0.5f}) {
        const GridSpec<D> grid = make_grid<D>(data.lo, data.hi, search_radius, w);
        CudaNeighbourBuilder<D> builder;
        builder.build(d_input.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_sorted.get(), builder.d_sorted_positions(),
                                          n * sizeof(Vec<D>), cudaMemcpyDeviceToDevice, s));
        const NeighbourView<D> view =
            builder.build(d_sorted.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
        for (const QueryTag& q : o.queries)
            std::visit(
                [&](auto tag) {
                    using QueryT = decltype(tag);
                    for (bool max_l1 : {false, true}) {
                        if (max_l1)
                            prefer_l1(circles_kernel<QueryT, NeighbourView<D>>);
                        for (int block : {64, 128, 256, 512}) {
                            const double ms = timer.median_ms([&] {
                                circles_kernel<QueryT><<<grid_for(n, block), block, 0, s>>>(
                                    view, n, data.env_max, d_next.get());
                                SLUICE_CUDA_CHECK_LAUNCH();
                            });
                            std::cout << "tune " << D << "D " << data.name << " " << query_name(q)
                                      << "/" << width_label(w) << " block " << block
                                      << (max_l1 ? " carveout=maxL1" : " carveout=default")
                                      << ": circles " << std::fixed << std::setprecision(4) << ms
                                      << " ms" << std::endl;
                        }
                    }
                },
                q);
    }
}

} // namespace sluice::bench
