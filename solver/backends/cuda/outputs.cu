// What a CudaSimulation hands out besides its step: snapshots (blocking and asynchronous, through
// snapshot_pool.cuh), saved states for checkpoints, gauge samples (a warp per query point and per
// wall sensor point, the front search without a host round trip; gauge_kernels.cuh), counts,
// exclusions and the diagnostics (neighbour counts of a fresh build, dry wall particles).

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "backends/cuda/gauge_kernels.cuh"
#include "case/ghost_offsets.h"
#include "neighbours/cuda_check.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

namespace sluice::gpu {

namespace {

/// The wall normals (io/snapshot.h) of snapshot `s` from ghost offsets by id; none without.
template <int D>
Snapshot with_normals(Snapshot s, const std::vector<Vec<D>>* offsets) {
    if (offsets)
        s.normal = wall_normals_of<D>(*offsets, s.id);
    return s;
}

} // namespace

template <int D>
Snapshot CudaSimulation<D>::snapshot() const {
    // The run's first snapshot shows mDBC's wall normals.
    const std::vector<Vec<D>>* offsets = steps_ == 0 ? h_ghost_offsets_.get() : nullptr;
    std::vector<Vec<D>> position = download(positions(), binned_, stream_);
    std::vector<Float4> motion = download(motion_[current_].get(), binned_, stream_);
    std::vector<std::uint32_t> id = download(id_[current_].get(), binned_, stream_);
    if (comm_) { // this process's own particles
        const std::vector<std::uint32_t> tags = download_tags(binned_);
        std::uint32_t kept = 0;
        for (std::uint32_t k = 0; k < binned_; ++k)
            if (!is_halo(tags[k])) {
                position[kept] = position[k];
                motion[kept] = motion[k];
                id[kept] = id[k];
                ++kept;
            }
        return with_normals<D>(
            make_snapshot<D>(time_, steps_, dt_, static_cast<std::uint32_t>(total_particles_), kept,
                             position.data(), motion.data(), id.data(), plan_.fluid),
            offsets);
    }
    return with_normals<D>(make_snapshot<D>(time_, steps_, dt_, n_, binned_, position.data(),
                                            motion.data(), id.data(), plan_.fluid),
                           offsets);
}

template <int D>
std::future<Snapshot> CudaSimulation<D>::begin_snapshot() {
    // Several GPUs: this process's piece (the halo copies are left out when it is taken), ids
    // up to the whole run's count.
    if (!snapshots_)
        snapshots_ = std::make_shared<SnapshotPool<D>>(capacity_, plan_.fluid, comm_ != nullptr);
    typename SnapshotPool<D>::Slot& slot = snapshots_->acquire();
    auto lease = std::make_shared<SlotLease<SnapshotPool<D>>>(snapshots_, slot);
    slot.time = time_;
    slot.dt = dt_;
    slot.step = steps_;
    slot.n = static_cast<std::uint32_t>(total_particles_);
    slot.binned = binned_;
    slot.tagged = comm_ != nullptr;
    // Staging copy on the simulation's stream (ordered before the next step's writes), then the
    // transfer to pinned memory on the side stream while the simulation carries on.
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_position.get(), positions(), binned_ * sizeof(Vec<D>),
                                      cudaMemcpyDeviceToDevice, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_motion.get(), motion_[current_].get(),
                                      binned_ * sizeof(Float4), cudaMemcpyDeviceToDevice, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_id.get(), id_[current_].get(),
                                      binned_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                      stream_));
    if (slot.tagged)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.d_tag.get(), tags_[current_].get(),
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
    if (slot.tagged)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.h_tag.get(), slot.d_tag.get(),
                                          binned_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                          side));
    SLUICE_CUDA_CHECK(cudaEventRecord(slot.copied, side));
    // The run's first snapshot shows mDBC's wall normals: filled from the ids after the copy.
    std::shared_ptr<const std::vector<Vec<D>>> offsets = steps_ == 0 ? h_ghost_offsets_ : nullptr;
    return std::async(std::launch::deferred,
                      [lease, offsets] { return with_normals<D>(lease->take(), offsets.get()); });
}

template <int D>
struct LaunchGauges {
    CudaSimulation<D>* simulation;
    std::uint32_t count;
    GaugeSums<D>* sums;
    cudaStream_t stream;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_gauges<QueryT>(view, kernel, count, sums, stream);
    }
};

template <int D>
struct LaunchWallSensors {
    CudaSimulation<D>* simulation;
    std::uint32_t count;
    WallSensorSums<D>* sums;
    cudaStream_t stream;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_wall_sensors<QueryT>(view, kernel, count, sums, stream);
    }
};

