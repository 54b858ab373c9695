// The CUDA builders with both queries run on the device, for every construction × query ×
// binWidth ∈ {1, 0.5, 1/3} × {2D, 3D}: against brute force on the adversarial inputs, against
// brute force on a sample and the CPU builder on all of 10^6 random points, and PBM against the
// CPU builder. Skipped (GTEST_SKIP) where no CUDA device is present.
#include "neighbour_test_support.h"

#include "cpu_builder.h"
#include "cuda_builder.h"
#include "cuda_check.h"
#include "cuda_gather.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <variant>
#include <vector>

using namespace sluice;
using namespace sluice::test;

namespace {

bool cuda_device_present() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device/driver" error
        return false;
    }
    return count > 0;
}

#define SKIP_WITHOUT_CUDA_DEVICE()                                                                 \
    do {                                                                                           \
        if (!cuda_device_present())                                                                \
            GTEST_SKIP() << "no CUDA device";                                                      \
    } while (0)

/// A device array that frees itself.
template <class T>
class DeviceArray {
public:
    explicit DeviceArray(std::size_t n = 0) { resize(n); }
    explicit DeviceArray(const std::vector<T>& host) {
        resize(host.size());
        if (!host.empty())
            SLUICE_CUDA_CHECK(
                cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~DeviceArray() {
        if (ptr_)
            cudaFree(ptr_);
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    void resize(std::size_t n) {
        if (ptr_)
            SLUICE_CUDA_CHECK(cudaFree(ptr_));
        ptr_ = nullptr;
        size_ = n;
        if (n)
            SLUICE_CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return size_; }

private:
    T* ptr_ = nullptr;
    std::size_t size_ = 0;
};

template <class T>
std::vector<T> download(const T* d_ptr, std::size_t n) {
    std::vector<T> host(n);
    if (n)
        SLUICE_CUDA_CHECK(cudaMemcpy(host.data(), d_ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

// --- Query kernels (one thread per query origin) -------------------------------------------

template <int D>
struct CountVisitor {
    std::uint32_t count = 0;
    __device__ void operator()(std::uint32_t, const Vec<D>&, float) { ++count; }
};

/// A view's j as an input index: through the permutation for a NeighbourView (bin order), j
/// itself for the index views (permutation = nullptr).
SLUICE_HD inline std::uint32_t input_index(const std::uint32_t* permutation, std::uint32_t j) {
    return permutation ? permutation[j] : j;
}

template <int D>
struct ListVisitor {
    const std::uint32_t* permutation;
    std::uint32_t* out;
    std::uint32_t next;
    __device__ void operator()(std::uint32_t j, const Vec<D>&, float) {
        out[next++] = input_index(permutation, j);
    }
};

template <int D>
struct FingerprintVisitor {
    const std::uint32_t* permutation;
    Fingerprint f;
    SLUICE_HD void operator()(std::uint32_t j, const Vec<D>&, float) {
        const std::uint32_t id = input_index(permutation, j);
        ++f.count;
        f.sum += id;
        f.mixed += mix64(id);
    }
};

template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void count_kernel(ViewT view, const Vec<D>* origins, std::uint32_t n,
                             std::uint32_t* counts) {
    const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    CountVisitor<D> visit;
    for_each_neighbour<QueryT>(view, origins[q], visit);
    counts[q] = visit.count;
}

template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void list_kernel(ViewT view, const Vec<D>* origins, std::uint32_t n,
                            const std::uint32_t* permutation, const std::uint32_t* offsets,
                            std::uint32_t* out) {
    const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    ListVisitor<D> visit{permutation, out, offsets[q]};
    for_each_neighbour<QueryT>(view, origins[q], visit);
}

/// Fingerprints of every input particle's set, queried from the input positions.
template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void fingerprint_kernel(ViewT view, const Vec<D>* origins, std::uint32_t n,
                                   const std::uint32_t* permutation, Fingerprint* out) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    FingerprintVisitor<D> visit{permutation, {}};
    for_each_neighbour<QueryT>(view, origins[i], visit);
    out[i] = visit.f;
}

unsigned blocks(std::size_t n) {
    return static_cast<unsigned>(std::max<std::size_t>((n + 127) / 128, 1));
}

/// The permutation a view's j goes through to be an input index (nullptr: none).
template <class ViewT, int D>
const std::uint32_t* index_map(const CudaNeighbourBuilder<D>& builder) {
    return indexes_input_order<ViewT> ? nullptr : builder.d_permutation();
}

/// Neighbour lists (input indices, sorted) of each origin, two passes: count, then fill.
template <class QueryT, class ViewT, int D = ViewT::dimension>
NeighbourSets device_lists(const ViewT& view, const Vec<D>* d_origins, std::uint32_t n,
                           const std::uint32_t* d_permutation) {
    NeighbourSets sets(n);
    if (n == 0)
        return sets;
    DeviceArray<std::uint32_t> d_counts(n);
    count_kernel<QueryT><<<blocks(n), 128>>>(view, d_origins, n, d_counts.get());
    SLUICE_CUDA_CHECK_LAUNCH();
    const std::vector<std::uint32_t> counts = download(d_counts.get(), n);
    std::vector<std::uint32_t> offsets(n + 1, 0);
    std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
    DeviceArray<std::uint32_t> d_offsets(offsets);
    DeviceArray<std::uint32_t> d_out(std::max<std::uint32_t>(offsets[n], 1));
    list_kernel<QueryT>
        <<<blocks(n), 128>>>(view, d_origins, n, d_permutation, d_offsets.get(), d_out.get());
    SLUICE_CUDA_CHECK_LAUNCH();
    const std::vector<std::uint32_t> out = download(d_out.get(), offsets[n]);
    for (std::uint32_t q = 0; q < n; ++q) {
        sets[q].assign(out.begin() + offsets[q], out.begin() + offsets[q + 1]);
        std::sort(sets[q].begin(), sets[q].end());
    }
    return sets;
}

/// Builds the module's view on the device (build_view) and queries from every input particle.
template <int D>
BuildResult<D> run_cuda(const ModuleParam& p, const Input<D>& in, const GridSpec<D>& grid,
                        OutsidePolicy policy) {
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    DeviceArray<Vec<D>> d_positions(in.positions);
    CudaNeighbourBuilder<D> builder(p.construction);
    const AnyNeighbourView<D> any = builder.build_view(d_positions.get(), n, grid, in.radius,
                                                       policy, p.layout, cudaStreamLegacy);
    BuildResult<D> r;
    if (p.construction == Construction::linked_list) {
        r.heads = download(builder.d_pbm(), grid.bin_count()); // the heads
        r.next = download(std::get<LinkedListView<D>>(any).next, n);
    } else if (p.construction == Construction::linked_list_packed) {
        r.heads = download(builder.d_pbm(), grid.bin_count());
        r.nodes = download(std::get<PackedLinkedListView<D>>(any).nodes, n);
        for (const PackedListNode& node : r.nodes)
            r.next.push_back(node.next);
    } else if (p.construction == Construction::linked_list_tight) {
        r.heads = download(builder.d_pbm(), grid.bin_count());
        r.next = download(std::get<TightLinkedListView<D>>(any).next,
                          std::size_t{n} * TightLinkedListView<D>::slots_per_particle);
        r.tight = true;
    } else {
        r.pbm = download(builder.d_pbm(), grid.bin_count() + 1);
        r.permutation = download(builder.d_permutation(), n);
        if (p.layout == Layout::reorder)
            r.sorted = download(builder.d_sorted_positions(), n);
    }
    r.binned = download(builder.d_binned_count(), 1)[0];
    dispatch_neighbour_query<D>(p.query, any, [&](auto query, const auto& view) {
        using ViewT = std::decay_t<decltype(view)>;
        r.sets =
            device_lists<decltype(query)>(view, d_positions.get(), n, index_map<ViewT>(builder));
    });
    SLUICE_CUDA_CHECK(cudaDeviceSynchronize());
    return r;
}

// --- Adversarial inputs, every module, both policies -----------------------------------------

class CudaModules : public testing::TestWithParam<ModuleParam> {};

TEST_P(CudaModules, MatchesBruteForceOnAdversarialInputs) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const ModuleParam p = GetParam();
    if (p.dim == 2)
        check_module_on_adversarial_inputs<2>(
            p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                return run_cuda<2>(p, in, grid, policy);
            });
    else
        check_module_on_adversarial_inputs<3>(
            p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                return run_cuda<3>(p, in, grid, policy);
            });
}

/// The GPU PBM equals the CPU builder's on the same input (and the CPU builder's equals the
/// definition, checked in check_build).
template <int D>
void check_pbm_equals_cpu(const ModuleParam& p) {
    for (const Input<D>& in : adversarial_inputs<D>()) {
        const GridSpec<D> grid = make_grid<D>(in.lo, in.hi, in.radius, p.bin_width);
        const auto n = static_cast<std::uint32_t>(in.positions.size());
        CpuNeighbourBuilder<D> cpu(p.construction);
        cpu.build(in.positions.data(), n, grid, in.radius, p.policy);
        DeviceArray<Vec<D>> d_positions(in.positions);
        CudaNeighbourBuilder<D> gpu(p.construction);
        gpu.build_view(d_positions.get(), n, grid, in.radius, p.policy, p.layout, cudaStreamLegacy);
        EXPECT_EQ(download(gpu.d_binned_count(), 1)[0], cpu.binned_count()) << in.name;
        if (!is_linked_list(p.construction)) // lists: order differs (atomics)
            EXPECT_EQ(download(gpu.d_pbm(), grid.bin_count() + 1), cpu.pbm()) << in.name;
    }
}

TEST_P(CudaModules, PbmAndCountEqualCpuBuilder) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const ModuleParam p = GetParam();
    if (p.dim == 2)
        check_pbm_equals_cpu<2>(p);
    else
        check_pbm_equals_cpu<3>(p);
}

INSTANTIATE_TEST_SUITE_P(All, CudaModules,
                         testing::ValuesIn(all_module_params({OutsidePolicy::clamp,
                                                              OutsidePolicy::exclude})),
                         param_name);

// --- 10^6 random points ----------------------------------------------------------------------

/// 10^6 uniform random points in [0, 1]^D with about 30 neighbours each, and the references:
/// every particle's fingerprint from the CPU builder's query, and brute-force lists of a random
/// sample of origins. Computed once per dimension and shared by all modules.
template <int D>
struct MillionPoints {
    static constexpr std::uint32_t n = 1000000;
    static constexpr std::uint32_t samples = 2000;
    Input<D> input;
    std::vector<Fingerprint> fingerprints; ///< by input index
    std::vector<std::uint32_t> sample;     ///< input indices
    NeighbourSets sample_sets;             ///< brute force, by sample

