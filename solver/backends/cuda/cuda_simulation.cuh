#pragma once
/// \file cuda_simulation.cuh
/// CudaSimulation, the CUDA backend's GpuSimulation (cuda_backend.h is its public face): the
/// step plan it executes and its state in device memory. Its members are defined beside the
/// pass they serve (step_plan.h's table: construction.cu, interaction.cu, integration.cu,
/// exchange.cu, checks.cu; outputs.cu for snapshots, states and gauges; cuda_simulation.cu for
/// the set-up and the executor), each file instantiating its members for 2D and 3D.

#include "backends/cuda/bodies_kernels.cuh"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gauge_results.cuh"
#include "backends/cuda/list_build_kernels.cuh"
#include "backends/cuda/packed_particles.h"
#include "backends/cuda/slab_kernels.cuh"
#include "backends/cuda/snapshot_pool.cuh"
#include "backends/cuda/step_kernels.cuh"
#include "backends/exclusion_log.h"
#include "backends/failure.h"
#include "backends/stage_times.h"
#include "backends/step_plan.h"
#include "case/body_table.h"
#include "case/motion_table.h"
#include "case/state_conversion.h"
#include "neighbours/cuda_builder.h"
#include "neighbours/device_memory.cuh"
#include "parallel/nccl_comm.cuh"
#include "physics/gauges.h"

#include <array>
#include <cstdlib>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::gpu {

struct DryWalls;
struct NeighbourLists;

/// Whether the lists are kept over several steps (CudaOptions::list_skin): where the plan's
/// corrector reads lists (step_plan.h, corrector_neighbours) and a skin is given.
inline bool keeps_lists(CorrectorNeighbours planned, const CudaOptions& options) {
    return planned == CorrectorNeighbours::lists && options.list_skin > 0.0f;
}

// ---------------------------------------------------------------------------------------------
// The simulation

///
/// Several GPUs (DESIGN.md, Scale-out; `comm_` set; as the CPU backend's CpuSimulation, on the
/// device): this process owns its slab's particles and holds halo copies of its neighbours'
/// within slabs_.halo_width of its faces in the same arrays (tags_). A step that builds begins
/// with distribute() (halo dropped, particles that crossed a face sent to their new owner, a new
/// halo received, through NCCL; two small host synchronisations for the counts); with kept
/// lists, a step on the last build's lists keeps every particle in place (and with its owner,
/// even a little past its slab's face) and only refreshes the halo copies (exchange()). The
/// halo is refreshed before the corrector pass and before gauges; the pass's maxima, the failure
/// count, the largest speed and the lists' moves are all-reduced by NCCL on the stream. The arrays
/// hold the whole run's particles (capacity_), so that migration never allocates.
template <int D>
class CudaSimulation final : public GpuSimulation {
public:
    /// From a state: the initial one (restored = false: every particle must lie in the domain)
    /// or a checkpoint's (its excluded particles stay excluded and unreported). With `comm`,
    /// `state` holds this process's slab of a run of `total_particles` particles (ids global);
    /// the device is chosen already.
    CudaSimulation(const Case& c, const DerivedConstants& derived, const SimulationState& state,
                   bool restored, const CudaOptions& options, const Communicator* comm = nullptr,
                   SlabDecomposition slabs = {}, std::uint64_t total_particles = 0);
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
    bool exclusions_possible_anywhere() const override {
        return comm_ == nullptr || last_scalars_.newly_excluded != 0;
    }
    SimulationState save_state() const override;
    GaugeResponse sample_gauges(const GaugeRequest& request) override;
    std::vector<float>
    sample_fraction_grid(const FractionGrid& grid) override; ///< fraction_grid.cu
    std::future<GaugeResponse> begin_gauges(const GaugeRequest& request) override;
    std::future<GaugeResponse> step_and_sample(const GaugeRequest& request, double before) override;

    BackendCounters counters() const override;
    std::vector<std::uint32_t> neighbour_counts() override;
    std::optional<SlabDecomposition> decomposition() const override {
        if (!comm_)
            return std::nullopt;
        return slabs_;
    }

