// The CUDA backend (cuda_backend.h): the WCSPH step of cpu_backend.cpp on the device.

// Eigen (case model, particle generation) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_backend.h"

#include "backends/backend_common.h"
#include "backends/cuda/packed_particles.h"
#include "case/constants.h"
#include "neighbours/cuda_builder.h"
#include "neighbours/cuda_check.h"
#include "neighbours/cuda_gather.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>
#include <utility>
#include <variant>

namespace sluice {

namespace {

// ---------------------------------------------------------------------------------------------
// Device memory

/// Device bytes and allocations of one owner, for device_bytes() and device_allocations().
struct DeviceMemoryAccount {
    std::size_t bytes = 0;
    std::uint64_t allocations = 0;
};

/// A device array that frees itself; allocated once, never resized.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    ~DeviceArray() { release(); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    void allocate(std::size_t count, DeviceMemoryAccount& account) {
        release();
        void* p = nullptr;
        const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
        SLUICE_CUDA_CHECK(cudaMalloc(&p, bytes));
        ptr_ = static_cast<T*>(p);
        bytes_ = bytes;
        account_ = &account;
        account.bytes += bytes;
        ++account.allocations;
    }
    T* get() const { return ptr_; }
    explicit operator bool() const { return ptr_ != nullptr; }

private:
    void release() noexcept {
        if (ptr_) {
            cudaFree(ptr_); // nothing sensible to do on failure while releasing
            account_->bytes -= bytes_;
        }
        ptr_ = nullptr;
    }
    T* ptr_ = nullptr;
    std::size_t bytes_ = 0;
    DeviceMemoryAccount* account_ = nullptr;
};

/// Page-locked host memory (the target of asynchronous device → host copies).
template <class T>
class PinnedArray {
public:
    PinnedArray() = default;
    ~PinnedArray() {
        if (ptr_)
            cudaFreeHost(ptr_);
    }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    void allocate(std::size_t count) {
        void* p = nullptr;
        SLUICE_CUDA_CHECK(cudaMallocHost(&p, std::max<std::size_t>(count, 1) * sizeof(T)));
        ptr_ = static_cast<T*>(p);
    }
    T* get() const { return ptr_; }

private:
    T* ptr_ = nullptr;
};

template <class T>
void upload(T* d_dst, const std::vector<T>& src, cudaStream_t stream) {
    if (!src.empty())
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(d_dst, src.data(), src.size() * sizeof(T),
                                          cudaMemcpyHostToDevice, stream));
}

