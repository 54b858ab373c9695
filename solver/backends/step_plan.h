#pragma once
/// \file step_plan.h
/// What a time step does, decided once from the case by backend-neutral code (DESIGN.md, The
/// step): the physics constants, the kernel, the neighbour traversal and its effective layout,
/// the grid over the domain, the density bounds, where the corrector finds its neighbours, and
/// the ordered list of passes. Each backend executes the plan pass by pass, a file per pass under
/// the same name in cpu/ and cuda/ (solver/ARCHITECTURE.md):
///
/// | pass             | cpu/              | cuda/               |
/// |------------------|-------------------|---------------------|
/// | Exchange         | exchange.cpp      | exchange.cu         |
/// | Construction     | construction.cpp  | construction.cu     |
/// | BoundaryCondition| boundary_condition.cpp | boundary_condition.cu |
/// | ReuseStructure   | construction.cpp  | construction.cu     |
/// | Interaction      | interaction.cpp   | interaction.cu      |
/// | BodyLoads        | bodies.cpp        | bodies.cu           |
/// | TimeStep         | integration.cpp   | integration.cu      |
/// | Integration      | integration.cpp   | integration.cu      |
/// | Motion           | motion.cpp        | motion.cu           |
/// | Damping          | motion.cpp        | motion.cu           |
/// | HaloRefresh      | exchange.cpp      | exchange.cu         |
/// | Checks           | checks.cpp        | checks.cu           |
/// | Balance          | exchange.cpp      | exchange.cu         |
///
/// A backend visits StepPlan::passes with one overload per pass type (std::visit), so a pass
/// added here and not implemented by a backend does not compile. Plans are made on the host, once;
/// nothing here runs on the device.

#include "backends/backend_options.h"
#include "case/case_model.h"
#include "case/constants.h"
#include "case/domain_grid.h"
#include "neighbours/grid.h"
#include "neighbours/module.h"
#include "physics/contact.h"
#include "physics/damping.h"
#include "physics/kernels.h"
#include "physics/mdbc.h"
#include "physics/physics.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace sluice {

/// Which interaction pass of a step: the symplectic predictor's on a fresh build (the CUDA
/// backend looks at dry wall particles and writes the corrector's lists there), the corrector's
/// (it reads them), or Verlet's only pass.
enum class InteractionRole { predictor, corrector, verlet };

/// Which integration of a step (integrators.h).
enum class IntegrationStage { predict, correct, verlet };

/// The passes of a step. Each is a value; the backends' executors take them in the plan's order.
namespace pass {
/// Several processes: the halo is dropped, particles that crossed a slab face migrate to their
/// new owner, and a new halo is received (stages `migration`, `halo`).
struct Exchange {};
/// The neighbour structure on the state's positions (stage `construction`) and, in the reorder
/// layout, every particle array gathered into its order (`reorder`).
struct Construction {};
/// mDBC (physics/mdbc.h): every owned wall particle with a ghost node takes its density and
/// velocity from the fluid around that node, through the structure just built (`boundary`).
/// Once a step, before the first interaction pass; the corrector's pass reads the same values.
struct BoundaryCondition {};
/// The corrector's neighbours without a build: the predictor's structure over the predicted
/// positions, widened by the largest move since the build (query.h's skin; exact).
struct ReuseStructure {};
/// The pair sums: accelerations, density rates and the pass's maxima (`interaction`).
struct Interaction {
    InteractionRole role = InteractionRole::predictor;
};
/// Floating bodies (physics/rigid_body.h): after an interaction pass, each body's loads from its
/// particles' pair terms with the fluid (physics/forces.h) and their contacts (physics/
/// contact.h), summed over every process, at the state that pass saw (stage `motion`). The
/// Motion pass after the next integration integrates the bodies with them.
struct BodyLoads {};
/// dt from the last interaction pass's maxima (CFL, force and viscous limits; over every
/// process).
struct TimeStep {};
/// The particles advance (`integration`).
struct Integration {
    IntegrationStage stage = IntegrationStage::predict;
};
/// Moving boundaries (physics/motion.h): after an integration, every wall particle of a moving
/// object takes its position and velocity from its object's motion at the integration's time,
/// t + dt/2 after the predictor, t + dt after the corrector or the Verlet step (`motion`); a
/// floating body's motion is first integrated over the same stage with the last BodyLoads. With
/// mDBC its velocity stays the BoundaryCondition pass's (the wall's own enters through the
/// motion, physics.h).
struct Motion {
    IntegrationStage stage = IntegrationStage::correct;
};
/// Damping zones (physics/damping.h): after the step's last integration the fluid's velocity
/// relaxes in each zone (`integration`).
struct Damping {};
/// Several processes: the halo copies take their owners' state (`halo`): at n+½, after the
/// predictor's integration, or (`on_build`) after the BoundaryCondition pass, when the positions
/// the last build read are the state's (the CUDA backend's reorder layout keeps them apart).
struct HaloRefresh {
    bool on_build = false;
};
/// The end of the step: the clock advances, a non-physical state fails, particles that left the
/// domain are excluded and reported (`checks`).
struct Checks {};
/// Several processes, every balance_interval steps: the slab faces move towards equal work.
struct Balance {};
} // namespace pass

using StepPass =
    std::variant<pass::Exchange, pass::Construction, pass::BoundaryCondition, pass::ReuseStructure,
                 pass::Interaction, pass::BodyLoads, pass::TimeStep, pass::Integration,
                 pass::Motion, pass::Damping, pass::HaloRefresh, pass::Checks, pass::Balance>;