    // Launches, dispatched over (query, view, kernel) (public for the functors below).
    template <class QueryT, class ViewT, class KernelT>
    void launch_interaction(const ViewT& view, const KernelT& kernel, const DryWalls& dry,
                            const NeighbourLists& lists, Vec<D>* shift,
                            const FluidConstants& fluid);
    template <class QueryT, class ViewT, class KernelT>
    void launch_boundary_condition(const ViewT& view, const KernelT& kernel);
    template <class QueryT, class ViewT>
    void launch_list_build(const ViewT& view);
    template <class QueryT, class ViewT>
    void launch_count(const ViewT& view, std::uint32_t* d_counts_by_id);
    // A gauge sample's launches, on its stream (begin_local_gauges).
    template <class QueryT, class ViewT, class KernelT>
    void launch_gauges(const ViewT& view, const KernelT& kernel, std::uint32_t count,
                       GaugeSums<D>* sums, cudaStream_t stream);
    template <class QueryT, class ViewT, class KernelT>
    void launch_wall_sensors(const ViewT& view, const KernelT& kernel, std::uint32_t count,
                             WallSensorSums<D>* sums, cudaStream_t stream);
    template <class QueryT, class ViewT, class KernelT>
    void launch_body_forces(const ViewT& view, const KernelT& kernel, std::uint32_t count,
                            cudaStream_t stream);
    template <class QueryT, class ViewT, class KernelT>
    void launch_body_loads(const ViewT& view, const KernelT& kernel);
    template <class QueryT, class ViewT>
    void launch_front(const ViewT& view, const GaugeRequest::Front& f, float distance,
                      std::uint32_t* d_keys, cudaStream_t stream);
    template <class QueryT, class ViewT, class KernelT>
    void launch_fraction_grid(const ViewT& view, const KernelT& kernel, const FractionGrid& grid,
                              std::uint32_t count); ///< into fraction_grid_, on stream_

private:
    using Stage = StepStage;