template <class T>
std::vector<T> download(const T* d_src, std::size_t count, cudaStream_t stream) {
    std::vector<T> out(count);
    if (count)
        SLUICE_CUDA_CHECK(
            cudaMemcpyAsync(out.data(), d_src, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Host helpers shared with the CPU backend's conventions

/// The host-side snapshot of packed arrays in bin order: particles [0, active) by ascending id,
/// as CpuSimulation::snapshot().
template <int D>
Snapshot make_snapshot(double time, std::uint64_t step, std::uint32_t n, std::uint32_t active,
                       const Vec<D>* position, const Float4* motion, const std::uint32_t* id,
                       const FluidConstants& c) {
    constexpr std::uint32_t none = ~0u;
    std::vector<std::uint32_t> slot(n, none);
    for (std::uint32_t k = 0; k < active; ++k)
        slot[id[k]] = k;
    Snapshot s;
    s.dimension = D;
    s.time = time;
    s.step = step;
    s.id.reserve(active);
    s.type.reserve(active);
    s.position.reserve(active);
    s.velocity.reserve(active);
    s.density.reserve(active);
    s.pressure.reserve(active);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t k = slot[i];
        if (k == none)
            continue;
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        s.id.push_back(i);
        s.type.push_back(p.type);
        s.position.push_back(to_array3(p.position));
        s.velocity.push_back(to_array3(p.velocity));
        s.density.push_back(p.density);
        s.pressure.push_back(tait_pressure(c, p.density));
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Kernels

constexpr int block_size = 256;        ///< element-wise kernels
constexpr int interaction_block = 128; ///< interaction kernels (a multiple of 32)

unsigned blocks_for(std::uint32_t n, int block) {
    return static_cast<unsigned>((static_cast<std::uint64_t>(n) + block - 1) / block);
}

/// The scalars of a step, in device memory; the host reads them once, at the end of the step.
struct StepScalars {
    double dt;                            ///< s, from the first interaction pass
    float dt_float;                       ///< static_cast<float>(dt), what the schemes take
    std::uint32_t acceleration_max2_bits; ///< float bits of max |a|² over fluid particles
    std::uint32_t mu_max_bits;            ///< float bits of max μ
    std::uint32_t bad_count;              ///< particles that failed the check
    std::uint32_t binned;                 ///< pbm[nbins] of the last build
    std::uint32_t padding;
};

struct MaxOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// Shared-memory queue capacity per thread of the queued interaction (entries of 4 bytes): above
/// the 81 (3D, h = 1.3 dp) and 25 (2D, h = 1.41 dp) neighbours of a lattice particle. A particle
/// with more neighbours still comes out right: its queue is drained whenever it fills.
template <int D>
constexpr int queue_capacity = D == 3 ? 96 : 48;

/// A visitor for for_each_neighbour that only records the neighbour's index in this thread's
/// column of a shared-memory queue; drain() then runs the pair terms over the queue. Between the
/// two, the query's divergent loops have ended, so the warp's lanes run the pair terms together
/// instead of whenever any one lane finds a neighbour. The pair sees the same (j, r_ij, r²), in
/// the same order, as the direct visitor would (r_ij and r² are recomputed the same way).
template <int D, class PairT, int CapacityT>
struct NeighbourQueue {
    std::uint32_t* slots; ///< entry k at slots[k · interaction_block]
    Vec<D> x;
    const Vec<D>* positions;
    PairT pair;
    int count = 0;

    __device__ __forceinline__ void operator()(std::uint32_t j, const Vec<D>&, float) {
        if (count == CapacityT)
            drain();
        slots[count * interaction_block] = j;
        ++count;
    }

    __device__ __forceinline__ void drain() {
        for (int k = 0; k < count; ++k) {
            const std::uint32_t j = slots[k * interaction_block];
            const Vec<D> rij = x - detail::load_position(positions + j);
            pair(j, rij, neighbour_distance2(rij));
        }
        count = 0;
    }
};

/// One interaction pass over the binned particles (bin-order index i < pbm[nbins]): derivatives
/// (packed), and the block's max |a|² (fluid) and max μ folded into the step's scalars by atomic
/// max on their bit patterns (non-negative floats order like their bits).
/// QueueT = 0: direct visitor; else the queued one with QueueT entries per thread in dynamic
/// shared memory.
template <class QueryT, int D, class KernelT, int QueueT>
__global__ void __launch_bounds__(interaction_block)
    interaction_kernel(NeighbourView<D> view, PackedParticlesView<D> particles, KernelT kernel,
                       FluidConstants c, std::uint32_t n, Float4* __restrict__ derivatives,
                       StepScalars* __restrict__ scalars) {
    using BlockReduce = cub::BlockReduce<float, interaction_block>;
    __shared__ typename BlockReduce::TempStorage reduce_storage;
    extern __shared__ std::uint32_t queue_storage[];

    const std::uint32_t i = blockIdx.x * interaction_block + threadIdx.x;
    const std::uint32_t binned = detail::load_pbm(view.pbm + view.grid.bin_count());
    float acceleration2 = 0.0f, mu = 0.0f;
    if (i < binned && i < n) {
        const Vec<D> x = detail::load_position(view.positions + i);
        PackedInteractionVisitor<D, KernelT> pair = make_packed_visitor(
            particles, kernel, c, x, detail::load_motion(particles.motions + i));
        Derivatives<D> d;
        if constexpr (QueueT == 0) {
            for_each_neighbour<QueryT>(view, x, pair);
            d = pair.result();
        } else {
            NeighbourQueue<D, PackedInteractionVisitor<D, KernelT>, QueueT> queue{
                queue_storage + threadIdx.x, x, view.positions, pair};
            for_each_neighbour<QueryT>(view, x, queue);
            queue.drain();
            d = queue.pair.result();
        }
        derivatives[i] = pack_derivatives<D>(d.acceleration, d.density_rate);
        mu = d.mu_max;
        if (pair.fluid_i)
            acceleration2 = norm2(d.acceleration);
    }
    const float block_acceleration2 = BlockReduce(reduce_storage).Reduce(acceleration2, MaxOp{});
    __syncthreads(); // reduce_storage is reused
    const float block_mu = BlockReduce(reduce_storage).Reduce(mu, MaxOp{});
    if (threadIdx.x == 0) {
        atomicMax(&scalars->acceleration_max2_bits, __float_as_uint(block_acceleration2));
        atomicMax(&scalars->mu_max_bits, __float_as_uint(block_mu));
    }
}

/// dt from the pass's reductions (integrators.h time_step, as the CPU backend computes it).
__global__ void time_step_kernel(FluidConstants c, double cfl, StepScalars* scalars) {
    const float acceleration_max = sqrtf(__uint_as_float(scalars->acceleration_max2_bits));
    const float mu_max = __uint_as_float(scalars->mu_max_bits);
    const double dt = time_step(c, cfl, acceleration_max, mu_max);
    scalars->dt = dt;
    scalars->dt_float = static_cast<float>(dt);
}

/// Symplectic predictor over bin order: binned particles move (integrators.h); excluded ones
/// (i ≥ pbm[nbins]) keep their sorted position. Reads the view's sorted positions, writes the
/// state's position array, and state n into previous_* (in this bin order).
template <int D>
__global__ void __launch_bounds__(block_size)
    predict_kernel(const Vec<D>* __restrict__ sorted, Vec<D>* __restrict__ position,
                   Float4* __restrict__ motion, const Float4* __restrict__ derivatives,
                   Vec<D>* __restrict__ previous_position, Vec<D>* __restrict__ previous_velocity,
                   float* __restrict__ previous_density, const std::uint32_t* __restrict__ binned,
                   std::uint32_t n, FluidConstants c, const StepScalars* __restrict__ scalars) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n)
        return;
    const Vec<D> x = detail::load_position(sorted + i);
    if (i >= *binned) {
        position[i] = x;
        return;
    }
    PreviousState<D> previous;
    const IntegrationResult<D> r =
        predict_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, previous);
    position[i] = r.position;
    motion[i] = r.motion;
    previous_position[i] = previous.position;
    previous_velocity[i] = previous.velocity;
    previous_density[i] = previous.density;
}

/// Symplectic corrector over the new bin order, plus the failure check of every particle.
/// previous_* are in the predictor's bin order: particle i reads them at permutation[i].
template <int D>
__global__ void __launch_bounds__(block_size)
    correct_kernel(const Vec<D>* __restrict__ sorted, Vec<D>* __restrict__ position,
                   Float4* __restrict__ motion, const Float4* __restrict__ derivatives,
                   const std::uint32_t* __restrict__ permutation,
                   const Vec<D>* __restrict__ previous_position,
                   const Vec<D>* __restrict__ previous_velocity,
                   const float* __restrict__ previous_density,
                   const std::uint32_t* __restrict__ binned, std::uint32_t n, FluidConstants c,
                   float density_min, float density_max, StepScalars* __restrict__ scalars) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n)
        return;
    const Vec<D> x = detail::load_position(sorted + i);
    bool bad;
    if (i >= *binned) {
        position[i] = x;
        bad = state_is_bad(unpack_particle(x, motion[i]), density_min, density_max);
    } else {
        const std::uint32_t from = permutation[i];
        PreviousState<D> previous;
        previous.position = previous_position[from];
        previous.velocity = previous_velocity[from];
        previous.density = previous_density[from];
        const IntegrationResult<D> r =
            correct_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, previous);
        position[i] = r.position;
        motion[i] = r.motion;
        bad = state_is_bad(r.state, density_min, density_max);
    }
    if (bad)
        atomicAdd(&scalars->bad_count, 1u);
}