    static const MillionPoints& get() {
        static const MillionPoints instance;
        return instance;
    }

private:
    MillionPoints() {
        std::mt19937 rng(4242 + D);
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        input.name = "million";
        input.positions.resize(n);
        for (Vec<D>& x : input.positions)
            for (int k = 0; k < D; ++k)
                x[k] = unit(rng);
        input.lo = filled<D>(0.0f);
        input.hi = filled<D>(1.0f);
        const double ball = D == 2 ? 3.14159265358979 : 4.18879020478639;
        input.radius = static_cast<float>(std::pow(30.0 / (n * ball), 1.0 / D));

        const GridSpec<D> grid = make_grid<D>(input.lo, input.hi, input.radius, 1.0f);
        CpuNeighbourBuilder<D> cpu;
        cpu.build(input.positions.data(), n, grid, input.radius);
        const NeighbourView<D> view = cpu.view();
        fingerprints.resize(n);
        for (std::uint32_t k = 0; k < n; ++k) {
            FingerprintVisitor<D> visit{cpu.permutation().data(), {}};
            for_each_neighbour<StripsQuery>(view, cpu.sorted_positions()[k], visit);
            fingerprints[cpu.permutation()[k]] = visit.f;
        }
        std::uniform_int_distribution<std::uint32_t> pick(0, n - 1);
        for (std::uint32_t s = 0; s < samples; ++s) {
            sample.push_back(pick(rng));
            sample_sets.push_back(brute_force_neighbours(
                input.positions.data(), n, input.positions[sample.back()], input.radius));
        }
    }
};

template <int D>
void check_million(const ModuleParam& p) {
    const MillionPoints<D>& ref = MillionPoints<D>::get();
    const Input<D>& in = ref.input;
    const std::uint32_t n = ref.n;
    const GridSpec<D> grid = make_grid<D>(in.lo, in.hi, in.radius, p.bin_width);
    DeviceArray<Vec<D>> d_positions(in.positions);
    CudaNeighbourBuilder<D> builder(p.construction);
    const AnyNeighbourView<D> any = builder.build_view(
        d_positions.get(), n, grid, in.radius, OutsidePolicy::clamp, p.layout, cudaStreamLegacy);

    // PBM against the CPU builder's.
    CpuNeighbourBuilder<D> cpu(p.construction);
    cpu.build(in.positions.data(), n, grid, in.radius);
    if (!is_linked_list(p.construction))
        ASSERT_EQ(download(builder.d_pbm(), grid.bin_count() + 1), cpu.pbm());
    ASSERT_EQ(download(builder.d_binned_count(), 1)[0], n);

    // Every particle's set against the CPU builder's query (fingerprints).
    DeviceArray<Fingerprint> d_fingerprints(n);
    dispatch_neighbour_query<D>(p.query, any, [&](auto query, const auto& view) {
        using ViewT = std::decay_t<decltype(view)>;
        fingerprint_kernel<decltype(query)><<<blocks(n), 128>>>(
            view, d_positions.get(), n, index_map<ViewT>(builder), d_fingerprints.get());
    });
    SLUICE_CUDA_CHECK_LAUNCH();
    const std::vector<Fingerprint> got = download(d_fingerprints.get(), n);
    std::size_t wrong = 0;
    double total = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        total += got[i].count;
        if (!(got[i] == ref.fingerprints[i]) && ++wrong <= 3)
            ADD_FAILURE() << "particle " << i << ": " << got[i].count << " neighbours, CPU "
                          << ref.fingerprints[i].count;
    }
    EXPECT_EQ(wrong, 0u) << wrong << " of " << n << " neighbour sets differ from the CPU builder";
    EXPECT_GT(total / n, 20.0); // the input is what it claims (about 30 neighbours)

