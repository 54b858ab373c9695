#pragma once
/// \file floating_model.h
/// The case model of floating objects (cases/README.md, "<floating>"): an obstacle that the
/// water moves, with its mass (or density), optional centre of mass and inertia (else from its
/// shape's volume, case/mass_properties.h), the degrees of freedom it keeps, a hinge, springs,
/// a release time and its contacts. case/floating_reader.cpp fills and checks it;
/// case/body_table.h turns it into what physics/rigid_body.h integrates.
///
/// Units are SI; 2D bodies are per unit width (mass kg/m, inertia kg·m²/m, spring stiffness
/// N/m per m). Points are case points (2D: y = 0).

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// A linear spring with a dashpot from a point of the body to a fixed point (`anchor`) or to a
/// point of another floating body (`body`, `body_point`): physics/rigid_body.h, SpringData.
struct FloatingSpring {
    Eigen::Vector3d point = Eigen::Vector3d::Zero();      ///< m, on this body at t = 0
    std::optional<Eigen::Vector3d> anchor;                ///< m, fixed in space
    std::string body;                                     ///< the other body's name (no anchor)
    Eigen::Vector3d body_point = Eigen::Vector3d::Zero(); ///< m, on it at t = 0
    double stiffness = 0.0;                               ///< N/m (2D: N/m per m of width)
    double damping = 0.0;                                 ///< N·s/m (2D: per m of width)
    std::optional<double> rest_length;                    ///< m; absent: the distance at t = 0
    bool slack = false; ///< a line: pulls only when longer than its rest length
    int line = 0;
};

/// A hinge: the body turns only about the line through `point` along `axis` (2D: y).
struct FloatingHinge {
    Eigen::Vector3d point = Eigen::Vector3d::Zero(); ///< m
    Eigen::Vector3d axis = Eigen::Vector3d::UnitY(); ///< unit vector
    int line = 0;
};

/// The degrees of freedom that `fixed` holds: world axes of translation and of rotation.
enum FloatingFreedom : unsigned {
    fixed_x = 1u << 0,
    fixed_y = 1u << 1,
    fixed_z = 1u << 2,
    fixed_rx = 1u << 3,
    fixed_ry = 1u << 4,
    fixed_rz = 1u << 5,
};

struct Floating {
    std::optional<double> mass;             ///< kg (2D: kg/m); exactly one of mass and density
    std::optional<double> density;          ///< kg/m³: mass = density × the shape's volume
    std::optional<Eigen::Vector3d> center;  ///< m, centre of mass at t = 0; absent: the shape's
    std::optional<Eigen::Matrix3d> inertia; ///< kg·m² about the centre; absent: the shape's
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero();         ///< m/s at release
    Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero(); ///< rad/s at release
    unsigned fixed = 0; ///< FloatingFreedom bits (2D: y, rx and rz always held)
    std::optional<FloatingHinge> hinge;
    std::vector<FloatingSpring> springs;
    double start = 0.0;       ///< s: held until then
    double restitution = 0.5; ///< of its contacts with walls and other bodies, in (0, 1]
    int line = 0;             ///< of <floating>
};

} // namespace sluice