/// Verlet step over bin order, plus the failure check. previous_*_in are in the last step's bin
/// order (read at permutation[i]); previous_*_out receive step n in this one.
template <int D>
__global__ void __launch_bounds__(block_size) verlet_kernel(
    const Vec<D>* __restrict__ sorted, Vec<D>* __restrict__ position, Float4* __restrict__ motion,
    const Float4* __restrict__ derivatives, const std::uint32_t* __restrict__ permutation,
    const Vec<D>* __restrict__ previous_velocity_in, const float* __restrict__ previous_density_in,
    Vec<D>* __restrict__ previous_velocity_out, float* __restrict__ previous_density_out,
    const std::uint32_t* __restrict__ binned, std::uint32_t n, bool euler, FluidConstants c,
    float density_min, float density_max, StepScalars* __restrict__ scalars) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n)
        return;
    const Vec<D> x = detail::load_position(sorted + i);
    bool bad;
    if (i >= *binned) {
        position[i] = x;
        bad = state_is_bad(unpack_particle(x, motion[i]), density_min, density_max);
    } else {
        const std::uint32_t from = permutation[i];
        PreviousState<D> previous;
        previous.velocity = previous_velocity_in[from];
        previous.density = previous_density_in[from];
        const IntegrationResult<D> r =
            verlet_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, euler, previous);
        position[i] = r.position;
        motion[i] = r.motion;
        previous_velocity_out[i] = previous.velocity;
        previous_density_out[i] = previous.density;
        bad = state_is_bad(r.state, density_min, density_max);
    }
    if (bad)
        atomicAdd(&scalars->bad_count, 1u);
}

__global__ void finish_step_kernel(const std::uint32_t* binned, StepScalars* scalars) {
    scalars->binned = *binned;
}

struct CountingVisitor {
    std::uint32_t count = 0;
    template <class VecT>
    __device__ void operator()(std::uint32_t, const VecT&, float) {
        ++count;
    }
};