/// The pass's name, for traces and for the architecture page.
const char* pass_name(const StepPass& p);

template <int D>
using KernelVariant = std::variant<WendlandC2<D>, CubicSpline<D>>;

template <int D>
KernelVariant<D> make_kernel(KernelKind kind, double h) {
    if (kind == KernelKind::wendland_c2)
        return WendlandC2<D>(h);
    return CubicSpline<D>(h);
}

/// What a backend can do beyond the common plan (make_step_plan's input).
struct PlanRequest {
    /// The corrector's neighbours asked for (CudaOptions::corrector); a backend without lists
    /// asks for `reuse`.
    CorrectorNeighbours corrector = CorrectorNeighbours::reuse;
    /// The backend can write and read the lists with its chosen interaction kernel.
    bool lists_available = false;
    bool several_processes = false;
};

/// Where the symplectic corrector finds its neighbours (StepPlan::corrector): lists where asked
/// for and the traversal visits bins in bin order over a reorder layout (the lists keep the
/// walk's order), else the predictor's structure where the layout is reorder, else a new build
/// (and `rebuild` for Verlet). A backend may need it before its plan (the halo's width over
/// several GPUs depends on whether the lists are kept).
CorrectorNeighbours corrector_neighbours(const Case& c, const PlanRequest& request);

template <int D>
struct StepPlan {
    FluidConstants fluid;
    KernelVariant<D> kernel;
    Construction construction = Construction::counting_sort;
    QueryTag query{};
    /// The module's layout: a linked list always reads through the index (validated, module.h).
    Layout layout = Layout::reorder;
    GridSpec<D> grid{};  ///< bins over Case::domain: a particle outside it is excluded
    float radius = 0.0f; ///< search radius R = 2h (m)
    IntegratorKind integrator = IntegratorKind::symplectic;
    WallSlip slip = WallSlip::no_slip; ///< mDBC
    int verlet_reset_steps = 40;
    double cfl = 0.2;
    float density_min = 0.0f, density_max = 0.0f; ///< kg/m³: outside, the step fails
    /// Symplectic: where the corrector's pass finds its neighbours (index layouts: `rebuild`).
    /// Verlet: `rebuild` (one pass, one build).
    CorrectorNeighbours corrector = CorrectorNeighbours::rebuild;
    bool several_processes = false;
    int balance_interval = 0; ///< steps between load balances over several processes; 0 none
    /// Some boundary object moves (the plan has Motion passes; case/motion_table.h).
    bool moving_walls = false;
    /// m/s: no point of a moving object is faster over the run (MotionTables::speed_bound).
    float wall_speed_bound = 0.0f;
    std::vector<DampingZoneData<D>> damping; ///< the Damping pass's zones (none: no pass)
    /// Floating bodies (the plan has BodyLoads passes; case/body_table.h) and their contacts.
    bool floating = false;
    ContactConstants contact{};
    std::vector<StepPass> passes{};

    bool symplectic() const { return integrator == IntegratorKind::symplectic; }
    /// mDBC: wall particles take no continuity sum (their density is the BoundaryCondition
    /// pass's) and the plan has that pass; DBC: neither.
    bool modified_walls() const { return !fluid.wall_continuity; }
    /// The constants of an interaction pass: the plan's, but the symplectic predictor's pass
    /// takes no shifting (the shift moves the particles once per step, with the corrector or
    /// the Verlet step; integrators.h), so it runs the default physics' fixed model where the
    /// rest matches it.
    FluidConstants interaction_constants(InteractionRole role) const {
        FluidConstants c = fluid;
        if (role == InteractionRole::predictor)
            c.shifting.on = false;
        return c;
    }
    /// Verlet: whether step `steps` (0-based) is a reset step (forward Euler velocities).
    bool verlet_resets(std::uint64_t steps) const {
        return steps % static_cast<std::uint64_t>(verlet_reset_steps) == 0;
    }
    /// The corrector's pass walks the predictor's structure (reuse or lists).
    /// Several processes: whether the Balance pass moves the faces after step `steps`.
    bool balances_after(std::uint64_t steps) const {
        return balance_interval > 0 && steps % static_cast<std::uint64_t>(balance_interval) == 0;
    }
    bool corrector_reuses() const {
        return symplectic() && corrector != CorrectorNeighbours::rebuild;
    }
};

/// The plan of case c with constants `derived` (from its particles or its saved state).
/// Symplectic: [Exchange] Construction {BoundaryCondition [HaloRefresh]} Interaction(predictor)
/// «BodyLoads» TimeStep Integration(predict) <Motion> [HaloRefresh] Construction|ReuseStructure
/// Interaction(corrector) «BodyLoads» Integration(correct) <Motion> (Damping) Checks [Balance];
/// Verlet: [Exchange] Construction {BoundaryCondition [HaloRefresh]} Interaction(verlet)
/// «BodyLoads» TimeStep Integration(verlet) <Motion> (Damping) Checks [Balance]. The bracketed
/// passes run over several processes only (the HaloRefresh after BoundaryCondition gives the
/// halo copies of wall particles their owners' new values); the braced ones with mDBC only, the
/// angled ones with moving boundaries (floating bodies among them), the «» ones with floating
/// bodies, the parenthesised one with damping zones.
/// \throws std::invalid_argument when the neighbour module is not one there is
///         (validate_neighbour_module) or the grid over the domain is invalid (make_grid).
template <int D>
StepPlan<D> make_step_plan(const Case& c, const DerivedConstants& derived,
                           const PlanRequest& request);

} // namespace sluice
