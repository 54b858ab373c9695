// The TimeStep and Integration passes of the CUDA backend (step_plan.h): dt from the interaction
// pass's maxima on the device (nothing read back), and the symplectic predictor and corrector or
// the Verlet step over the last build's order (integration_kernels.cuh).

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/integration_kernels.cuh"
#include "neighbours/cuda_check.h"

namespace sluice::gpu {

template <int D>
void CudaSimulation<D>::time_step() {
    time_step_kernel<<<1, 1, 0, stream_>>>(plan_.fluid, plan_.cfl, scalars_.get(),
                                           plan_.moving_walls ? wall_speed_.get() : nullptr);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::integrate(IntegrationStage stage) {
    const unsigned blocks = blocks_for(n_, block_size);
    StepScalars* const scalars = scalars_.get();
    // The corrector reads the predictor's structure (reorder layout) or a new one; the largest
    // moves are the reused structure's skins and the dry walls' fluid travel.
    const bool reused = reuse_for_corrector();
    const bool skins = reused || tracks_travel();
    switch (stage) {
    case IntegrationStage::predict:
        predict_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(), n_,
            plan_.fluid, scalars, skins ? &scalars->predictor_skin : nullptr);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        break;
    case IntegrationStage::correct:
        correct_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(reused), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(),
            shift_velocity_.get(), n_, plan_.fluid, plan_.density_min, plan_.density_max, scalars,
            skins ? &scalars->step_skin : nullptr, d_tags(), comm_ || lists_);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        // Gauges after the step query the state through it; with kept lists the skin is the
        // lists' move, which the Checks pass sets to this one and which (unlike the scalars)
        // stays put while a sample runs beside the next step (begin_local_gauges).
        if (reused)
            reuse_view(keep_lists_ ? list_moved_.get() : &scalars->step_skin);
        break;
    case IntegrationStage::verlet: {
        const bool euler = plan_.verlet_resets(steps_);
        const int in = previous_current_, out = 1 - previous_current_;
        verlet_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_velocity_[in].get(), previous_density_[in].get(),
            previous_velocity_[out].get(), previous_density_[out].get(), shift_velocity_.get(), n_,
            euler, plan_.fluid, plan_.density_min, plan_.density_max, scalars, d_tags());
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        previous_current_ = out;
        break;
    }
    }
    mark(integration);
}

template void CudaSimulation<2>::time_step();
template void CudaSimulation<2>::integrate(IntegrationStage);
template void CudaSimulation<3>::time_step();
template void CudaSimulation<3>::integrate(IntegrationStage);
} // namespace sluice::gpu