/// Neighbour counts of a fresh build, scattered to particle ids: the particle at bin-order k
/// came from state index permutation[k], whose id is id[permutation[k]].
template <class QueryT, int D>
__global__ void count_neighbours_kernel(NeighbourView<D> view,
                                        const std::uint32_t* __restrict__ permutation,
                                        const std::uint32_t* __restrict__ id,
                                        std::uint32_t* __restrict__ counts_by_id) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    if (k >= view.size())
        return;
    CountingVisitor visitor;
    for_each_neighbour<QueryT>(view, detail::load_position(view.positions + k), visitor);
    counts_by_id[id[permutation[k]]] = visitor.count;
}

// ---------------------------------------------------------------------------------------------
// Asynchronous snapshots

/// Copy slots for begin_snapshot(): per slot a device staging copy of the state (taken on the
/// simulation's stream, so the step after it may overwrite the state) and pinned host arrays
/// that a side stream fills from it. Shared between the simulation and the pending futures, so
/// either may go first.
template <int D>
class SnapshotPool {
public:
    static constexpr int slot_count = 2;

    struct Slot {
        DeviceArray<Vec<D>> d_position;
        DeviceArray<Float4> d_motion;
        DeviceArray<std::uint32_t> d_id;
        PinnedArray<Vec<D>> h_position;
        PinnedArray<Float4> h_motion;
        PinnedArray<std::uint32_t> h_id;
        cudaEvent_t staged = nullptr, copied = nullptr;
        bool busy = false;
        double time = 0.0;
        std::uint64_t step = 0;
        std::uint32_t n = 0, binned = 0;
    };

    SnapshotPool(std::uint32_t n, const FluidConstants& c) : fluid_(c) {
        SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
        for (Slot& s : slots_) {
            s.d_position.allocate(n, account_);
            s.d_motion.allocate(n, account_);
            s.d_id.allocate(n, account_);
            s.h_position.allocate(n);
            s.h_motion.allocate(n);
            s.h_id.allocate(n);
            SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&s.staged, cudaEventDisableTiming));
            SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming));
        }
    }
    ~SnapshotPool() {
        cudaStreamSynchronize(side_);
        for (Slot& s : slots_) {
            cudaEventDestroy(s.staged);
            cudaEventDestroy(s.copied);
        }
        cudaStreamDestroy(side_);
    }
    SnapshotPool(const SnapshotPool&) = delete;
    SnapshotPool& operator=(const SnapshotPool&) = delete;

    /// Waits for a free slot and marks it busy.
    Slot& acquire() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            for (Slot& s : slots_)
                if (!s.busy) {
                    s.busy = true;
                    return s;
                }
            freed_.wait(lock);
        }
    }
    /// Waits for the slot's copy (so no transfer into it is in flight) and frees it.
    void release(Slot& s) noexcept {
        cudaEventSynchronize(s.copied);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            s.busy = false;
        }
        freed_.notify_all();
    }
    Snapshot convert(const Slot& s) const {
        SLUICE_CUDA_CHECK(cudaEventSynchronize(s.copied));
        return make_snapshot<D>(s.time, s.step, s.n, s.binned, s.h_position.get(), s.h_motion.get(),
                                s.h_id.get(), fluid_);
    }
    cudaStream_t side() const { return side_; }
    std::size_t device_bytes() const { return account_.bytes; }

private:
    FluidConstants fluid_;
    DeviceMemoryAccount account_;
    cudaStream_t side_ = nullptr;
    std::array<Slot, slot_count> slots_;
    std::mutex mutex_;
    std::condition_variable freed_;
};

/// One pending snapshot: holds its slot until taken or dropped.
template <int D>
class SnapshotLease {
public:
    SnapshotLease(std::shared_ptr<SnapshotPool<D>> pool, typename SnapshotPool<D>::Slot& slot)
        : pool_(std::move(pool)), slot_(&slot) {}
    ~SnapshotLease() {
        if (slot_)
            pool_->release(*slot_);
    }
    SnapshotLease(const SnapshotLease&) = delete;
    SnapshotLease& operator=(const SnapshotLease&) = delete;

    Snapshot take() {
        Snapshot s = pool_->convert(*slot_);
        pool_->release(*slot_);
        slot_ = nullptr;
        return s;
    }

private:
    std::shared_ptr<SnapshotPool<D>> pool_;
    typename SnapshotPool<D>::Slot* slot_;
};

// ---------------------------------------------------------------------------------------------
// The simulation

template <int D>
class CudaSimulation final : public GpuSimulation {
public:
    CudaSimulation(const Case& c, const ParticleSet& particles, const CudaOptions& options);
    ~CudaSimulation() override;
    CudaSimulation(const CudaSimulation&) = delete;
    CudaSimulation& operator=(const CudaSimulation&) = delete;

