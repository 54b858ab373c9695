#pragma once
/// \file module_bench.cuh
/// The measurement of every selected module on one data set: construction times (from shuffled
/// and from presorted input, split into stages) and query times of both workloads, with the
/// candidates, neighbours and ranges per particle of each traversal.

#include "cuda_builder.h"
#include "data_sets.h"
#include "device_memory.cuh"
#include "grid.h"
#include "module.h"
#include "options.h"
#include "query.h"
#include "results.h"
#include "timing.cuh"
#include "workloads.cuh"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <random>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace sluice::bench {

template <int D>
class ModuleBench {
public:
    ModuleBench(const Options& o, Timer& timer, std::vector<Row>& rows)
        : o_(o), timer_(timer), rows_(rows) {}

    /// Constructions and queries of every selected module on one data set: a Row each, appended.
    void run(const Dataset<D>& data, int target) {
        const auto n = static_cast<std::uint32_t>(data.positions.size());
        cudaStream_t s = timer_.stream();
        // Shuffled input: a random permutation of the data set.
        std::vector<Vec<D>> shuffled = data.positions;
        std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(99));
        for (gpu::DeviceArray<Vec<D>>* a : {&d_shuffled_, &d_presorted_, &d_out_})
            a->allocate(n, account_);
        for (gpu::DeviceArray<std::uint32_t>* a : {&d_u32_a_, &d_u32_b_, &d_u32_c_})
            a->allocate(n, account_);
        gpu::upload(d_shuffled_.get(), shuffled, s);

        for (float w : o_.widths) {
            const GridSpec<D> grid = make_grid<D>(data.lo, data.hi, search_radius, w);
            // Presorted input: the data set in bin order.
            CudaNeighbourBuilder<D> reference(Construction::counting_sort);
            reference.build(d_shuffled_.get(), n, grid, search_radius, OutsidePolicy::clamp, s);
            SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_presorted_.get(), reference.d_sorted_positions(),
                                              n * sizeof(Vec<D>), cudaMemcpyDeviceToDevice, s));
            std::map<std::pair<Construction, Layout>, ConstructionResult> builds;
            for (Construction c : o_.constructions)
                for (Layout layout : o_.layouts)
                    if (module_exists(c, MooreQuery{}, layout) && // Moore walks every structure
                        bin_width_allowed(c, w))
                        builds[{c, layout}] = time_construction(c, layout, grid, n);

            // Queries: reorder on the structure built from the presorted input (particles and
            // threads in bin order); index through the permutation or the lists over the
            // shuffled input (particles and threads in a random order).
            const NeighbourView<D> view = reference.build(d_presorted_.get(), n, grid,
                                                          search_radius, OutsidePolicy::clamp, s);
            CudaNeighbourBuilder<D> indexed(Construction::counting_sort);
            Views views{view,
                        indexed.build_view(d_shuffled_.get(), n, grid, search_radius,
                                           OutsidePolicy::clamp, Layout::index, s),
                        {}};
            std::vector<CudaNeighbourBuilder<D>> list_builders;
            list_builders.reserve(std::size(all_constructions));
            for (Construction c : o_.constructions)
                if (is_linked_list(c) && bin_width_allowed(c, w)) {
                    list_builders.emplace_back(c);
                    views.lists.emplace_back(c, list_builders.back().build_view(
                                                    d_shuffled_.get(), n, grid, search_radius,
                                                    OutsidePolicy::clamp, Layout::index, s));
                }
            Row like;
            like.dim = D, like.n = n, like.dist = data.name, like.target_neighbours = target;
            like.note = data.note, like.bins = grid.bin_count();
            for (const QueryTag& q : o_.queries)
                time_queries(like, q, w, builds, views, data.env_max);
        }
    }

