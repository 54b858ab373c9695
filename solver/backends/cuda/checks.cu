// The Checks pass of the CUDA backend (step_plan.h), the end of every step: the box of the
// particles for the next build, the reductions over every GPU, the step's one read-back of its
// scalars (dt, binned count, failures) and the host's part: the clock, the interaction scheme's
// adaptation, a failure's message (the whole state comes to the host only then), moves beyond
// what the halo or a build allows, and the exclusions of particles that left the domain.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/check_kernels.cuh"
#include "backends/cuda/cuda_simulation.cuh"
#include "neighbours/cuda_check.h"
#include "parallel/slab_start.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace sluice::gpu {

namespace {

float float_from_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// `grid` less one bin at each side of every axis that has more than two.
template <int D>
GridSpec<D> interior_grid(GridSpec<D> grid) {
    for (int a = 0; a < D; ++a)
        if (grid.dims[a] > 2) {
            grid.origin[a] += grid.bin_size;
            grid.dims[a] -= 2;
        }
    return grid;
}

} // namespace

template <int D>
void CudaSimulation<D>::finish_step() {
    if (n_ > 0) {
        bounding_box_kernel<D>
            <<<std::min(blocks_for(n_, block_size), box_blocks), block_size, 0, stream_>>>(
                positions(), n_, plan_.grid, interior_grid(plan_.grid), build_grid_,
                keep_lists_ ? d_binned() : nullptr, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    if (nccl_) {
        // One all-reduce (max) of everything the host decides on: the passes' maxima, the
        // skins and the lists' walks (every GPU plans the same next build), the largest speed,
        // the box, failures and escapes (nonzero anywhere: every process fails alike), and
        // whether any GPU has exclusions to report.
        mark(checks);
        newly_excluded_kernel<<<1, 1, 0, stream_>>>(d_binned(), n_, recorded_exclusions_,
                                                    scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        nccl_->max(&scalars_.get()->acceleration_max2_bits, step_scalar_reduced_words, stream_);
        mark(waiting);
    }
    finish_step_kernel<<<1, 1, 0, stream_>>>(
        d_binned(), scalars_.get(), tracks_travel() ? travel_.get() : nullptr,
        plan_.moving_walls ? 2.0f : 1.0f, keep_lists_ ? list_moved_.get() : nullptr);
    SLUICE_CUDA_CHECK_LAUNCH();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_scalars_.get(), scalars_.get(), sizeof(StepScalars),
                                      cudaMemcpyDeviceToHost, stream_));
    mark(checks);
}

template <int D>
void CudaSimulation<D>::complete_step() {
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (gauge_results_) // the samples stream_ waited for are done too
        gauge_results_->complete_pending(samples_fenced_);

    double interaction_seconds = 0.0;
    for (int k = 1; k < event_count_; ++k) {
        float ms = 0.0f;
        SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
        stage_seconds_[event_stage_[k]] += 1e-3 * ms;
        if (event_stage_[k] == interaction)
            interaction_seconds += 1e-3 * ms;
    }
    const StepScalars s = *host_scalars_.get();
    dt_ = s.dt;
    time_ += dt_;
    ++steps_;
    if (in_step_now_)
        ++in_step_steps_;
    if (lists_) {
        if (keep_lists_ ? s.lists_walked == 0 : s.dt_float <= list_dt_bound_) // as the passes
            ++corrector_list_steps_;                                          // decided
        list_speed_max_ = float_from_bits(s.speed_max_bits) * (1.0f + 1e-5f);
        if (s.lists_walked != 0)
            ++list_walks_;
        ghost_list_nodes_ += s.ghost_list_nodes;
        if (keep_lists_)
            plan_next_build(s);
    }
    if (adaptive_)
        adapt_interaction(interaction_seconds);
    binned_ = s.binned;
    if (s.bad_count)
        fail(s.bad_count);
    // A build on predicted positions (the corrector's, when it rebuilds) held only what lay in
    // build_grid_: a particle that moved out of it, further than the search radius in a step,
    // would have been left out. The CFL condition keeps moves far below that.
    if (s.escaped && plan_.integrator == IntegratorKind::symplectic && !reuse_for_corrector()) {
        std::ostringstream msg;
        msg << "simulation failed at step " << steps_ << ", t = " << time_ << " s: " << s.escaped
            << " particle(s) moved further than the search radius (" << plan_.radius
            << " m) in one step; lower the case's cfl";
        throw SimulationFailure(msg.str());
    }
    if (comm_)
        if (const std::string why = move_beyond_halo(
                slabs_, steps_, time_, dt_, float_from_bits(s.speed_max_bits), largest_speed_,
                std::sqrt(static_cast<double>(float_from_bits(s.acceleration_max2_bits))));
            !why.empty())
            throw SimulationFailure(why);
    if (plan_.layout == Layout::index && n_ - binned_ != recorded_exclusions_)
        move_excluded_last();
    record_exclusions();
    last_scalars_ = s;
}

template <int D>
void CudaSimulation<D>::plan_next_build(const StepScalars& s) {
    const double speed = float_from_bits(s.speed_max_bits);
    const double acceleration =
        std::sqrt(static_cast<double>(float_from_bits(s.acceleration_max2_bits)));
    const double dt = list_dt_bound_; // every dt is at most this (time_step)
    const double next_move = dt * (speed + acceleration * dt);
    const double needed = 2.0 * (s.step_skin + 1.5 * next_move);
    // A particle that left the domain is excluded by the next build, as it would be without
    // kept lists; the lists would keep it in its neighbours' sums.
    // Several GPUs: the halo covers the skin only while it holds, so the test is never skipped.
    const bool checked = !options_.keep_lists_unchecked || comm_ != nullptr;
    build_next_ = list_age_ + 1 >= options_.list_max_age || s.left_domain != 0 ||
                  (checked && (s.lists_walked != 0 || needed > list_skin_));
}

template <int D>
void CudaSimulation<D>::fail(std::uint32_t device_bad_count) {
    // The rare path: the whole state comes to the host and the message is made as the CPU
    // backend makes it (offenders by ascending id, at most 5).
    const std::vector<Vec<D>> position = download(positions(), n_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> id = download(id_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> tags = download_tags(n_);
    std::vector<Offender<D>> offenders;
    for (std::uint32_t k = 0; k < n_; ++k) {
        if (is_halo(tags[k])) // its owner reports it
            continue;
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        if (state_is_bad(p, plan_.density_min, plan_.density_max))
            offenders.push_back({id[k], p.type, p.density, p.position, p.velocity});
    }
    const std::size_t bad_count = offenders.empty() ? device_bad_count : offenders.size();
    throw SimulationFailure(
        failure_message(steps_, time_, bad_count, plan_.density_min, plan_.density_max, offenders));
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
    std::vector<Float4> motion(tail); // the type is the sign of the density it packs
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(id.data(), id_[current_].get() + binned_,
                                      tail * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                      stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(position.data(), positions() + binned_, tail * sizeof(Vec<D>),
                                      cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(motion.data(), motion_[current_].get() + binned_,
                                      tail * sizeof(Float4), cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (comm_) { // a halo copy's owner records it
        std::vector<std::uint32_t> tags(tail);
        SLUICE_CUDA_CHECK(cudaMemcpy(tags.data(), tags_[current_].get() + binned_,
                                     tail * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
        std::uint32_t kept = 0;
        for (std::uint32_t k = 0; k < tail; ++k)
            if (!is_halo(tags[k])) {
                id[kept] = id[k];
                position[kept] = position[k];
                motion[kept] = motion[k];
                ++kept;
            }
        id.resize(kept);
        position.resize(kept);
        motion.resize(kept);
    }
    exclusions_.record(
        static_cast<std::uint32_t>(id.size()), id.data(),
        [&](std::uint32_t k) { return to_array3(plain_position(position[k])); },
        [&](std::uint32_t k) { return decode_type(motion_signed_density<D>(motion[k])); }, steps_,
        time_);
}

template void CudaSimulation<2>::finish_step();
template void CudaSimulation<2>::complete_step();
template void CudaSimulation<2>::fail(std::uint32_t);
template void CudaSimulation<2>::record_exclusions();
template void CudaSimulation<3>::finish_step();
template void CudaSimulation<3>::complete_step();
template void CudaSimulation<3>::fail(std::uint32_t);
template void CudaSimulation<3>::record_exclusions();
} // namespace sluice::gpu