    /// Build on the state's positions; reorder: gather motion and id into the new order. With
    /// kept lists, a step that may run on the last build's (plan_next_build) builds nothing:
    /// the structure is walked over the state's positions, its skin their largest move since.
    void rebuild();
    /// view_: a fresh build over the state's positions (build_grid_), once stream_ has waited
    /// for a gauge sample that may still read the structure it replaces (fence_gauge_reads).
    void build_view();
    /// Kept lists, after a step (its scalars s): whether the next one builds, the lists' skin
    /// being too little for it (2 × the largest move in space since the build, plus the next
    /// step's bound dt_max · (largest speed + largest acceleration · dt_max), with half again as
    /// margin), a pass having walked, a particle having left the domain (the build excludes
    /// it), or their age at CudaOptions::list_max_age.
    void plan_next_build(const StepScalars& s);
    /// The neighbour lists' arrays, and with kept lists their skin and walk flag (a pass sets
    /// the rest: NeighbourLists, neighbour_lists.cuh).
    NeighbourLists neighbour_lists() const;
    /// mDBC's ghost nodes for the kept lists' build (none unless ghost_lists_).
    GhostNodeLists<D> ghost_node_lists() const;
    /// Which interaction pass of a step: the symplectic predictor's, on a fresh build (dry wall
    /// particles are looked at and certified there), the corrector's (they are only skipped),
    /// or any other (Verlet's: none is skipped).
    void interact(InteractionRole role);
    // Set-up (cuda_simulation.cu), in the constructor's order.
    /// The state on the host in the device's layout: particles inside the domain first (their
    /// order kept), packed (packed_particles.h); the box of those inside; whether every wall
    /// particle rests, and the largest fluid speed (m/s).
    struct HostState {
        std::vector<std::uint32_t> order; ///< state index of each packed particle
        std::vector<Vec<D>> position, velocity;
        std::vector<Float4> motion;
        std::vector<std::uint32_t> id;
        std::vector<float> density;
        std::array<double, D> box_lo{}, box_hi{};
        bool walls_at_rest = true;    ///< dry wall particles are exact only then (DryWalls)
        double fluid_speed_max = 0.0; ///< the corrector's lists' first bound
    };
    /// \throws std::invalid_argument when a particle lies outside the domain at t = 0.
    HostState pack_state(const SimulationState& state, bool restored) const;
    void allocate_state();
    void allocate_exchange(); ///< several GPUs: exchange buffers and NCCL
    /// The interaction scheme (in step, adaptive), the dry wall particles and the lists.
    void choose_kernels(bool walls_at_rest);
    void allocate_lists(const Case& c, double fluid_speed_max);
    void allocate_compaction(); ///< index layout: CUB's partition of excluded particles
    void upload_state(const HostState& h, const SimulationState& state);
    /// The executor: one overload per pass of the plan (cuda_simulation.cu).
    struct PassRunner;
    /// mDBC: ghost_offsets_ and h_ghost_offsets_ from the case's geometry
    /// (boundary_condition.cu).
    void upload_ghost_offsets(const Case& c);
    /// BoundaryCondition (mDBC): wall particles from their ghost nodes (boundary_condition.cu).
    void apply_boundary_condition();
    /// Moving boundaries (motion.cu): the tables and the objects' states at time_ on the host
    /// (before pack_state, which places the walls with them; floating bodies' from `state`),
    /// then their device copies.
    void prepare_motion(const Case& c, const SimulationState& state);
    void upload_motion();
    MotionTablesView motion_view() const;
    /// Floating bodies as the Motion pass's kernel takes them (count 0 without).
    FloatingBodiesView floating_view();
    /// BodyLoads (bodies.cu): the bodies' particles' loads summed into d_body_sums_, over every
    /// GPU (NCCL).
    void sum_body_loads();
    /// The moving walls as particle passes take them (empty without moving walls).
    MovingWallsView<D> walls_view() const;
    /// Motion: the objects' states at the stage's time and the walls placed (motion.cu).
    void move_walls(IntegrationStage stage);
    /// Damping: the zones' relaxation of the fluid's velocity (motion.cu).
    void damp();
    /// TimeStep: dt from the interaction pass's maxima, on the device.
    void time_step();
    /// Integration: predict, correct or Verlet, over the last build's order.
    void integrate(IntegrationStage stage);
    /// HaloRefresh: the halo at n+½ and the skins that cover its moves.
    void halo_refresh_pass();
    /// A step's passes, queued; the Checks pass's host part waits (complete_step) unless
    /// `defer` (step_and_sample: a sample is queued first), when end_step() does.
    void enqueue_step(bool defer);
    /// What is left of the step: complete_step() if deferred, the next builds' box.
    void end_step();
    /// Checks: the end of the step on the device (the box, the reductions, the one read-back of
    /// the scalars), queued.
    void finish_step();
    /// Checks on the host: waits for the read-back; the clock, failures, exclusions, the next
    /// build.
    void complete_step();
    bool defer_completion_ = false;
    void mark(Stage finished);
    std::size_t device_bytes() const;
    std::uint32_t dry_wall_count() const;
    const std::uint32_t* d_binned() const { return builder_.d_binned_count(); }
    /// The state's positions (in an index layout, the buffer the last integration wrote).
    Vec<D>* positions() const { return position_[position_current_].get(); }
    /// What the last build read: its sorted copy (reorder) or the state's positions (index).
    const Vec<D>* view_positions() const {
        return std::visit([](const auto& v) -> const Vec<D>* { return v.positions; }, view_);
    }
    /// The last build's order and membership, for the integration kernels; `reused`: the
    /// corrector on the predictor's structure (previous_* in this same order).
    BuildOrder<D> build_order(bool reused = false) const;
    /// The predictor's structure for the corrector pass, or (after the corrector) for gauges:
    /// the state's positions now, and the largest move since the build as skin.
    void reuse_view(const float* d_skin);
    bool reuse_for_corrector() const { return plan_.corrector_reuses(); }
    /// Where an integration kernel writes positions: never an array it reads (index layout: the
    /// other buffer; reorder: the state's own, since the kernels read the build's sorted copy).
    Vec<D>* integration_output() const {
        return position_[plan_.layout == Layout::index ? 1 - position_current_ : position_current_]
            .get();
    }
    void integration_written() {
        if (plan_.layout == Layout::index)
            position_current_ = 1 - position_current_;
    }
    /// Index layout: moves the particles the last build excluded to the end of the state's
    /// arrays (the others keep their order), as the reorder layout's sort does; on the device,
    /// without a host round trip (in a splash, particles leave at almost every step).
    void move_excluded_last();
    void record_exclusions();
    [[noreturn]] void fail(std::uint32_t device_bad_count);
    /// The gauge sample of this process's state (begin_gauges without several GPUs).
    std::future<GaugeResponse> begin_local_gauges(const GaugeRequest& request);
    /// A sample before the first step (t = 0, a restart) builds the structure first.
    void prepare_view_for_sampling();

