#include "backends/step_plan.h"

#include "case/motion_table.h"
#include "case/state_conversion.h"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace sluice {

namespace {

struct PassName {
    const char* operator()(pass::Exchange) const { return "exchange"; }
    const char* operator()(pass::Construction) const { return "construction"; }
    const char* operator()(pass::BoundaryCondition) const { return "boundary condition"; }
    const char* operator()(pass::ReuseStructure) const { return "reuse structure"; }
    const char* operator()(pass::Interaction p) const {
        return p.role == InteractionRole::predictor   ? "interaction (predictor)"
               : p.role == InteractionRole::corrector ? "interaction (corrector)"
                                                      : "interaction (verlet)";
    }
    const char* operator()(pass::BodyLoads) const { return "body loads"; }
    const char* operator()(pass::TimeStep) const { return "time step"; }
    const char* operator()(pass::Integration p) const {
        return p.stage == IntegrationStage::predict   ? "integration (predict)"
               : p.stage == IntegrationStage::correct ? "integration (correct)"
                                                      : "integration (verlet)";
    }
    const char* operator()(pass::Motion p) const {
        return p.stage == IntegrationStage::predict ? "motion (half step)" : "motion";
    }
    const char* operator()(pass::Damping) const { return "damping"; }
    const char* operator()(pass::HaloRefresh p) const {
        return p.on_build ? "halo refresh (walls)" : "halo refresh";
    }
    const char* operator()(pass::Checks) const { return "checks"; }
    const char* operator()(pass::Balance) const { return "balance"; }
};

std::vector<StepPass> passes_of(bool symplectic, bool several, bool modified_walls,
                                CorrectorNeighbours corrector, bool moving, bool floating,
                                bool damping) {
    // Floating bodies' loads after each interaction pass, from the state it saw.
    const auto interact = [&](std::vector<StepPass>& passes, InteractionRole role) {
        passes.emplace_back(pass::Interaction{role});
        if (floating)
            passes.emplace_back(pass::BodyLoads{});
    };
    // Moving walls follow every integration (before a halo refresh reads them), damping the last.
    const auto integrate = [&](std::vector<StepPass>& passes, IntegrationStage stage) {
        passes.emplace_back(pass::Integration{stage});
        if (moving)
            passes.emplace_back(pass::Motion{stage});
        if (damping && stage != IntegrationStage::predict)
            passes.emplace_back(pass::Damping{});
    };
    std::vector<StepPass> passes;
    if (several)
        passes.emplace_back(pass::Exchange{});
    passes.emplace_back(pass::Construction{});
    if (modified_walls) {
        passes.emplace_back(pass::BoundaryCondition{});
        if (several)
            passes.emplace_back(pass::HaloRefresh{true});
    }
    if (symplectic) {
        interact(passes, InteractionRole::predictor);
        passes.emplace_back(pass::TimeStep{});
        integrate(passes, IntegrationStage::predict);
        if (several)
            passes.emplace_back(pass::HaloRefresh{});
        if (corrector == CorrectorNeighbours::rebuild)
            passes.emplace_back(pass::Construction{});
        else
            passes.emplace_back(pass::ReuseStructure{});
        interact(passes, InteractionRole::corrector);
        integrate(passes, IntegrationStage::correct);
    } else {
        interact(passes, InteractionRole::verlet);
        passes.emplace_back(pass::TimeStep{});
        integrate(passes, IntegrationStage::verlet);
    }
    passes.emplace_back(pass::Checks{});
    if (several)
        passes.emplace_back(pass::Balance{});
    return passes;
}

} // namespace

CorrectorNeighbours corrector_neighbours(const Case& c, const PlanRequest& request) {
    if (c.physics.integrator != IntegratorKind::symplectic || c.neighbours.layout == Layout::index)
        return CorrectorNeighbours::rebuild;
    const bool label_order =
        std::visit([](auto q) { return detail::in_label_order<decltype(q)>; }, c.neighbours.query);
    if (request.corrector == CorrectorNeighbours::lists &&
        (label_order || !request.lists_available))
        return CorrectorNeighbours::reuse;
    return request.corrector;
}

const char* pass_name(const StepPass& p) {
    return std::visit(PassName{}, p);
}