    void step() override;
    double time() const override { return time_; }
    std::uint64_t steps() const override { return steps_; }
    double last_dt() const override { return dt_; }
    ParticleCounts counts() const override;
    Snapshot snapshot() const override;
    std::future<Snapshot> begin_snapshot() override;
    StageTimes stage_times() const override;
    const DerivedConstants& constants() const override { return derived_; }
    std::string backend_name() const override { return "cuda"; }
    std::vector<Exclusion> take_exclusions() override;

    std::size_t device_bytes() const override;
    std::uint64_t device_allocations() const override {
        return account_.allocations + builder_.allocation_count();
    }
    std::vector<std::uint32_t> neighbour_counts() override;

    // Launches, dispatched by std::visit over (query, kernel) (public for the functors below).
    template <class QueryT, class KernelT>
    void launch_interaction(const KernelT& kernel);
    template <class QueryT>
    void launch_count(std::uint32_t* d_counts_by_id);

private:
    enum Stage { construction, reorder, interaction, integration, checks, stage_count };

    /// Build on the state's positions, gather motion and id into the new order.
    void rebuild();
    void interact();
    void mark(Stage finished);
    const std::uint32_t* d_binned() const { return view_.pbm + grid_.bin_count(); }
    void record_exclusions();
    [[noreturn]] void fail(std::uint32_t device_bad_count);

    // configuration
    DerivedConstants derived_;
    FluidConstants fluid_;
    KernelVariant<D> kernel_;
    QueryTag query_;
    IntegratorKind integrator_;
    int verlet_reset_;
    double cfl_;
    float density_min_, density_max_;
    GridSpec<D> grid_;
    float radius_;
    CudaOptions options_;
    std::uint32_t n_;
    std::uint32_t boundary_count_;
    bool trace_ = std::getenv("SLUICE_CUDA_TRACE") != nullptr;

    cudaStream_t stream_ = nullptr;
    DeviceMemoryAccount account_;
    CudaNeighbourBuilder<D> builder_;
    NeighbourView<D> view_{};

    // state, in the bin order of the last build (positions: what the integration wrote)
    DeviceArray<Vec<D>> position_;
    DeviceArray<Float4> motion_[2];
    DeviceArray<std::uint32_t> id_[2];
    int current_ = 0; ///< which of motion_/id_ holds the state
    DeviceArray<Float4> derivatives_;
    DeviceArray<Vec<D>> previous_position_;    ///< symplectic: state n, predictor's bin order
    DeviceArray<Vec<D>> previous_velocity_[2]; ///< [1]: Verlet's second buffer
    DeviceArray<float> previous_density_[2];
    int previous_current_ = 0;
    DeviceArray<StepScalars> scalars_;
    PinnedArray<StepScalars> host_scalars_;

    // stage timing: events[k] ends the interval of stage event_stage_[k]
    static constexpr int max_events = 12;
    std::array<cudaEvent_t, max_events> events_{};
    std::array<Stage, max_events> event_stage_{};
    int event_count_ = 0;
    double stage_seconds_[stage_count] = {};

    std::shared_ptr<SnapshotPool<D>> snapshots_;

    double time_ = 0.0, dt_ = 0.0;
    std::uint64_t steps_ = 0;
    std::uint32_t binned_;
    std::uint32_t recorded_exclusions_ = 0; ///< particles excluded at the last record_exclusions
    ExclusionLog exclusions_;
};