    // A random sample of origins against brute force, as full lists.
    std::vector<Vec<D>> origins;
    for (std::uint32_t i : ref.sample)
        origins.push_back(in.positions[i]);
    DeviceArray<Vec<D>> d_origins(origins);
    NeighbourSets sets;
    dispatch_neighbour_query<D>(p.query, any, [&](auto query, const auto& view) {
        using ViewT = std::decay_t<decltype(view)>;
        sets = device_lists<decltype(query)>(view, d_origins.get(), ref.samples,
                                             index_map<ViewT>(builder));
    });
    for (std::uint32_t s = 0; s < ref.samples; ++s)
        ASSERT_EQ(sets[s], ref.sample_sets[s]) << "sample origin " << ref.sample[s];
}

class CudaModulesMillion : public testing::TestWithParam<ModuleParam> {};

TEST_P(CudaModulesMillion, MatchesCpuAndBruteForceOnMillionRandomPoints) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const ModuleParam p = GetParam();
    if (p.dim == 2)
        check_million<2>(p);
    else
        check_million<3>(p);
}

INSTANTIATE_TEST_SUITE_P(All, CudaModulesMillion,
                         testing::ValuesIn(all_module_params({OutsidePolicy::clamp})), param_name);

// --- Builder properties ----------------------------------------------------------------------