template <int D>
StepPlan<D> make_step_plan(const Case& c, const DerivedConstants& derived,
                           const PlanRequest& request) {
    validate_neighbour_module(c.neighbours); // a linked list reads through the index, …
    StepPlan<D> p{make_fluid_constants(c, derived), make_kernel<D>(c.physics.kernel, derived.h)};
    if (p.fluid.shifting.on) { // the free-surface ramp's interior value (physics/shifting.h)
        ShiftingConstants& s = p.fluid.shifting;
        s.interior_divergence = std::visit(
            [&](const auto& k) {
                return lattice_position_divergence<D>(k, static_cast<float>(c.dp));
            },
            p.kernel);
        if (!(s.surface_threshold < s.interior_divergence))
            throw std::invalid_argument(
                "shiftingSurface " + std::to_string(s.surface_threshold) +
                " is not below the divergence of position inside the fluid for this kernel and "
                "h, " +
                std::to_string(s.interior_divergence) + ": shifting would never act");
    }
    p.construction = c.neighbours.construction;
    p.query = c.neighbours.query;
    p.layout = c.neighbours.layout;
    p.grid = domain_grid<D>(c, derived.support);
    p.radius = static_cast<float>(derived.support);
    if (p.construction == Construction::linked_list_tight &&
        !detail::tight_grid_supported(p.grid, p.radius))
        throw std::invalid_argument(
            "neighbour construction linked-list-tight cannot list this domain exactly: its box "
            "of edge R spans more than 4 bins per axis in float (the domain lies 2^20 bins or "
            "more from the origin); use linked-list");
    p.integrator = c.physics.integrator;
    p.slip = wall_slip(c.physics) == SlipKind::no_slip ? WallSlip::no_slip : WallSlip::free_slip;
    p.verlet_reset_steps = c.physics.verlet_reset_steps;
    p.cfl = c.constants.cfl;
    p.density_min = static_cast<float>(c.physics.density_min_ratio * c.constants.rho0);
    p.density_max = static_cast<float>(c.physics.density_max_ratio * c.constants.rho0);
    p.corrector = corrector_neighbours(c, request);
    if (c.physics.formulation == FormulationKind::riemann &&
        c.physics.integrator == IntegratorKind::verlet)
        throw std::invalid_argument("formulation=\"riemann\" needs the symplectic integrator: "
                                    "Verlet's leapfrog amplifies the Riemann solver's dissipation");
    p.several_processes = request.several_processes;
    p.balance_interval = request.several_processes ? c.run.balance_interval : 0;
    if (has_motion(c)) {
        p.moving_walls = true;
        p.wall_speed_bound =
            static_cast<float>(make_motion_tables(c, c.run.end_time).speed_bound * (1.0 + 1e-6));
    }
    for (const DampingZone& z : c.damping) {
        DampingZoneData<D> d;
        const Eigen::Vector3d along = (z.end - z.start) / (z.end - z.start).squaredNorm();
        d.start = from_array3<D>({static_cast<float>(z.start.x()), static_cast<float>(z.start.y()),
                                  static_cast<float>(z.start.z())});
        d.direction = from_array3<D>({static_cast<float>(along.x()), static_cast<float>(along.y()),
                                      static_cast<float>(along.z())});
        d.reduction = static_cast<float>(z.reduction);
        p.damping.push_back(d);
    }
    if (has_floating(c)) {
        p.floating = true;
        // Contacts as stiff as the fluid's step allows (physics/contact.h): √κ = 2π / (40 dt_ref)
        // with dt_ref = cfl h / c0, the acoustic part of the CFL limit (no step is longer).
        const double dt_ref = c.constants.cfl * derived.h / derived.speed_of_sound;
        const double root = 2.0 * 3.14159265358979323846 / (40.0 * dt_ref);
        p.contact.distance = static_cast<float>(c.dp);
        p.contact.rate2 = static_cast<float>(root * root);
    }
    p.passes = passes_of(p.symplectic(), request.several_processes, p.modified_walls(), p.corrector,
                         p.moving_walls, p.floating, !p.damping.empty());
    return p;
}

GridSummary neighbour_grid(const Case& c) {
    const double radius = 2.0 * smoothing_length(c);
    GridSummary g;
    g.dimension = c.dimension;
    g.dims = {1, 1, 1};
    auto fill = [&](const auto& grid, int d) {
        g.bins = 1;
        for (int k = 0; k < d; ++k) {
            g.dims[static_cast<std::size_t>(k)] = grid.dims[k];
            g.bins *= grid.dims[k];
        }
        g.bin_size = grid.bin_size;
    };
    if (c.dimension == 2)
        fill(domain_grid<2>(c, radius), 2);
    else
        fill(domain_grid<3>(c, radius), 3);
    return g;
}

template StepPlan<2> make_step_plan<2>(const Case&, const DerivedConstants&, const PlanRequest&);
template StepPlan<3> make_step_plan<3>(const Case&, const DerivedConstants&, const PlanRequest&);

} // namespace sluice