template <int D>
struct LaunchFront {
    CudaSimulation<D>* simulation;
    const GaugeRequest::Front* front;
    float distance;
    std::uint32_t* d_keys;
    cudaStream_t stream;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        simulation->template launch_front<QueryT>(view, *front, distance, d_keys, stream);
    }
};

template <int D>
struct LaunchBodyForces {
    CudaSimulation<D>* simulation;
    std::uint32_t count;
    cudaStream_t stream;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_body_forces<QueryT>(view, kernel, count, stream);
    }
};

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_body_forces(const ViewT& view, const KernelT& kernel,
                                           std::uint32_t count, cudaStream_t stream) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    SLUICE_CUDA_CHECK(cudaMemsetAsync(body_sums_.get(), 0, 6 * count * sizeof(double), stream));
    body_forces_kernel<QueryT><<<blocks_for(n_, block_size), block_size, 0, stream>>>(
        view, particles, kernel, plan_.fluid, n_, id_[current_].get(), d_tags(), bodies_.get(),
        count, walls_view(), body_sums_.get());
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_gauges(const ViewT& view, const KernelT& kernel, std::uint32_t count,
                                      GaugeSums<D>* sums, cudaStream_t stream) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    // A warp per point.
    point_sums_kernel<GaugeVisitor, QueryT, ViewT, KernelT>
        <<<blocks_for(32u * count, interaction_block), interaction_block, 0, stream>>>(
            view, particles, kernel, plan_.fluid, gauge_points_.get(), count, sums);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_wall_sensors(const ViewT& view, const KernelT& kernel,
                                            std::uint32_t count, WallSensorSums<D>* sums,
                                            cudaStream_t stream) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    point_sums_kernel<WallSensorVisitor, QueryT, ViewT, KernelT>
        <<<blocks_for(32u * count, interaction_block), interaction_block, 0, stream>>>(
            view, particles, kernel, plan_.fluid, wall_points_.get(), count, sums);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
template <class QueryT, class ViewT>
void CudaSimulation<D>::launch_front(const ViewT& view, const GaugeRequest::Front& f,
                                     float distance, std::uint32_t* d_keys, cudaStream_t stream) {
    // No host decision in between: the farthest fluid particle; then the neighbour test for
    // those within one distance of it, 16 distances, and every particle, each pass only if the
    // narrower ones found none (the front is almost always within the first: droplets ahead
    // of it are few). Keys: [0] farthest, [1..3] the passes.
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    const int axis = D == 2 ? (f.axis == 2 ? 1 : 0) : f.axis;
    const float sign = static_cast<float>(f.sign);
    const unsigned blocks = blocks_for(n_, block_size);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(d_keys, 0, front_keys * sizeof(std::uint32_t), stream));
    front_max_kernel<<<blocks, block_size, 0, stream>>>(view, particles, n_, axis, sign, d_keys);
    SLUICE_CUDA_CHECK_LAUNCH();
    const float windows[3] = {distance, 16.0f * distance, -1.0f};
    for (int pass = 0; pass < 3; ++pass) {
        front_test_kernel<QueryT><<<blocks, block_size, 0, stream>>>(
            view, particles, n_, axis, sign, windows[pass], distance * distance, d_keys, d_keys + 1,
            pass, d_keys + 1 + pass);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
}

template <int D>
std::future<GaugeResponse> CudaSimulation<D>::begin_gauges(const GaugeRequest& request) {
    if (!comm_)
        return begin_local_gauges(request);
    std::promise<GaugeResponse> ready; // several GPUs: collective, at once
    ready.set_value(sample_gauges(request));
    return ready.get_future();
}

template <int D>
void CudaSimulation<D>::prepare_view_for_sampling() {
    if (view_ready_)
        return;
    // t = 0 or a restart: no build yet that the state is ordered by. rebuild() gathers motion and
    // id into the new order; the positions follow here (in a step the integration writes them in
    // that order from the sorted copy). An index layout keeps the state's order: nothing moves.
    rebuild();
    if (plan_.layout == Layout::reorder)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(positions(), view_positions(), n_ * sizeof(Vec<D>),
                                          cudaMemcpyDeviceToDevice, stream_));
}

