// The several-process passes of the CUDA backend (step_plan.h: Exchange, HaloRefresh,
// Balance), the executors on the device of parallel/'s machinery: which particles leave the
// slab or go to a neighbour's halo (slab_kernels.cuh), their records through NCCL
// (parallel/nccl_comm.cuh) with the counts through MPI, the halo's refresh between the passes,
// and the load balance's work per bin column.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/slab_kernels.cuh"
#include "neighbours/cuda_check.h"
#include "neighbours/cuda_gather.cuh"
#include "parallel/slab_start.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace sluice::gpu {

template <int D>
std::vector<std::uint32_t> CudaSimulation<D>::download_tags(std::uint32_t count) const {
    if (!comm_)
        return std::vector<std::uint32_t>(count, tag_owned);
    return download(tags_[current_].get(), count, stream_);
}

template <int D>
std::array<std::uint32_t, 5> CudaSimulation<D>::sort_by_keys(std::uint32_t n,
                                                             const std::uint32_t* order_out) {
    std::size_t bytes = sort_temp_bytes_;
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        sort_temp_.get(), bytes, keys_[0].get(), keys_[1].get(), order_[0].get(),
        const_cast<std::uint32_t*>(order_out), static_cast<int>(n), 0, 3, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_counts_.get(), class_counts_.get(),
                                      5 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::array<std::uint32_t, 5> counts{};
    std::copy(host_counts_.get(), host_counts_.get() + 5, counts.begin());
    return counts;
}

/// Counts to and from the neighbouring processes (host, through MPI).
static void exchange_counts(const Communicator& comm, std::uint32_t to_lower,
                            std::uint32_t to_upper, std::uint32_t& from_lower,
                            std::uint32_t& from_upper) {
    auto bytes = [](std::uint32_t v) {
        std::vector<std::byte> b(sizeof v);
        std::memcpy(b.data(), &v, sizeof v);
        return b;
    };
    std::vector<std::byte> lower, upper;
    comm.exchange_with_neighbours(
        comm.rank() > 0 ? bytes(to_lower) : std::vector<std::byte>{},
        comm.rank() + 1 < comm.size() ? bytes(to_upper) : std::vector<std::byte>{}, lower, upper);
    from_lower = lower.empty() ? 0 : ByteReader(lower).get<std::uint32_t>();
    from_upper = upper.empty() ? 0 : ByteReader(upper).get<std::uint32_t>();
}

template <int D>
void CudaSimulation<D>::exchange() {
    // Kept lists: the particles keep their places (and owners) while the lists serve, so that
    // their indices hold: the halo copies only take their owners' state at the end of the last
    // step, in place. Every process decides alike (plan_next_build's inputs are all-reduced).
    if (keep_lists_ && !build_next_ && !faces_moved_) {
        refresh_halo(nullptr);
        mark(halo);
        return;
    }
    faces_moved_ = false;
    build_next_ = true; // the order is new: rebuild() builds
    distribute();
}