template <int D>
CudaSimulation<D>::CudaSimulation(const Case& c, const ParticleSet& particles,
                                  const CudaOptions& options)
    : derived_(particles.constants), fluid_(make_fluid_constants(c, derived_)),
      kernel_(make_kernel<D>(c.physics.kernel, derived_.h)), query_(c.neighbours.query),
      integrator_(c.physics.integrator), verlet_reset_(c.physics.verlet_reset_steps),
      cfl_(c.constants.cfl),
      density_min_(static_cast<float>(c.physics.density_min_ratio * c.constants.rho0)),
      density_max_(static_cast<float>(c.physics.density_max_ratio * c.constants.rho0)),
      grid_(make_grid<D>(to_vec<D>(c.domain.min), to_vec<D>(c.domain.max),
                         static_cast<float>(derived_.support), c.neighbours.bin_width)),
      radius_(static_cast<float>(derived_.support)), options_(options),
      n_(static_cast<std::uint32_t>(particles.size())),
      boundary_count_(static_cast<std::uint32_t>(particles.boundary_count)),
      builder_(c.neighbours.construction), binned_(n_) {
    // The domain must hold every particle at t = 0 (the CPU backend's rule and message).
    std::vector<Vec<D>> position(n_);
    std::vector<Float4> motion(n_);
    std::uint32_t outside = 0, first_outside = 0;
    for (std::uint32_t i = 0; i < n_; ++i) {
        const Vec<D> x = to_vec<D>(particles.position[i]);
        if (!grid_.contains(x) && outside++ == 0)
            first_outside = i;
        pack_particle<D>(fluid_, x, Vec<D>{}, particles.density[i], particles.type[i], position[i],
                         motion[i]);
    }
    if (outside) {
        std::ostringstream msg;
        msg << outside << " particle(s) lie outside the domain at t = 0, e.g. id " << first_outside
            << " at " << describe(to_vec<D>(particles.position[first_outside]))
            << " m; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }

    if (trace_)
        std::fprintf(stderr, "[sluice cuda] %u particles, %u bins: allocating\n", n_,
                     grid_.bin_count());
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_)
        SLUICE_CUDA_CHECK(cudaEventCreate(&e));
    // Everything a step touches is allocated here.
    builder_.reserve(n_, grid_.bin_count());
    position_.allocate(n_, account_);
    for (int b = 0; b < 2; ++b) {
        motion_[b].allocate(n_, account_);
        id_[b].allocate(n_, account_);
    }
    derivatives_.allocate(n_, account_);
    const bool symplectic = integrator_ == IntegratorKind::symplectic;
    if (symplectic)
        previous_position_.allocate(n_, account_);
    for (int b = 0; b < (symplectic ? 1 : 2); ++b) {
        previous_velocity_[b].allocate(n_, account_);
        previous_density_[b].allocate(n_, account_);
    }
    scalars_.allocate(1, account_);
    host_scalars_.allocate(1);

    std::vector<std::uint32_t> id(n_);
    std::iota(id.begin(), id.end(), 0u);
    upload(position_.get(), position, stream_);
    upload(motion_[0].get(), motion, stream_);
    upload(id_[0].get(), id, stream_);
    if (!symplectic) { // Verlet's step n−1 at t = 0: the initial state
        upload(previous_velocity_[0].get(), std::vector<Vec<D>>(n_), stream_);
        upload(previous_density_[0].get(), particles.density, stream_);
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    exclusions_ = ExclusionLog(n_);
    if (trace_)
        std::fprintf(stderr, "[sluice cuda] set up\n");
}

template <int D>
CudaSimulation<D>::~CudaSimulation() {
    // Pending work reads the arrays freed below; nothing sensible to do on failure here.
    cudaStreamSynchronize(stream_);
    for (cudaEvent_t e : events_)
        if (e)
            cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
}

template <int D>
void CudaSimulation<D>::mark(Stage finished) {
    if (trace_) {
        // Debugging aid (SLUICE_CUDA_TRACE set): wait for each stage and say so on stderr.
        static const char* const names[] = {"construction", "reorder", "interaction", "integration",
                                            "checks"};
        std::fprintf(stderr, "[sluice cuda] step %llu: %s enqueued\n",
                     static_cast<unsigned long long>(steps_ + 1), names[finished]);
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::fprintf(stderr, "[sluice cuda] step %llu: %s done\n",
                     static_cast<unsigned long long>(steps_ + 1), names[finished]);
    }
    if (!options_.stage_timing)
        return;
    SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_], stream_));
    event_stage_[event_count_] = finished;
    ++event_count_;
}

template <int D>
void CudaSimulation<D>::rebuild() {
    view_ = builder_.build(position_.get(), n_, grid_, radius_, OutsidePolicy::exclude, stream_);
    mark(construction);
    const int next = 1 - current_;
    gather(stream_, builder_.d_permutation(), n_,
           GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
           GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()});
    current_ = next;
    mark(reorder);
}

/// std::visit functors (named structs: nvcc and generic lambdas in templates do not mix well).
template <int D>
struct LaunchInteraction {
    CudaSimulation<D>* simulation;
    template <class QueryT, class KernelT>
    void operator()(QueryT, const KernelT& kernel) const {
        simulation->template launch_interaction<QueryT>(kernel);
    }
};

template <int D>
struct LaunchCount {
    CudaSimulation<D>* simulation;
    std::uint32_t* d_counts;
    template <class QueryT>
    void operator()(QueryT) const {
        simulation->template launch_count<QueryT>(d_counts);
    }
};