private:
    /// The structures a query walks: reorder (PBM, presorted), index (PBM and permutation,
    /// shuffled) and each selected linked list (shuffled).
    struct Views {
        NeighbourView<D> reorder;
        AnyNeighbourView<D> index;
        std::vector<std::pair<Construction, AnyNeighbourView<D>>> lists;
    };

    /// Times traversal q at width w over each layout and each list and appends a Row for each
    /// selected construction that has the module; `like` holds the configuration's fields.
    void time_queries(const Row& like, const QueryTag& q, float w,
                      std::map<std::pair<Construction, Layout>, ConstructionResult>& builds,
                      const Views& views, float env_max) {
        const std::uint32_t n = like.n;
        const QueryResult stats =
            std::visit([&](auto tag) { return query_stats<decltype(tag)>(views.reorder, n); }, q);
        const auto add_row = [&](Construction c, Layout layout, const QueryResult& qr) {
            Row row = like;
            row.module = NeighbourModule{c, q, w, layout};
            row.build = builds[{c, layout}];
            row.query_result = qr;
            rows_.push_back(row);
        };
        const auto time_on = [&](const AnyNeighbourView<D>& view) {
            QueryResult qr;
            dispatch_neighbour_query<D>(q, view, [&](auto tag, const auto& v) {
                qr = time_query<decltype(tag)>(v, stats, n, env_max);
            });
            return qr;
        };
        // PBM constructions: one timing per layout serves every selected one.
        const bool pbm_wanted = std::any_of(o_.constructions.begin(), o_.constructions.end(),
                                            [](Construction c) { return !is_linked_list(c); });
        for (Layout layout : o_.layouts) {
            if (!pbm_wanted)
                break;
            const QueryResult qr =
                time_on(layout == Layout::index ? views.index : AnyNeighbourView<D>(views.reorder));
            for (Construction c : o_.constructions)
                if (!is_linked_list(c))
                    add_row(c, layout, qr);
        }
        if (std::find(o_.layouts.begin(), o_.layouts.end(), Layout::index) == o_.layouts.end())
            return;
        for (const auto& [c, view] : views.lists)
            if (module_exists(c, q, Layout::index))
                add_row(c, Layout::index, time_on(view));
    }

    /// Median construction time of module (c, layout) from presorted and from shuffled input,
    /// and the median of each stage over separate runs with an event between stages.
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
            std::vector<std::vector<double>> per_stage(stages);
            for (int rep = 0; rep < timer_.reps(); ++rep) {
                timer_.flush();
                builder.build_view(input, n, grid, search_radius, OutsidePolicy::clamp, layout, s,
                                   &timing);
                SLUICE_CUDA_CHECK(cudaEventSynchronize(events[stages].get()));
                for (int i = 0; i < stages; ++i)
                    per_stage[i].push_back(elapsed_ms(events[i].get(), events[i + 1].get()));
            }
            Stages named;
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
        const auto candidates = gpu::download(d_u32_a_.get(), n, s),
                   bins = gpu::download(d_u32_b_.get(), n, s),
                   rows = gpu::download(d_u32_c_.get(), n, s);
        count_kernel<QueryT><<<grid_for(n, o_.block), o_.block, 0, s>>>(view, n, d_u32_a_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const auto neighbours = gpu::download(d_u32_a_.get(), n, s);
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
        if constexpr (is_tight_view<ViewT>) {
            // Its own blocks, lists and entries: the statistics of the loose block do not
            // apply (the bytes are not modelled).
            r.candidates = r.neighbours = r.ranges = r.pbm_loads = r.bins = std::nan("");
            r.bytes_count = r.bytes_circles = std::nan("");
        } else {
            constexpr bool lists = is_list_view<ViewT>;
            constexpr bool packed = std::is_same_v<ViewT, PackedLinkedListView<D>>;
            const double structure = lists ? 4.0 * r.bins : 4.0 * r.pbm_loads;
            // A packed node is position and next in one (16 bytes, in place of both).
            const double indirection =
                indexes_input_order<ViewT> && !packed ? 4.0 * r.candidates : 0.0;
            const double per_candidate = packed ? sizeof(PackedListNode) : sizeof(Vec<D>);
            const double common =
                r.candidates * per_candidate + structure + indirection + sizeof(Vec<D>);
            r.bytes_count = common + 4.0;
            r.bytes_circles = common + sizeof(Vec<D>);
        }
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
    gpu::DeviceMemoryAccount account_; // before the arrays: they give their bytes back to it
    gpu::DeviceArray<Vec<D>> d_shuffled_, d_presorted_, d_out_;
    gpu::DeviceArray<std::uint32_t> d_u32_a_, d_u32_b_, d_u32_c_;
};

} // namespace sluice::bench
