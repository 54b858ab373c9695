#pragma once
/// \file body_table.h
/// A case's floating objects (case/floating_model.h) as physics/rigid_body.h integrates them:
/// each body's mass, centre of mass and inertia (as given, or from its shape's volume:
/// case/mass_properties.h), its constraints, springs and contact constants, and the draft at
/// which it floats in still water (what `sluice check` prints).

#include "case/case_model.h"
#include "case/particles.h"
#include "io/checkpoint.h"
#include "io/gauge_samples.h"
#include "physics/body_loads.h"
#include "physics/rigid_body.h"

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// A floating object's mass properties (2D: per unit width).
struct BodyMass {
    double mass = 0.0;                                 ///< kg (2D: kg/m)
    Eigen::Vector3d center = Eigen::Vector3d::Zero();  ///< m, at t = 0
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero(); ///< kg·m² about the centre (2D: yy)
    double volume = 0.0; ///< m³ (2D: m²) of its shape: what it displaces fully submerged
    bool mass_given = false, center_given = false, inertia_given = false;
};

/// The mass properties of obstacle o (o.object.floating set): the case's, completed from the
/// shape's volume with a uniform density (mass / volume; the shape's whole volume, also for an
/// obstacle filled only with a shell of `layers`).
BodyMass body_mass(const Case& c, const Obstacle& o);

/// Where a floating obstacle would float in still fluid of density rho0, upright as generated
/// (its own centre of mass does not enter): the level of the free surface (m), nothing when it
/// sinks (mass ≥ rho0 × volume).
std::optional<double> floating_level(const Case& c, const Obstacle& o, const BodyMass& m);

/// The floating objects of a case in boundary-object order, as the backends take them.
struct BodyTables {
    std::vector<RigidBodyData> bodies;
    std::vector<SpringData> springs;
    std::vector<std::string> names;
    /// Per body, what its particles' contacts need (physics/body_loads.h): its ids, a particle's
    /// share of its mass M / (its particle count) and the damping ratio of its restitution.
    std::vector<BodyContactData> contact;
    /// Per boundary id below the last body's: 1 for a body particle buried in its own body, one
    /// whose ball of radius 2h + dp (the support, which holds the contacts' reach dp, and a
    /// spacing more)
    /// is full of its body's particles, so that no other particle can come within reach of it
    /// and its share of the loads is zero; the BodyLoads pass visits only the others. A body whose
    /// particles are not all on one lattice of spacing dp has none buried.
    std::vector<std::uint8_t> buried;
    bool empty() const { return bodies.empty(); }
};

/// From the case and its boundary particles as generated (boundary_positions(c, &objects)):
/// each body's particles are those ids, its radius their largest distance from its centre.
/// \throws std::invalid_argument when a floating object has no particle at the case's dp.
BodyTables make_body_tables(const Case& c, const std::vector<Eigen::Vector3d>& reference,
                            const std::vector<ObjectIds>& objects);

/// The bodies' states a simulation starts from: a saved state's (SimulationState::body_states),
/// or at t = 0 without any, the initial ones (initial_body_state).
/// \throws std::invalid_argument when a saved state after t = 0 holds no bodies' states (a
///         checkpoint of a case without them, or of an older sluice) or not as many as the case
///         has bodies.
std::vector<BodyState> starting_body_states(const BodyTables& t, const SimulationState& state);

/// The bodies' states and loads as a gauge sample answers them (GaugeResponse::floating).
std::vector<FloatingSample> floating_samples(const std::vector<BodyState>& states,
                                             const std::vector<BodyLoads>& loads);

/// The bodies' states as SimulationState::body_states keeps them.
std::vector<double> saved_body_states(const std::vector<BodyState>& states);

} // namespace sluice