    // Several GPUs (class comment).
    const std::uint32_t* d_tags() const { return comm_ ? tags_[current_].get() : nullptr; }
    /// The Exchange pass: distribute() before a build, else (kept lists) the halo's refresh in
    /// place. Collective.
    void exchange();
    /// Drops the halo, migrates, receives a new halo (collective; host waits for the counts).
    void distribute();
    /// The halo copies take their owners' state; `skin` (optional) folds in how far they moved
    /// from the positions the current structure was built on. `on_build`: between a build and
    /// the next integration (mDBC's walls), when the state is in the positions the build read.
    void refresh_halo(float* skin, bool on_build = false);
    /// halo_index_ and sent_index_ from the tags (after any reorder).
    void index_slots();
    /// Sorts order ← [0, n) by keys (stable, 3 bits) and returns the count of each key (host).
    std::array<std::uint32_t, 5> sort_by_keys(std::uint32_t n, const std::uint32_t* order_out);
    /// The tags of particles [0, count), from the device (one process: every one tag_owned).
    std::vector<std::uint32_t> download_tags(std::uint32_t count) const;
    /// build_grid_ ← the bins of plan_.grid that cover the box [lo, hi] of the particles inside the
    /// domain widened by the search radius (more than any particle moves in a step: a build
    /// before the next cover() holds what a build on plan_.grid would), and over several GPUs only
    /// those within this process's slab_reach. The box is the state's at the start, then the
    /// end of each step's (bounding_box_kernel, over every GPU).
    void cover(std::array<double, D> lo, std::array<double, D> hi);
    /// Load balancing (collective, every plan_.balance_interval steps): moves the slab faces
    /// towards equal measured work (rebalanced_slabs) from each process's stage times since the
    /// last balance, its own work only (the NCCL reductions, where a GPU waits for the slowest, are
    /// the `waiting` stage), and the owned particles per bin column; the next distribute()
    /// migrates. Without stage timing nothing is measured and the faces stay.
    void balance();

    // configuration
    DerivedConstants derived_;
    CudaOptions options_;
    /// What a step does (step_plan.h); plan_.grid is the domain's neighbour grid: which
    /// particles are inside.
    StepPlan<D> plan_;
    /// What the builds use: the part of plan_.grid that covers the particles (cover()).
    GridSpec<D> build_grid_;
    std::uint32_t n_;
    std::uint32_t boundary_count_;
    bool trace_ = std::getenv("SLUICE_CUDA_TRACE") != nullptr;

    cudaStream_t stream_ = nullptr;
    DeviceMemoryAccount account_;
    CudaNeighbourBuilder<D> builder_;
    AnyNeighbourView<D> view_{};

