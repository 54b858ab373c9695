// The Motion and Damping passes of the CUDA backend (step_plan.h): the objects' states from the
// step's time, evaluated on the device (the host knows t_n, the device dt: nothing is read back),
// the moving walls placed where their motion has them, and the damping zones
// (motion_kernels.cuh); the set-up of the motion tables.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/motion_kernels.cuh"
#include "case/body_table.h"
#include "case/motion_table.h"
#include "neighbours/cuda_check.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace sluice::gpu {

template <int D>
void CudaSimulation<D>::prepare_motion(const Case& c, const SimulationState& state) {
    motion_tables_ = run_motion_tables(c);
    std::vector<ObjectIds> objects;
    const std::vector<Eigen::Vector3d> reference = boundary_positions(c, &objects);
    h_walls_ = moving_wall_tables<D>(motion_tables_, reference, objects);
    // The states now (t = 0, or a restart's time): pack_state places the walls with them; a
    // floating body's from its (initial or saved) state.
    h_object_motion_.clear();
    for (std::uint32_t k = 0; k < motion_tables_.objects(); ++k)
        h_object_motion_.push_back(to_float(object_state(motion_tables_, k, time_)));
    if (plan_.floating) {
        body_tables_ = make_body_tables(c, reference, objects);
        h_body_states_ = starting_body_states(body_tables_, state);
        for (std::size_t b = 0; b < h_body_states_.size(); ++b) {
            const RigidBodyData& body = body_tables_.bodies[b];
            h_object_motion_[body.object] = to_float(body_rigid_state(body, h_body_states_[b]));
        }
    }
}