template <int D>
std::future<GaugeResponse> CudaSimulation<D>::begin_local_gauges(const GaugeRequest& request) {
    prepare_view_for_sampling();
    // Kept lists: the sample goes on gauge_stream_, after what stream_ holds now and beside the
    // next step's passes that only read (fence_gauge_reads). Its walk's skin is then the lists'
    // move (list_moved_, integrate()), which only a build and the Checks pass write, not the
    // step's scalars, which the next step clears first.
    const bool beside = keep_lists_;
    const cudaStream_t sample = beside ? gauge_stream_ : stream_;
    if (beside) {
        SLUICE_CUDA_CHECK(cudaEventRecord(state_ready_, stream_));
        SLUICE_CUDA_CHECK(cudaStreamWaitEvent(gauge_stream_, state_ready_, 0));
    }
    const std::uint32_t count = static_cast<std::uint32_t>(request.points.size());
    const std::size_t fronts = request.fronts.size();
    if (!gauge_results_)
        gauge_results_ = std::make_shared<GaugeResultPool<D>>();
    if (count > gauge_capacity_) { // grown on demand, never in a step
        gauge_points_.allocate(count, account_);
        gauge_capacity_ = count;
        uploaded_gauge_points_.clear();
    }
    if (fronts > front_capacity_ || !front_keys_) {
        front_keys_.allocate(front_keys * std::max<std::size_t>(fronts, 1), account_);
        front_capacity_ = fronts;
    }
    // The points rarely change (a run samples the same gauges): upload only new ones.
    if (count > 0 && request.points != uploaded_gauge_points_) {
        std::vector<Vec<D>> points(count);
        for (std::uint32_t k = 0; k < count; ++k)
            points[k] = from_array3<D>(request.points[k]);
        upload(gauge_points_.get(), points, sample);
        uploaded_gauge_points_ = request.points;
    }
    const std::uint32_t walls = static_cast<std::uint32_t>(request.wall_points.size());
    if (walls > wall_capacity_) {
        wall_points_.allocate(walls, account_);
        wall_capacity_ = walls;
        uploaded_wall_points_.clear();
    }
    // Wall points: the row's, then between rows a prefix of them (the averaged sensors').
    const bool uploaded = walls <= uploaded_wall_points_.size() &&
                          std::equal(request.wall_points.begin(), request.wall_points.end(),
                                     uploaded_wall_points_.begin());
    if (walls > 0 && !uploaded) {
        std::vector<Vec<D>> points(walls);
        for (std::uint32_t k = 0; k < walls; ++k)
            points[k] = from_array3<D>(request.wall_points[k]);
        upload(wall_points_.get(), points, sample);
        uploaded_wall_points_ = request.wall_points;
    }
    const std::uint32_t bodies = static_cast<std::uint32_t>(request.bodies.size());
    if (bodies > body_capacity_) {
        bodies_.allocate(bodies, account_);
        body_sums_.allocate(6u * bodies, account_);
        body_capacity_ = bodies;
        uploaded_bodies_.clear();
    }
    const auto same_body = [](const GaugeRequest::Body& a, const GaugeRequest::Body& b) {
        return a.first_id == b.first_id && a.id_count == b.id_count && a.object == b.object &&
               a.moment_point == b.moment_point;
    };
    if (bodies > 0 && !std::equal(request.bodies.begin(), request.bodies.end(),
                                  uploaded_bodies_.begin(), uploaded_bodies_.end(), same_body)) {
        std::vector<DeviceBody<D>> b(bodies);
        for (std::uint32_t k = 0; k < bodies; ++k) {
            const GaugeRequest::Body& r = request.bodies[k];
            b[k] = {r.first_id, r.id_count, r.object, from_array3<D>(r.moment_point)};
        }
        upload(bodies_.get(), b, sample);
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(sample)); // b is pageable and goes now
        uploaded_bodies_ = request.bodies;
    }
    const std::uint32_t floating =
        request.floating ? static_cast<std::uint32_t>(body_tables_.bodies.size()) : 0u;
    auto& slot = gauge_results_->acquire(count, walls, fronts, bodies, floating);
    auto lease = std::make_shared<SlotLease<GaugeResultPool<D>>>(gauge_results_, slot);
    slot.points = count;
    slot.wall_points = walls;
    slot.fronts = request.fronts;
    SLUICE_CUDA_CHECK(cudaEventRecord(slot.begun, sample));
    if (count > 0) // straight into the slot's mapped host memory
        dispatch_neighbour_query<D>(
            plan_.query, view_,
            with_kernel(LaunchGauges<D>{this, count, slot.sums.device_pointer(), sample},
                        plan_.kernel));
    if (walls > 0)
        dispatch_neighbour_query<D>(
            plan_.query, view_,
            with_kernel(LaunchWallSensors<D>{this, walls, slot.wall.device_pointer(), sample},
                        plan_.kernel));
    for (std::size_t f = 0; f < fronts; ++f)
        dispatch_neighbour_query<D>(plan_.query, view_,
                                    LaunchFront<D>{this, &request.fronts[f],
                                                   request.front_neighbour_distance,
                                                   front_keys_.get() + front_keys * f, sample});
    if (fronts > 0)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.keys.get(), front_keys_.get(),
                                          front_keys * fronts * sizeof(std::uint32_t),
                                          cudaMemcpyDeviceToHost, sample));
    if (bodies > 0) {
        dispatch_neighbour_query<D>(
            plan_.query, view_,
            with_kernel(LaunchBodyForces<D>{this, bodies, sample}, plan_.kernel));
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.forces.get(), body_sums_.get(),
                                          6 * bodies * sizeof(double), cudaMemcpyDeviceToHost,
                                          sample));
    }
    if (floating > 0) { // the states and loads of the last Motion pass
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.floating_states.get(), d_body_states_.get(),
                                          floating * sizeof(BodyState), cudaMemcpyDeviceToHost,
                                          sample));
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(slot.floating_loads.get(), d_body_loads_.get(),
                                          floating * sizeof(BodyLoads), cudaMemcpyDeviceToHost,
                                          sample));
    }
    SLUICE_CUDA_CHECK(cudaEventRecord(slot.done, sample));
    if (beside) {
        SLUICE_CUDA_CHECK(cudaEventRecord(gauge_reads_, gauge_stream_));
        gauge_reads_pending_ = true;
    } else {
        samples_fenced_ = gauge_results_->begun(); // in stream_'s order
    }
    // Deferred: the thread that calls get() waits for the copy and converts it.
    return std::async(std::launch::deferred, [lease] { return lease->take(); });
}