    // state, in the bin order of the last build (positions: what the integration wrote), or in
    // an index layout in the state's own order (excluded particles last)
    /// [1]: index layout (the build reads one, the integration writes the other) and several
    /// GPUs (distribute() writes the other); reorder layout: the integration writes the one the
    /// build read (it reads the sorted copy).
    DeviceArray<Vec<D>> position_[2];
    int position_current_ = 0;
    DeviceArray<Float4> motion_[2];
    DeviceArray<std::uint32_t> id_[2];
    int current_ = 0; ///< which of motion_/id_ holds the state
    DeviceArray<Float4> derivatives_;
    /// With shifting: each particle's shifting velocity (physics/shifting.h) from the corrector's
    /// or the Verlet step's interaction pass, in derivatives_'s order; else unallocated.
    DeviceArray<Vec<D>> shift_velocity_;
    /// With diffusion antuono2010: each particle's renormalised density gradient, written by the
    /// interaction pass before its pair terms (physics/delta_sph.h); else unallocated.
    DeviceArray<Vec<D>> density_gradient_;
    DeviceArray<Vec<D>> previous_position_;    ///< symplectic: state n, predictor's bin order
    DeviceArray<Vec<D>> previous_velocity_[2]; ///< [1]: Verlet's second buffer
    DeviceArray<float> previous_density_[2];
    int previous_current_ = 0;
    DeviceArray<StepScalars> scalars_;
    /// mDBC: x_g − x_b (m) of each wall particle by id (case/ghost_offsets.h; zero: none).
    DeviceArray<Vec<D>> ghost_offsets_;
    std::uint32_t ghost_offset_count_ = 0;
    /// mDBC: the particles the pass runs over (TakesGhostNode), their count, CUB's storage.
    DeviceArray<std::uint32_t> ghost_walls_;
    DeviceArray<std::uint32_t> ghost_wall_count_;
    DeviceArray<unsigned char> ghost_walls_temp_;
    std::size_t ghost_walls_temp_bytes_ = 0;
    /// Their host copy, for the wall normals of the first snapshot (io/snapshot.h); shared
    /// with a pending begin_snapshot() future. Null with DBC.
    std::shared_ptr<const std::vector<Vec<D>>> h_ghost_offsets_;
    // Moving boundaries (plan_.moving_walls; motion.cu): the motion tables (host and device),
    // per boundary id its moving object and reference position, each object's state at the
    // last Motion pass's time, the moving walls' largest speed then (m/s; the time step's
    // bound); the damping zones.
    MotionTables motion_tables_;
    MovingWallTables<D> h_walls_;
    std::vector<RigidMotionF> h_object_motion_; ///< at the set-up's time
    DeviceArray<MotionSegmentData> motion_segments_;
    DeviceArray<SineComponent> motion_sines_;
    DeviceArray<TableSample> motion_samples_;
    DeviceArray<std::uint32_t> motion_object_first_;
    DeviceArray<std::uint16_t> wall_object_;
    DeviceArray<Vec<D>> wall_reference_;
    DeviceArray<RigidMotionF> object_motion_;
    DeviceArray<float> wall_speed_;
    std::uint32_t wall_ids_ = 0;
    DeviceArray<DampingZoneData<D>> damping_zones_;
    // Floating bodies (plan_.floating; bodies.cu, motion.cu): the tables, each body's state at
    // the set-up (host) and now (device), the loads its last update used, the springs, the
    // particles' contact data, the BodyLoads pass's sums, per object whether it floats.
    BodyTables body_tables_;
    std::vector<BodyState> h_body_states_;
    DeviceArray<RigidBodyData> d_bodies_;
    DeviceArray<BodyState> d_body_states_;
    DeviceArray<BodyLoads> d_body_loads_;
    DeviceArray<SpringData> d_springs_;
    DeviceArray<BodyContactData> d_body_contact_;
    DeviceArray<std::uint8_t> d_body_buried_; ///< BodyTables::buried, by id
    DeviceArray<double> d_body_sums_;
    DeviceArray<std::uint8_t> d_object_floats_;
    /// The BodyLoads pass's list of the bodies' particles (capacity: their ids), its length,
    /// and the multiprocessors its warps are spread over.
    DeviceArray<std::uint32_t> d_body_members_, d_body_member_count_;
    std::uint32_t body_member_capacity_ = 0;
    int multiprocessors_ = 1;
    // index layout: CUB's partition of the compaction (its index, flag and order arrays borrow
    // the derivatives, dead between the integration and the next interaction pass)
    DeviceArray<unsigned char> partition_temp_;
    std::size_t partition_temp_bytes_ = 0;
    DeviceArray<std::uint32_t> partition_count_;
    PinnedArray<StepScalars> host_scalars_;
    StepScalars last_scalars_{}; ///< the last step's, as read back (finish_step)