template <int D>
void CudaSimulation<D>::upload_motion() {
    const MotionTables& t = motion_tables_;
    // Arrays of at least one element: a kernel never reads an empty one, but views want a
    // pointer.
    const auto put = [&](auto& device, const auto& host) {
        device.allocate(std::max<std::size_t>(host.size(), 1), account_);
        upload(device.get(), host, stream_);
    };
    put(motion_segments_, t.segments);
    put(motion_sines_, t.sines);
    put(motion_samples_, t.samples);
    put(motion_object_first_, t.object_first);
    put(wall_object_, h_walls_.object);
    put(wall_reference_, h_walls_.reference);
    put(object_motion_, h_object_motion_);
    wall_ids_ = static_cast<std::uint32_t>(h_walls_.object.size());
    double fastest = 0.0;
    for (std::uint32_t k = 0; k < t.objects(); ++k)
        if (!t.floats[k])
            fastest = std::max(fastest, object_state(t, k, time_).speed_bound);
    // Kept until the synchronisation below (the copies read them).
    const std::vector<BodyLoads> loads(body_tables_.bodies.size());
    const std::vector<double> sums(body_particle_sums * body_tables_.bodies.size(), 0.0);
    const std::vector<std::uint8_t> floats(t.floats.begin(), t.floats.end());
    if (plan_.floating) {
        const BodyTables& b = body_tables_;
        put(d_bodies_, b.bodies);
        put(d_body_states_, h_body_states_);
        put(d_body_loads_, loads);
        put(d_springs_, b.springs);
        put(d_body_contact_, b.contact);
        put(d_body_sums_, sums);
        put(d_object_floats_, floats);
        put(d_body_buried_, b.buried);
        body_member_capacity_ = 0; // the bodies' particles that are not buried
        for (const RigidBodyData& body : b.bodies)
            for (std::uint32_t id = body.first_id; id < body.first_id + body.id_count; ++id)
                body_member_capacity_ += b.buried[id] == 0 ? 1u : 0u;
        d_body_members_.allocate(std::max<std::uint32_t>(body_member_capacity_, 1), account_);
        d_body_member_count_.allocate(1, account_);
        int device = 0;
        SLUICE_CUDA_CHECK(cudaGetDevice(&device));
        SLUICE_CUDA_CHECK(
            cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
        for (std::size_t k = 0; k < b.bodies.size(); ++k)
            fastest =
                std::max(fastest, body_rigid_state(b.bodies[k], h_body_states_[k]).speed_bound);
    }
    const std::vector<float> speed = {static_cast<float>(fastest)};
    put(wall_speed_, speed);
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <int D>
MotionTablesView CudaSimulation<D>::motion_view() const {
    MotionTablesView v;
    v.segments = motion_segments_.get();
    v.sines = motion_sines_.get();
    v.samples = motion_samples_.get();
    v.object_first = motion_object_first_.get();
    v.objects = motion_tables_.objects();
    return v;
}

template <int D>
MovingWallsView<D> CudaSimulation<D>::walls_view() const {
    MovingWallsView<D> v;
    if (!plan_.moving_walls)
        return v;
    v.object = wall_object_.get();
    v.reference = wall_reference_.get();
    v.states = object_motion_.get();
    v.ids = wall_ids_;
    return v;
}

template <int D>
FloatingBodiesView CudaSimulation<D>::floating_view() {
    FloatingBodiesView v;
    if (!plan_.floating)
        return v;
    v.bodies = d_bodies_.get();
    v.states = d_body_states_.get();
    v.loads = d_body_loads_.get();
    v.springs = d_springs_.get();
    v.sums = d_body_sums_.get();
    v.floats = d_object_floats_.get();
    v.count = static_cast<std::uint32_t>(body_tables_.bodies.size());
    v.spring_count = static_cast<std::uint32_t>(body_tables_.springs.size());
    return v;
}

template <int D>
void CudaSimulation<D>::move_walls(IntegrationStage stage) {
    // Several GPUs (the halo check) and the corrector's lists take the walls' speed too.
    std::uint32_t* speed = (comm_ || lists_) ? &scalars_.get()->speed_max_bits : nullptr;
    const BodyStage body_stage = stage == IntegrationStage::predict   ? BodyStage::predict
                                 : stage == IntegrationStage::correct ? BodyStage::correct
                                 : plan_.verlet_resets(steps_)        ? BodyStage::verlet_euler
                                                                      : BodyStage::verlet;
    object_states_kernel<<<1, 32, 0, stream_>>>(
        motion_view(), floating_view(), body_stage, time_,
        stage == IntegrationStage::predict ? 0.5 : 1.0, scalars_.get(), object_motion_.get(),
        wall_speed_.get(), stage == IntegrationStage::predict ? nullptr : speed);
    SLUICE_CUDA_CHECK_LAUNCH();
    // The skins (reused structure, dry walls' travel) as the integration kernels take them.
    const bool reused = reuse_for_corrector();
    const bool skins = plan_.symplectic() && (reused || tracks_travel());
    float* skin = nullptr;
    const Vec<D>* previous = nullptr;
    BuildOrder<D> order = build_order();
    if (skins && stage == IntegrationStage::predict) {
        skin = &scalars_.get()->predictor_skin;
    } else if (skins && stage == IntegrationStage::correct) {
        skin = &scalars_.get()->step_skin;
        order = build_order(reused);
        previous = previous_position_.get();
    }
    move_walls_kernel<D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        positions(), motion_[current_].get(), id_[current_].get(), walls_view(), n_,
        !plan_.modified_walls(), order, previous, skin);
    SLUICE_CUDA_CHECK_LAUNCH();
    mark(motion);
}

template <int D>
void CudaSimulation<D>::damp() {
    damping_kernel<D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        positions(), motion_[current_].get(), build_order(reuse_for_corrector()), n_,
        damping_zones_.get(), static_cast<std::uint32_t>(plan_.damping.size()), scalars_.get(),
        d_tags());
    SLUICE_CUDA_CHECK_LAUNCH();
    mark(integration);
}

template void CudaSimulation<2>::prepare_motion(const Case&, const SimulationState&);
template FloatingBodiesView CudaSimulation<2>::floating_view();
template void CudaSimulation<2>::upload_motion();
template MotionTablesView CudaSimulation<2>::motion_view() const;
template MovingWallsView<2> CudaSimulation<2>::walls_view() const;
template void CudaSimulation<2>::move_walls(IntegrationStage);
template void CudaSimulation<2>::damp();
template void CudaSimulation<3>::prepare_motion(const Case&, const SimulationState&);
template FloatingBodiesView CudaSimulation<3>::floating_view();
template void CudaSimulation<3>::upload_motion();
template MotionTablesView CudaSimulation<3>::motion_view() const;
template MovingWallsView<3> CudaSimulation<3>::walls_view() const;
template void CudaSimulation<3>::move_walls(IntegrationStage);
template void CudaSimulation<3>::damp();

} // namespace sluice::gpu