template <int D>
template <class QueryT, class KernelT>
void CudaSimulation<D>::launch_interaction(const KernelT& kernel) {
    const PackedParticlesView<D> particles{view_.positions, motion_[current_].get()};
    const unsigned blocks = blocks_for(n_, interaction_block);
    if (options_.interaction == CudaInteraction::direct) {
        interaction_kernel<QueryT, D, KernelT, 0><<<blocks, interaction_block, 0, stream_>>>(
            view_, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get());
    } else {
        constexpr int capacity = queue_capacity<D>;
        constexpr std::size_t shared = sizeof(std::uint32_t) * capacity * interaction_block;
        auto* function = &interaction_kernel<QueryT, D, KernelT, capacity>;
        // Above 48 KB of shared memory (queue + CUB's storage) a kernel must opt in; once per
        // instantiation.
        static const bool configured = [function] {
            SLUICE_CUDA_CHECK(cudaFuncSetAttribute(
                function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
            return true;
        }();
        (void)configured;
        function<<<blocks, interaction_block, shared, stream_>>>(
            view_, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get());
    }
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::interact() {
    std::visit(LaunchInteraction<D>{this}, query_, kernel_);
    mark(interaction);
}

template <int D>
void CudaSimulation<D>::step() {
    if (options_.stage_timing) {
        event_count_ = 0;
        SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_++], stream_));
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    const unsigned blocks = blocks_for(n_, block_size);
    if (integrator_ == IntegratorKind::symplectic) {
        // Predictor with the derivatives of state n, then a corrector with those of n+½; the
        // positions change in between, so the neighbour structure is rebuilt twice.
        rebuild();
        interact();
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        predict_kernel<D><<<blocks, block_size, 0, stream_>>>(
            view_.positions, position_.get(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(),
            d_binned(), n_, fluid_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        mark(integration);
        rebuild();
        interact();
        correct_kernel<D><<<blocks, block_size, 0, stream_>>>(
            view_.positions, position_.get(), motion_[current_].get(), derivatives_.get(),
            builder_.d_permutation(), previous_position_.get(), previous_velocity_[0].get(),
            previous_density_[0].get(), d_binned(), n_, fluid_, density_min_, density_max_,
            scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        mark(integration);
    } else {
        rebuild();
        interact();
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const bool euler = steps_ % static_cast<std::uint64_t>(verlet_reset_) == 0;
        const int in = previous_current_, out = 1 - previous_current_;
        verlet_kernel<D><<<blocks, block_size, 0, stream_>>>(
            view_.positions, position_.get(), motion_[current_].get(), derivatives_.get(),
            builder_.d_permutation(), previous_velocity_[in].get(), previous_density_[in].get(),
            previous_velocity_[out].get(), previous_density_[out].get(), d_binned(), n_, euler,
            fluid_, density_min_, density_max_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        previous_current_ = out;
        mark(integration);
    }
    finish_step_kernel<<<1, 1, 0, stream_>>>(d_binned(), scalars_.get());
    SLUICE_CUDA_CHECK_LAUNCH();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_scalars_.get(), scalars_.get(), sizeof(StepScalars),
                                      cudaMemcpyDeviceToHost, stream_));
    mark(checks);
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));

    for (int k = 1; k < event_count_; ++k) {
        float ms = 0.0f;
        SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
        stage_seconds_[event_stage_[k]] += 1e-3 * ms;
    }
    const StepScalars s = *host_scalars_.get();
    dt_ = s.dt;
    time_ += dt_;
    ++steps_;
    binned_ = s.binned;
    if (s.bad_count)
        fail(s.bad_count);
    record_exclusions();
}

template <int D>
void CudaSimulation<D>::fail(std::uint32_t device_bad_count) {
    // The rare path: the whole state comes to the host and the message is made as the CPU
    // backend makes it (offenders by ascending id, at most 5).
    const std::vector<Vec<D>> position = download(position_.get(), n_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> id = download(id_[current_].get(), n_, stream_);
    std::vector<Offender<D>> offenders;
    for (std::uint32_t k = 0; k < n_; ++k) {
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        if (state_is_bad(p, density_min_, density_max_))
            offenders.push_back({id[k], p.type, p.density, p.position, p.velocity});
    }
    const std::size_t bad_count = offenders.empty() ? device_bad_count : offenders.size();
    throw SimulationFailure(
        failure_message(steps_, time_, bad_count, density_min_, density_max_, offenders));
}

template <int D>
void CudaSimulation<D>::record_exclusions() {
    // Excluded particles stay excluded (sorted after the binned ones), so there are new ones
    // only when the excluded count grew: otherwise nothing crosses to the host.
    if (n_ - binned_ == recorded_exclusions_)
        return;
    recorded_exclusions_ = n_ - binned_;
    const std::uint32_t tail = n_ - binned_;
    std::vector<std::uint32_t> id(tail);
    std::vector<Vec<D>> position(tail);
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(id.data(), id_[current_].get() + binned_,
                                      tail * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                      stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(position.data(), position_.get() + binned_,
                                      tail * sizeof(Vec<D>), cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    exclusions_.record(
        tail, id.data(), [&](std::uint32_t k) { return to_array3(plain_position(position[k])); },
        steps_, time_);
}

template <int D>
std::vector<Exclusion> CudaSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CudaSimulation<D>::counts() const {
    ParticleCounts counts;
    counts.boundary = boundary_count_;
    counts.fluid = binned_ - boundary_count_; // boundary particles never leave the domain
    counts.excluded = n_ - binned_;
    return counts;
}

template <int D>
Snapshot CudaSimulation<D>::snapshot() const {
    const std::vector<Vec<D>> position = download(position_.get(), binned_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), binned_, stream_);
    const std::vector<std::uint32_t> id = download(id_[current_].get(), binned_, stream_);
    return make_snapshot<D>(time_, steps_, n_, binned_, position.data(), motion.data(), id.data(),
                            fluid_);
}

template <int D>
std::future<Snapshot> CudaSimulation<D>::begin_snapshot() {
    if (!snapshots_)
        snapshots_ = std::make_shared<SnapshotPool<D>>(n_, fluid_);
    typename SnapshotPool<D>::Slot& slot = snapshots_->acquire();
    auto lease = std::make_shared<SnapshotLease<D>>(snapshots_, slot);
    slot.time = time_;
    slot.step = steps_;
    slot.n = n_;
    slot.binned = binned_;
    // Staging copy on the simulation's stream (ordered before the next step's writes), then the
    // transfer to pinned memory on the side stream while the simulation carries on.
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_position.get(), position_.get(),
                                      binned_ * sizeof(Vec<D>), cudaMemcpyDeviceToDevice, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_motion.get(), motion_[current_].get(),
                                      binned_ * sizeof(Float4), cudaMemcpyDeviceToDevice, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_id.get(), id_[current_].get(),
                                      binned_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                      stream_));
    SLUICE_CUDA_CHECK(cudaEventRecord(slot.staged, stream_));
    const cudaStream_t side = snapshots_->side();
    SLUICE_CUDA_CHECK(cudaStreamWaitEvent(side, slot.staged, 0));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.h_position.get(), slot.d_position.get(),
                                      binned_ * sizeof(Vec<D>), cudaMemcpyDeviceToHost, side));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.h_motion.get(), slot.d_motion.get(),
                                      binned_ * sizeof(Float4), cudaMemcpyDeviceToHost, side));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.h_id.get(), slot.d_id.get(),
                                      binned_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                      side));
    SLUICE_CUDA_CHECK(cudaEventRecord(slot.copied, side));
    return std::async(std::launch::deferred, [lease] { return lease->take(); });
}