    // stage timing: events[k] ends the interval of stage event_stage_[k]
    static constexpr int max_events = 24;
    std::array<cudaEvent_t, max_events> events_{};
    std::array<Stage, max_events> event_stage_{};
    int event_count_ = 0;
    double stage_seconds_[step_stage_count] = {};

    // The interaction kernel (CudaInteraction): in step now; adaptive: probing the other one in
    // this step, the current one's recent interaction seconds per step, the next probe's step.
    bool in_step_now_ = false;
    bool adaptive_ = false;
    bool probing_ = false;
    double interaction_mean_ = 0.0;
    std::uint64_t next_probe_ = 64;
    std::uint64_t in_step_steps_ = 0;
    static constexpr std::uint64_t probe_interval = 500;
    void adapt_interaction(double interaction_seconds);

    std::shared_ptr<SnapshotPool<D>> snapshots_;

    // gauges: query points and their sums (grown on demand, never in a step), a key for fronts
    DeviceArray<Vec<D>> gauge_points_;
    DeviceArray<float> fraction_grid_; ///< sample_fraction_grid's φ (grown on demand)
    std::size_t fraction_capacity_ = 0;
    static constexpr int front_keys = GaugeResultPool<D>::front_keys;
    DeviceArray<std::uint32_t> front_keys_;
    std::size_t gauge_capacity_ = 0, front_capacity_ = 0;
    /// Pinned results of pending samples; their device time is a stage of its own.
    std::shared_ptr<GaugeResultPool<D>> gauge_results_;
    std::vector<std::array<float, 3>> uploaded_gauge_points_; ///< what gauge_points_ holds
    // wall sensors' points, as gauge_points_; a request of a prefix of them uploads nothing
    DeviceArray<Vec<D>> wall_points_;
    std::size_t wall_capacity_ = 0;
    std::vector<std::array<float, 3>> uploaded_wall_points_;
    // bodies of force samples (physics/forces.h) and their sums, grown on demand
    DeviceArray<DeviceBody<D>> bodies_;
    DeviceArray<double> body_sums_;
    std::size_t body_capacity_ = 0;
    std::vector<GaugeRequest::Body> uploaded_bodies_; ///< what bodies_ holds
    bool view_ready_ = false; ///< view_ matches the state's order (false before the first build)
    /// Kept lists (one process): a gauge sample runs on gauge_stream_, beside the next step's
    /// passes that only read the state (runs_beside_gauges), so that a run's per-step sample (the
    /// averaged wall sensors) does not hold the step back; gauge_reads_ marks the end of the
    /// last one, and the first pass that writes what it reads waits for it
    /// (fence_gauge_reads). Otherwise stream_ takes the samples.
    cudaStream_t gauge_stream_ = nullptr;
    cudaEvent_t state_ready_ = nullptr, gauge_reads_ = nullptr;
    bool gauge_reads_pending_ = false;
    /// Gauge samples (GaugeResultPool::begun()) that stream_ is ordered after: complete once it
    /// is waited for.
    std::uint64_t samples_fenced_ = 0;
    /// stream_ waits for the last gauge sample on gauge_stream_ to finish reading the state.
    void fence_gauge_reads();

    double fluid_height_; ///< H_max at t = 0 (m), kept for save_state
    double time_ = 0.0, dt_ = 0.0;
    std::uint64_t steps_ = 0;
    std::uint32_t binned_;
    std::uint32_t recorded_exclusions_ = 0; ///< particles excluded at the last record_exclusions
    ExclusionLog exclusions_;