template <int D>
std::future<GaugeResponse> CudaSimulation<D>::step_and_sample(const GaugeRequest& request,
                                                              double before) {
    // Kept lists (one process): the sample runs on gauge_stream_ after the step and beside the
    // next one (begin_local_gauges), queued before the step is waited for. Only where the step
    // must end before `before`: dt ≤ cfl · h / c0 (time_step), rounded up here by far more
    // than the two ways of computing it differ.
    // Several GPUs: the sample refreshes the halo and combines the processes' parts first
    // (sample_gauges).
    if (!keep_lists_ || comm_ || !view_ready_ || !(time_ + 1.001 * dt_ceiling() < before))
        return Simulation::step_and_sample(request, before);
    enqueue_step(true);
    std::future<GaugeResponse> sample;
    std::exception_ptr failed;
    try {
        sample = begin_local_gauges(request);
    } catch (...) {
        failed = std::current_exception();
    }
    end_step(); // a failure of the step comes first
    if (failed)
        std::rethrow_exception(failed);
    if (!(time_ < before)) // not reached: the caller samples as the step's time requires
        return {};
    return sample;
}

template <int D>
GaugeResponse CudaSimulation<D>::sample_gauges(const GaugeRequest& request) {
    // The halo at the current state (and the reused view's skin; kept lists: the lists' move,
    // every GPU's already).
    if (comm_ && view_ready_)
        refresh_halo(reuse_for_corrector() && !keep_lists_ ? &scalars_.get()->step_skin : nullptr);
    std::future<GaugeResponse> sample = begin_local_gauges(request);
    fence_gauge_reads(); // stream_'s synchronisation then covers a sample beside it
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    gauge_results_->complete_pending(samples_fenced_);
    GaugeResponse out = sample.get();
    if (comm_) {
        combine_gauges(*comm_, slabs_, D, request, out);
        if (!out.forces.empty())
            comm_->sum(out.forces.front().data(), static_cast<int>(6 * out.forces.size()));
    }
    return out;
}