std::vector<Vec<3>> random_points(std::uint32_t n, float extent, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, extent);
    std::vector<Vec<3>> points(n);
    for (Vec<3>& x : points)
        x = Vec<3>{{u(rng), u(rng), u(rng), 0.0f}};
    return points;
}

TEST(CudaBuilder, SteadyStateBuildsAllocateNothingAndNeverSynchronise) {
    SKIP_WITHOUT_CUDA_DEVICE();
    for (Construction c : {Construction::counting_sort, Construction::radix_sort}) {
        const std::vector<Vec<3>> points = random_points(50000, 10.0f, 7);
        const GridSpec<3> grid = make_grid<3>(filled<3>(0.0f), filled<3>(10.0f), 0.5f, 0.5f);
        DeviceArray<Vec<3>> d_positions(points);
        CudaNeighbourBuilder<3> builder(c);
        builder.reserve(50000, grid.bin_count());
        const std::uint64_t allocations = builder.allocation_count();

        // A build captured into a CUDA graph: capture fails on any synchronising call.
        cudaStream_t stream;
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        cudaGraph_t graph;
        SLUICE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        builder.build(d_positions.get(), 50000, grid, 0.5f, OutsidePolicy::clamp, stream);
        SLUICE_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        cudaGraphExec_t exec;
        SLUICE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        SLUICE_CUDA_CHECK(
            cudaMemsetAsync(builder.d_sorted_positions(), 0xFF, 50000 * sizeof(Vec<3>), stream));
        SLUICE_CUDA_CHECK(cudaGraphLaunch(exec, stream));
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
        EXPECT_EQ(builder.allocation_count(), allocations);

        CpuNeighbourBuilder<3> cpu(c);
        cpu.build(points.data(), 50000, grid, 0.5f);
        EXPECT_EQ(download(builder.d_pbm(), grid.bin_count() + 1), cpu.pbm());
        const std::vector<std::uint32_t> perm = download(builder.d_permutation(), 50000);
        const std::vector<Vec<3>> sorted = download(builder.d_sorted_positions(), 50000);
        for (std::uint32_t k = 0; k < 50000; ++k)
            ASSERT_EQ(sorted[k][0], points[perm[k]][0]);

        // Smaller builds reuse the buffers.
        builder.build(d_positions.get(), 1000, grid, 0.5f, OutsidePolicy::clamp, stream);
        builder.build(d_positions.get(), 50000, grid, 0.5f, OutsidePolicy::clamp, stream);
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
        EXPECT_EQ(builder.allocation_count(), allocations);

        SLUICE_CUDA_CHECK(cudaGraphExecDestroy(exec));
        SLUICE_CUDA_CHECK(cudaGraphDestroy(graph));
        SLUICE_CUDA_CHECK(cudaStreamDestroy(stream));
    }
}