template <int D>
StageTimes CudaSimulation<D>::stage_times() const {
    return {{"construction", stage_seconds_[construction]},
            {"reorder", stage_seconds_[reorder]},
            {"interaction", stage_seconds_[interaction]},
            {"integration", stage_seconds_[integration]},
            {"checks", stage_seconds_[checks]}};
}

template <int D>
std::size_t CudaSimulation<D>::device_bytes() const {
    return account_.bytes + builder_.device_bytes() + (snapshots_ ? snapshots_->device_bytes() : 0);
}

template <int D>
template <class QueryT>
void CudaSimulation<D>::launch_count(std::uint32_t* d_counts_by_id) {
    if (n_ == 0)
        return;
    count_neighbours_kernel<QueryT, D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        view_, builder_.d_permutation(), id_[current_].get(), d_counts_by_id);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
std::vector<std::uint32_t> CudaSimulation<D>::neighbour_counts() {
    DeviceMemoryAccount scratch;
    DeviceArray<std::uint32_t> counts;
    counts.allocate(n_, scratch);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, n_ * sizeof(std::uint32_t), stream_));
    // A fresh build of the current positions; the state arrays are not reordered (the next
    // step builds again from them).
    view_ = builder_.build(position_.get(), n_, grid_, radius_, OutsidePolicy::exclude, stream_);
    std::visit(LaunchCount<D>{this, counts.get()}, query_);
    return download(counts.get(), n_, stream_);
}

void require_device() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device/driver" error
        throw BackendUnavailable(std::string("the CUDA backend is not available: no usable CUDA "
                                             "device (") +
                                 cudaGetErrorString(status) + "); use --backend cpu");
    }
    if (count == 0)
        throw BackendUnavailable(
            "the CUDA backend is not available: no CUDA device found; use --backend cpu");
}

} // namespace

bool cuda_device_available() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return count > 0;
}

std::string cuda_device_name() {
    if (!cuda_device_available())
        return "";
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return properties.name;
}

CudaMemoryInfo cuda_memory_info() {
    CudaMemoryInfo info;
    if (!cuda_device_available())
        return info;
    if (cudaMemGetInfo(&info.free, &info.total) != cudaSuccess) {
        cudaGetLastError();
        return {};
    }
    return info;
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const ParticleSet& particles,
                                                    const CudaOptions& options) {
    require_device();
    if (c.dimension == 2)
        return std::make_unique<CudaSimulation<2>>(c, particles, options);
    return std::make_unique<CudaSimulation<3>>(c, particles, options);
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const CudaOptions& options) {
    require_device(); // before the (possibly long) particle generation
    return make_cuda_simulation(c, generate_particles(c), options);
}

} // namespace sluice