template <int D>
SimulationState CudaSimulation<D>::save_state() const {
    const std::vector<Vec<D>> position = download(positions(), n_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
    SimulationState s;
    s.dimension = D;
    s.time = time_;
    s.last_dt = dt_;
    s.steps = steps_;
    s.fluid_height = fluid_height_;
    const std::vector<std::uint32_t> id = download(id_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> tags = download_tags(n_);
    if (plan_.floating)
        s.body_states =
            saved_body_states(download(d_body_states_.get(), body_tables_.bodies.size(), stream_));
    const bool verlet = plan_.integrator == IntegratorKind::verlet;
    std::vector<Vec<D>> previous;
    std::vector<float> previous_density;
    if (verlet) {
        previous = download(previous_velocity_[previous_current_].get(), n_, stream_);
        previous_density = download(previous_density_[previous_current_].get(), n_, stream_);
    }
    for (std::uint32_t k = 0; k < n_; ++k) {
        if (is_halo(tags[k])) // several GPUs: its owner saves it
            continue;
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        s.id.push_back(id[k]);
        s.type.push_back(p.type);
        s.position.push_back(to_array3(p.position));
        s.velocity.push_back(to_array3(p.velocity));
        s.density.push_back(p.density);
        if (verlet) {
            s.previous_velocity.push_back(to_array3(previous[k]));
            s.previous_density.push_back(previous_density[k]);
        }
    }
    s.excluded = exclusions_.reported();
    return s;
}

template <int D>
std::vector<Exclusion> CudaSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CudaSimulation<D>::counts() const {
    ParticleCounts counts;
    if (comm_) { // this process's own particles
        const std::vector<std::uint32_t> tags = download_tags(n_);
        const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
        for (std::uint32_t k = 0; k < n_; ++k) {
            if (is_halo(tags[k]))
                continue;
            if (k >= binned_)
                ++counts.excluded;
            else if (decode_type(motion_signed_density<D>(motion[k])) == ParticleType::fluid)
                ++counts.fluid;
            else
                ++counts.boundary;
        }
        return counts;
    }
    counts.boundary = boundary_count_;
    counts.fluid = binned_ - boundary_count_; // boundary particles never leave the domain
    counts.excluded = n_ - binned_;
    return counts;
}

template <int D>
struct LaunchCount {
    CudaSimulation<D>* simulation;
    std::uint32_t* d_counts;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        simulation->template launch_count<QueryT>(view, d_counts);
    }
};

template <int D>
template <class QueryT, class ViewT>
void CudaSimulation<D>::launch_count(const ViewT& view, std::uint32_t* d_counts_by_id) {
    if (n_ == 0)
        return;
    count_neighbours_kernel<QueryT><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        view, n_, indexes_input_order<ViewT> ? nullptr : builder_.d_permutation(),
        id_[current_].get(), d_counts_by_id);
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
    build_view();
    view_ready_ = false; // this view is not the state's order: a gauge sample rebuilds
    build_next_ = true;  // nor is it the kept lists' build: the next step builds
    dispatch_neighbour_query<D>(plan_.query, view_, LaunchCount<D>{this, counts.get()});
    return download(counts.get(), n_, stream_);
}

template <int D>
std::uint32_t CudaSimulation<D>::dry_wall_count() const {
    if (!tracks_travel())
        return 0;
    const std::vector<float> until = download(dry_until_[current_].get(), n_, stream_);
    const std::vector<double> travel = download(travel_.get(), 1, stream_);
    return static_cast<std::uint32_t>(std::count_if(
        until.begin(), until.end(), [&](float u) { return static_cast<double>(u) > travel[0]; }));
}

template Snapshot CudaSimulation<2>::snapshot() const;
template std::future<Snapshot> CudaSimulation<2>::begin_snapshot();
template std::future<GaugeResponse> CudaSimulation<2>::begin_gauges(const GaugeRequest&);
template std::future<GaugeResponse> CudaSimulation<2>::step_and_sample(const GaugeRequest&, double);
template std::future<GaugeResponse> CudaSimulation<2>::begin_local_gauges(const GaugeRequest&);
template void CudaSimulation<2>::prepare_view_for_sampling();
template GaugeResponse CudaSimulation<2>::sample_gauges(const GaugeRequest&);
template SimulationState CudaSimulation<2>::save_state() const;
template std::vector<Exclusion> CudaSimulation<2>::take_exclusions();
template ParticleCounts CudaSimulation<2>::counts() const;
template std::vector<std::uint32_t> CudaSimulation<2>::neighbour_counts();
template std::uint32_t CudaSimulation<2>::dry_wall_count() const;
template Snapshot CudaSimulation<3>::snapshot() const;
template std::future<Snapshot> CudaSimulation<3>::begin_snapshot();
template std::future<GaugeResponse> CudaSimulation<3>::begin_gauges(const GaugeRequest&);
template std::future<GaugeResponse> CudaSimulation<3>::step_and_sample(const GaugeRequest&, double);
template std::future<GaugeResponse> CudaSimulation<3>::begin_local_gauges(const GaugeRequest&);
template void CudaSimulation<3>::prepare_view_for_sampling();
template GaugeResponse CudaSimulation<3>::sample_gauges(const GaugeRequest&);
template SimulationState CudaSimulation<3>::save_state() const;
template std::vector<Exclusion> CudaSimulation<3>::take_exclusions();
template ParticleCounts CudaSimulation<3>::counts() const;
template std::vector<std::uint32_t> CudaSimulation<3>::neighbour_counts();
template std::uint32_t CudaSimulation<3>::dry_wall_count() const;
} // namespace sluice::gpu