TEST(CudaBuilder, IndexAndLinkedListBuildsAllocateNothingAndNeverSynchronise) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const std::uint32_t n = 50000;
    const std::vector<Vec<3>> points = random_points(n, 10.0f, 9);
    const GridSpec<3> grid = make_grid<3>(filled<3>(0.0f), filled<3>(10.0f), 0.5f, 0.5f);
    DeviceArray<Vec<3>> d_positions(points);
    for (Construction c : all_constructions) {
        CudaNeighbourBuilder<3> builder(c);
        builder.reserve(n, grid.bin_count());
        const std::uint64_t allocations = builder.allocation_count();
        cudaStream_t stream;
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        cudaGraph_t graph;
        SLUICE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        const AnyNeighbourView<3> view = builder.build_view(
            d_positions.get(), n, grid, 0.5f, OutsidePolicy::clamp, Layout::index, stream);
        SLUICE_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        cudaGraphExec_t exec;
        SLUICE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        SLUICE_CUDA_CHECK(cudaGraphLaunch(exec, stream));
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
        EXPECT_EQ(builder.allocation_count(), allocations);
        EXPECT_EQ(download(builder.d_binned_count(), 1)[0], n);
        if (c == Construction::linked_list_packed || c == Construction::linked_list_tight) {
            // Their lists: the adversarial inputs' checks (CudaModules).
            EXPECT_EQ(view.index(), c == Construction::linked_list_packed ? 3u : 4u);
        } else if (c == Construction::linked_list) {
            EXPECT_TRUE(std::holds_alternative<LinkedListView<3>>(view));
            // Every particle on one list, its bin's.
            const std::vector<std::uint32_t> heads = download(builder.d_pbm(), grid.bin_count());
            const std::vector<std::uint32_t> next =
                download(std::get<LinkedListView<3>>(view).next, n);
            std::vector<char> seen(n, 0);
            for (std::uint32_t b = 0; b < grid.bin_count(); ++b)
                for (std::uint32_t j = heads[b]; j != LinkedListView<3>::list_end; j = next[j]) {
                    ASSERT_LT(j, n);
                    ASSERT_FALSE(seen[j]);
                    ASSERT_EQ(grid.bin_of(points[j]), b);
                    seen[j] = 1;
                }
            EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(n));
        } else {
            EXPECT_TRUE(std::holds_alternative<IndexedNeighbourView<3>>(view));
            CpuNeighbourBuilder<3> cpu(c);
            cpu.build(points.data(), n, grid, 0.5f);
            EXPECT_EQ(download(builder.d_pbm(), grid.bin_count() + 1), cpu.pbm());
        }
        SLUICE_CUDA_CHECK(cudaGraphExecDestroy(exec));
        SLUICE_CUDA_CHECK(cudaGraphDestroy(graph));
        SLUICE_CUDA_CHECK(cudaStreamDestroy(stream));
    }
}