    // several GPUs (class comment); comm_ null with one
    const Communicator* comm_ = nullptr;
    SlabDecomposition slabs_;
    std::uint64_t total_particles_ = 0;
    std::uint32_t capacity_ = 0; ///< particles every per-particle array holds
    std::unique_ptr<NcclComm> nccl_;
    DeviceArray<std::uint32_t> tags_[2]; ///< with motion_/id_: current_
    DeviceArray<std::uint8_t> keys_[2];
    DeviceArray<std::uint32_t> order_[3]; ///< sort input; migration's and the halo's outputs
    DeviceArray<unsigned char> sort_temp_;
    std::size_t sort_temp_bytes_ = 0;
    DeviceArray<std::uint32_t> class_counts_;
    PinnedArray<std::uint32_t> host_counts_;
    DeviceArray<ParticleRecord<D>> send_records_, receive_records_;
    DeviceArray<std::uint32_t> halo_index_, sent_index_;
    std::uint32_t sent_below_ = 0, sent_above_ = 0, received_below_ = 0, received_above_ = 0;
    double balanced_seconds_ = 0.0; ///< this process's work (s) at the last balance
    bool faces_moved_ = false;      ///< balance() moved the faces: the next exchange() migrates
    DeviceArray<std::uint32_t> column_counts_; ///< balance(): fluid, boundary per bin column
    float largest_speed_ = 0.0f; ///< m/s, owned fluid over every process, after the last step

    // Dry wall particles (CudaOptions::skip_dry_walls; symplectic, reorder, the default
    // physics, walls at rest): per particle the fluid travel (m) below which it needs no
    // query (DryWalls), with motion_/id_: current_; the travel itself, √3 × each step's largest
    // move along an axis, summed (double, on the device).
    bool dry_walls_ = false;
    /// mDBC (symplectic, reorder): the BoundaryCondition pass skips wall particles whose ghost
    /// node is certified dry the same way (DryWalls; boundary_condition_kernels.cuh), with the
    /// same per-particle certificates and travel.
    bool dry_ghosts_ = false;
    /// The certificates and the fluid's travel are kept (for dry walls or dry ghost nodes).
    bool tracks_travel() const { return dry_walls_ || dry_ghosts_; }
    DeviceArray<float> dry_until_[2];
    DeviceArray<double> travel_;
    float dry_margin_ = 0.0f; ///< m: how far beyond R the build pass looks for fluid

    // The corrector's neighbour lists (CorrectorNeighbours::lists, NeighbourLists): entries
    // per particle, the bound on dt (s), the largest fluid speed of the state (m/s, rounded
    // up), the steps whose corrector read them.
    bool lists_ = false;
    /// DBC, and every wall particle's velocity is 0 (it stays so) or given by its object's
    /// motion: its derivatives are 0 without fluid within R (dry walls).
    bool walls_at_rest_ = false;
    DeviceArray<std::uint32_t> list_indices_, list_counts_;
    std::uint32_t list_capacity_ = 0;
    float list_dt_bound_ = 0.0f;
    float list_speed_max_ = 0.0f;
    std::uint64_t corrector_list_steps_ = 0;
    // Kept lists (CudaOptions::list_skin): their skin (m), the largest move in space
    // since their build after the last step (device; where the particles were at the build is
    // the builder's sorted copy, untouched until the next build), whether the next step builds,
    // and how many steps the lists have served since their build (0: this step built them).
    bool keep_lists_ = false;
    float list_skin_ = 0.0f;
    DeviceArray<float> list_moved_;
    bool build_next_ = true;
    std::uint32_t list_age_ = 0;
    /// mDBC with kept lists and walls at rest: a wall particle's slot of the lists holds its
    /// ghost node's list, which the BoundaryCondition pass reads (GhostNodeLists).
    bool ghost_lists_ = false;
    /// The mDBC pass's wall particles (ghost_walls_) are those of the last build's order.
    bool ghost_walls_selected_ = false;
    std::uint64_t ghost_list_nodes_ = 0; ///< BackendCounters::ghost_node_list_reads
    /// s: what no step's dt exceeds, cfl · h / c0 (time_step, integrators.h), in double from
    /// the same float constants.
    double dt_ceiling() const {
        return plan_.cfl * static_cast<double>(plan_.fluid.h) / static_cast<double>(plan_.fluid.c0);
    }
    std::uint64_t kept_list_steps_ = 0, list_walks_ = 0;
};

} // namespace sluice::gpu