template <int D>
void CudaSimulation<D>::distribute() {
    const int rank = comm_->rank();
    const double lower = slabs_.lower(rank), upper = slabs_.upper(rank);
    const int axis = slabs_.axis;
    const int next = 1 - current_;
    const bool verlet = plan_.integrator == IntegratorKind::verlet;
    const int previous_next = 1 - previous_current_;
    Vec<D>* const new_positions = position_[1 - position_current_].get();
    const std::size_t record = sizeof(ParticleRecord<D>);

    // 1. The halo goes; particles that left the slab (not the domain) go to their new owner.
    SLUICE_CUDA_CHECK(cudaMemsetAsync(class_counts_.get(), 0, 8 * sizeof(std::uint32_t), stream_));
    if (n_ > 0) {
        migration_keys_kernel<D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
            positions(), tags_[current_].get(), n_, binned_, plan_.grid, axis, lower, upper,
            keys_[0].get(), order_[0].get(), class_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::array<std::uint32_t, 5> moved = sort_by_keys(n_, order_[1].get());
    const std::uint32_t kept = moved[0], frozen = moved[1], down = moved[2], up = moved[3];
    const std::uint32_t* sorted = order_[1].get();
    if (down + up > 0) {
        pack_records_kernel<D><<<blocks_for(down + up, block_size), block_size, 0, stream_>>>(
            sorted + kept + frozen, down + up, positions(), motion_[current_].get(),
            id_[current_].get(), verlet ? previous_velocity_[previous_current_].get() : nullptr,
            verlet ? previous_density_[previous_current_].get() : nullptr, send_records_.get(),
            nullptr, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    std::uint32_t from_below = 0, from_above = 0;
    exchange_counts(*comm_, down, up, from_below, from_above);
    nccl_->exchange(send_records_.get(), down * record, send_records_.get() + down, up * record,
                    receive_records_.get(), from_below * record,
                    receive_records_.get() + from_below, from_above * record, stream_);
    if (kept > 0) // Verlet's step n−1 and dry-wall certificates where the run has them
        gather(stream_, sorted, kept, GatherPair<Vec<D>>{positions(), new_positions},
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()},
               GatherPair<Vec<D>>{verlet ? previous_velocity_[previous_current_].get() : nullptr,
                                  previous_velocity_[previous_next].get()},
               GatherPair<float>{verlet ? previous_density_[previous_current_].get() : nullptr,
                                 previous_density_[previous_next].get()},
               GatherPair<float>{dry_until_[current_].get(), dry_until_[next].get()});
    const std::uint32_t arrived = from_below + from_above;
    if (arrived > 0) {
        unpack_records_kernel<D><<<blocks_for(arrived, block_size), block_size, 0, stream_>>>(
            receive_records_.get(), arrived, kept, new_positions, motion_[next].get(),
            id_[next].get(), tags_[next].get(),
            verlet ? previous_velocity_[previous_next].get() : nullptr,
            verlet ? previous_density_[previous_next].get() : nullptr, false, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::uint32_t active = kept + arrived;
    // Every particle here is owned now (a tag of the last halo sent means nothing any more).
    SLUICE_CUDA_CHECK(
        cudaMemsetAsync(tags_[next].get(), 0xff, active * sizeof(std::uint32_t), stream_));
    mark(migration);

    // 2. The halo: owned particles within halo_width of a face, to the neighbour beyond it.
    SLUICE_CUDA_CHECK(cudaMemsetAsync(class_counts_.get(), 0, 8 * sizeof(std::uint32_t), stream_));
    if (active > 0) {
        halo_keys_kernel<D><<<blocks_for(active, block_size), block_size, 0, stream_>>>(
            new_positions, active, plan_.grid, axis, lower, upper, slabs_.halo_width, rank > 0,
            rank + 1 < comm_->size(), keys_[0].get(), order_[0].get(), class_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::array<std::uint32_t, 5> sending = sort_by_keys(active, order_[2].get());
    sent_below_ = sending[1];
    sent_above_ = sending[2];
    if (sent_below_ + sent_above_ > 0) {
        pack_records_kernel<D>
            <<<blocks_for(sent_below_ + sent_above_, block_size), block_size, 0, stream_>>>(
                order_[2].get() + sending[0], sent_below_ + sent_above_, new_positions,
                motion_[next].get(), id_[next].get(),
                verlet ? previous_velocity_[previous_next].get() : nullptr,
                verlet ? previous_density_[previous_next].get() : nullptr, send_records_.get(),
                tags_[next].get(), 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    exchange_counts(*comm_, sent_below_, sent_above_, received_below_, received_above_);
    nccl_->exchange(send_records_.get(), sent_below_ * record, send_records_.get() + sent_below_,
                    sent_above_ * record, receive_records_.get(), received_below_ * record,
                    receive_records_.get() + received_below_, received_above_ * record, stream_);
    const std::uint32_t received = received_below_ + received_above_;
    if (received > 0) {
        unpack_records_kernel<D><<<blocks_for(received, block_size), block_size, 0, stream_>>>(
            receive_records_.get(), received, active, new_positions, motion_[next].get(),
            id_[next].get(), tags_[next].get(),
            verlet ? previous_velocity_[previous_next].get() : nullptr,
            verlet ? previous_density_[previous_next].get() : nullptr, true, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    // 3. The frozen (excluded) particles last, as the builds keep them.
    const std::uint32_t at = active + received;
    if (at + frozen > capacity_)
        throw std::logic_error("distribute: more particles than the run holds");
    if (frozen > 0) {
        gather(stream_, sorted + kept, frozen, GatherPair<Vec<D>>{positions(), new_positions + at},
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get() + at},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get() + at});
        if (verlet)
            gather(stream_, sorted + kept, frozen,
                   GatherPair<Vec<D>>{previous_velocity_[previous_current_].get(),
                                      previous_velocity_[previous_next].get() + at},
                   GatherPair<float>{previous_density_[previous_current_].get(),
                                     previous_density_[previous_next].get() + at});
        SLUICE_CUDA_CHECK(
            cudaMemsetAsync(tags_[next].get() + at, 0xff, frozen * sizeof(std::uint32_t), stream_));
    }
    if (tracks_travel() && at + frozen > kept) // arrivals, halo copies, frozen: not certified
        SLUICE_CUDA_CHECK(cudaMemsetAsync(dry_until_[next].get() + kept, 0,
                                          (at + frozen - kept) * sizeof(float), stream_));
    n_ = at + frozen;
    binned_ = at;
    recorded_exclusions_ = frozen;
    current_ = next;
    if (verlet)
        previous_current_ = previous_next;
    position_current_ = 1 - position_current_;
    view_ready_ = false;
    mark(halo);
}

template <int D>
void CudaSimulation<D>::index_slots() {
    if (n_ > 0) {
        slot_index_kernel<<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
            tags_[current_].get(), n_, halo_index_.get(), sent_index_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
}

template <int D>
void CudaSimulation<D>::refresh_halo(float* skin, bool on_build) {
    // Reorder layout: after a build the state is in the build's sorted copy (the state's own
    // array is in the order before it until the next integration writes it).
    Vec<D>* const state_positions = on_build ? const_cast<Vec<D>*>(view_positions()) : positions();
    const std::uint32_t sent = sent_below_ + sent_above_;
    const std::uint32_t received = received_below_ + received_above_;
    auto* out = reinterpret_cast<HaloRecord<D>*>(send_records_.get());
    auto* in = reinterpret_cast<HaloRecord<D>*>(receive_records_.get());
    // The skin's moves are measured from where the structure was built: kept lists, the
    // build's sorted copy (the state's positions may be the lists' later ones), in space.
    const Vec<D>* const built = keep_lists_ ? builder_.d_sorted_positions() : view_positions();
    if (sent > 0) {
        pack_halo_kernel<D><<<blocks_for(sent, block_size), block_size, 0, stream_>>>(
            sent_index_.get(), sent, state_positions, motion_[current_].get(), out);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::size_t record = sizeof(HaloRecord<D>);
    nccl_->exchange(out, sent_below_ * record, out + sent_below_, sent_above_ * record, in,
                    received_below_ * record, in + received_below_, received_above_ * record,
                    stream_);
    if (received > 0) {
        unpack_halo_kernel<D><<<blocks_for(received, block_size), block_size, 0, stream_>>>(
            in, received, halo_index_.get(), state_positions, motion_[current_].get(), built, skin,
            keep_lists_);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
}

template <int D>
void CudaSimulation<D>::halo_refresh_pass() {
    // The halo at n+½, and the skin covering its moves too.
    StepScalars* const scalars = scalars_.get();
    refresh_halo(reuse_for_corrector() ? &scalars->predictor_skin : nullptr);
    mark(halo);
    if (dry_walls_) { // the corrector's certificates: every GPU's fluid moved so far
        nccl_->max(reinterpret_cast<std::uint32_t*>(&scalars->predictor_skin), 1, stream_);
        mark(waiting);
    }
}

/// balance()'s estimate of a boundary particle's share of an interaction pass against a fluid
/// particle's: on the H100 at 10^6 particles (git show 54605da:solver/BENCHMARK.md, "Tried in issue
/// 9"), skipping every wall particle's neighbour loop saved 0.18 of the pass's 1.32 ms: 0.49 ns per
/// wall particle against 1.69 ns per fluid one. The measured times correct the rest.
constexpr double boundary_work_share = 0.3;

template <int D>
void CudaSimulation<D>::balance() {
    const auto started = std::chrono::steady_clock::now();
    const std::vector<double> seconds =
        work_since_balance(*comm_, step_work_seconds(stage_seconds_), balanced_seconds_);
    // Owned particles per bin column (integer counts: the same sums in any order), over every
    // process: each column's estimated work.
    const auto columns = static_cast<std::uint32_t>(bin_columns(slabs_));
    SLUICE_CUDA_CHECK(cudaMemsetAsync(column_counts_.get(), 0,
                                      2 * std::size_t{columns} * sizeof(std::uint32_t), stream_));
    if (binned_ > 0) {
        column_counts_kernel<D><<<blocks_for(binned_, block_size), block_size, 0, stream_>>>(
            positions(), motion_[current_].get(), tags_[current_].get(), binned_, slabs_.axis,
            slabs_.faces.front(), slabs_.bin, columns, column_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::vector<std::uint32_t> counts =
        download(column_counts_.get(), 2 * std::size_t{columns}, stream_);
    std::vector<double> work_per_bin(columns);
    for (std::size_t k = 0; k < columns; ++k)
        work_per_bin[k] = counts[2 * k] + boundary_work_share * counts[2 * k + 1];
    comm_->sum(work_per_bin.data(), static_cast<int>(columns));
    SlabDecomposition moved = rebalanced_slabs(slabs_, seconds, work_per_bin, balance_tolerance);
    if (moved.faces != slabs_.faces) {
        moved.history.emplace_back(steps_, moved.faces);
        slabs_ = std::move(moved);
        faces_moved_ = true; // kept lists: the next step migrates and builds (exchange())
    }
    stage_seconds_[waiting] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

template std::vector<std::uint32_t> CudaSimulation<2>::download_tags(std::uint32_t) const;
template std::array<std::uint32_t, 5> CudaSimulation<2>::sort_by_keys(std::uint32_t,
                                                                      const std::uint32_t*);
template void CudaSimulation<2>::exchange();
template void CudaSimulation<2>::distribute();
template void CudaSimulation<2>::index_slots();
template void CudaSimulation<2>::refresh_halo(float*, bool);
template void CudaSimulation<2>::halo_refresh_pass();
template void CudaSimulation<2>::balance();
template std::vector<std::uint32_t> CudaSimulation<3>::download_tags(std::uint32_t) const;
template std::array<std::uint32_t, 5> CudaSimulation<3>::sort_by_keys(std::uint32_t,
                                                                      const std::uint32_t*);
template void CudaSimulation<3>::exchange();
template void CudaSimulation<3>::distribute();
template void CudaSimulation<3>::index_slots();
template void CudaSimulation<3>::refresh_halo(float*, bool);
template void CudaSimulation<3>::halo_refresh_pass();
template void CudaSimulation<3>::balance();
} // namespace sluice::gpu