/// A refused tight build (more particles than 32-bit entries can number) changes nothing: the
/// builder then builds a smaller input exactly, into buffers of the right size.
TEST(CudaBuilder, RefusedTightBuildLeavesTheBuilderUsable) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const std::vector<Vec<3>> points = random_points(2000, 4.0f, 5);
    const GridSpec<3> grid = make_grid<3>(filled<3>(0.0f), filled<3>(4.0f), 1.0f, 1.0f);
    DeviceArray<Vec<3>> d_positions(points);
    CudaNeighbourBuilder<3> builder(Construction::linked_list_tight);
    builder.reserve(1000, grid.bin_count());
    const std::uint32_t too_many = TightLinkedListView<3>::list_end / 64 + 1;
    EXPECT_THROW(builder.reserve(too_many, grid.bin_count()), std::length_error);
    EXPECT_THROW(builder.build_view(d_positions.get(), too_many, grid, 1.0f, OutsidePolicy::clamp,
                                    Layout::index, cudaStreamLegacy),
                 std::length_error);
    const AnyNeighbourView<3> any = builder.build_view(
        d_positions.get(), 2000, grid, 1.0f, OutsidePolicy::clamp, Layout::index, cudaStreamLegacy);
    const TightLinkedListView<3> view = std::get<TightLinkedListView<3>>(any);
    EXPECT_GE(builder.device_bytes(), 2000u * 64u * sizeof(std::uint32_t));
    NeighbourSets sets = device_lists<MooreQuery>(view, d_positions.get(), 2000, nullptr);
    for (std::uint32_t i = 0; i < 2000; i += 97)
        EXPECT_EQ(sets[i], brute_force_neighbours(points.data(), 2000, points[i], 1.0f)) << i;
}

TEST(CudaBuilder, GrowsWhenTheInputGrows) {
    SKIP_WITHOUT_CUDA_DEVICE();
    CudaNeighbourBuilder<3> builder(Construction::radix_sort);
    for (std::uint32_t n : {10u, 100000u, 300000u}) {
        const std::vector<Vec<3>> points = random_points(n, 20.0f, n);
        const GridSpec<3> grid = make_grid<3>(filled<3>(0.0f), filled<3>(20.0f), 1.0f, 1.0f / 3);
        DeviceArray<Vec<3>> d_positions(points);
        builder.build(d_positions.get(), n, grid, 1.0f, OutsidePolicy::clamp, cudaStreamLegacy);
        CpuNeighbourBuilder<3> cpu;
        cpu.build(points.data(), n, grid, 1.0f);
        EXPECT_EQ(download(builder.d_pbm(), grid.bin_count() + 1), cpu.pbm()) << n;
    }
    CudaNeighbourBuilder<3> moved(std::move(builder));
    EXPECT_EQ(moved.size(), 300000u);
    EXPECT_GT(moved.device_bytes(), 300000u * sizeof(Vec<3>));
}

TEST(CudaGather, ReordersSeveralArraysByThePermutation) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const std::uint32_t n = 100003;
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(3));
    std::vector<float> a(n);
    std::vector<Vec<3>> b = random_points(n, 1.0f, 11);
    for (std::uint32_t i = 0; i < n; ++i)
        a[i] = static_cast<float>(i) * 0.5f;
    DeviceArray<std::uint32_t> d_perm(perm);
    DeviceArray<float> d_a(a), d_a_out(n);
    DeviceArray<Vec<3>> d_b(b), d_b_out(n);
    gather(cudaStreamLegacy, d_perm.get(), n, GatherPair<float>{d_a.get(), d_a_out.get()},
           GatherPair<Vec<3>>{d_b.get(), d_b_out.get()});
    const std::vector<float> a_out = download(d_a_out.get(), n);
    const std::vector<Vec<3>> b_out = download(d_b_out.get(), n);
    for (std::uint32_t k = 0; k < n; ++k) {
        ASSERT_EQ(a_out[k], a[perm[k]]);
        ASSERT_EQ(b_out[k][2], b[perm[k]][2]);
    }
}

TEST(CudaGather, SkipsAPairWithoutInput) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const std::uint32_t n = 5000;
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::reverse(perm.begin(), perm.end());
    std::vector<float> a(n), untouched(n, -7.0f);
    std::iota(a.begin(), a.end(), 1.0f);
    DeviceArray<std::uint32_t> d_perm(perm);
    DeviceArray<float> d_a(a), d_a_out(n), d_kept(untouched);
    gather(cudaStreamLegacy, d_perm.get(), n, GatherPair<float>{nullptr, nullptr},
           GatherPair<float>{d_a.get(), d_a_out.get()}, GatherPair<float>{nullptr, d_kept.get()});
    const std::vector<float> a_out = download(d_a_out.get(), n);
    const std::vector<float> kept = download(d_kept.get(), n);
    for (std::uint32_t k = 0; k < n; ++k) {
        ASSERT_EQ(a_out[k], a[n - 1 - k]);
        ASSERT_EQ(kept[k], -7.0f);
    }
}

} // namespace
