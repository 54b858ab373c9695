#pragma once
/// \file cases.h
/// Cases built in code for the solver tests (the XML reader is tested on its own).

#include "case/case_model.h"

#include <Eigen/Core>

#include <algorithm>

namespace sluice::test {

/// A wall pressure sensor gauge (<sensor>) at `point` (m), face radius (m), averaged or not.
inline Gauge wall_sensor(const char* name, const Eigen::Vector3d& point, double radius = 0.0,
                         bool average = false) {
    Gauge g;
    g.kind = GaugeKind::sensor;
    g.name = name;
    g.point = point;
    g.radius = radius;
    g.average = average;
    return g;
}

inline Box box(double x0, double z0, double x1, double z1) {
    Box b;
    b.min = Eigen::Vector3d(x0, 0.0, z0);
    b.max = Eigen::Vector3d(x1, 0.0, z1);
    return b;
}

/// A 2D tank with inside [0, width] × [0, height] (walls bottom, left, right, `layers` layers)
/// holding the water box; the domain is the tank's outside grown by 10 % of its largest extent,
/// the case reader's default rule.
inline Case tank_case_2d(double dp, double width, double height, const Box& water, int layers = 3) {
    Case c;
    c.name = "test";
    c.dimension = 2;
    c.dp = dp;
    TankWalls tank;
    tank.box = box(0.0, 0.0, width, height);
    tank.faces = face_bottom | face_left | face_right;
    tank.layers = layers;
    c.tank = tank;
    FluidRegion fluid;
    fluid.box = water;
    c.fluids.push_back(fluid);
    const double wall = layers * dp;
    const double margin = 0.1 * (std::max(width, height) + 2.0 * wall);
    c.domain = box(-wall - margin, -wall - margin, width + wall + margin, height + margin);
    c.run.end_time = 1.0;
    return c;
}

/// A 3D tank open at the top with inside [0, tank] (3 wall layers) holding the water box
/// [0, water] against its corner at the origin, in the given domain.
inline Case tank_case_3d(double dp, const Eigen::Vector3d& tank_max,
                         const Eigen::Vector3d& water_max, const Eigen::Vector3d& domain_min,
                         const Eigen::Vector3d& domain_max) {
    Case c;
    c.name = "test3d";
    c.dimension = 3;
    c.dp = dp;
    TankWalls tank;
    tank.box.max = tank_max;
    tank.faces = face_bottom | face_left | face_right | face_front | face_back;
    tank.layers = 3;
    c.tank = tank;
    FluidRegion water;
    water.box.max = water_max;
    c.fluids = {water};
    c.domain.min = domain_min;
    c.domain.max = domain_max;
    return c;
}

/// Still water 0.5 m deep in a tank 1 m wide, with Fourtakas density diffusion, which keeps
/// the hydrostatic density gradient (Fourtakas et al. 2019); the parameters of
/// cases/still_water2d.xml, spelled out rather than left to Case defaults.
inline Case still_water_case(double dp) {
    Case c = tank_case_2d(dp, 1.0, 0.7, box(0.0, 0.0, 1.0, 0.5));
    c.constants.coefh = 1.0;
    c.constants.coef_sound = 20.0;
    c.constants.cfl = 0.2;
    c.physics.kernel = KernelKind::wendland_c2;
    c.physics.viscosity = ViscosityKind::artificial;
    c.physics.viscosity_value = 0.01;
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    c.physics.diffusion_coef = 0.1;
    return c;
}

/// A moving object's motion for the moving-wall tests: pushed along x at 1 m/s for 0.01 s, then
/// turning at 4 rad/s about `pivot` (m).
inline Motion push_then_turn(const Eigen::Vector3d& pivot) {
    MotionSegment push;
    RectilinearMotion r;
    r.velocity = Eigen::Vector3d(1.0, 0.0, 0.0);
    push.end = 0.01;
    push.motion = r;
    MotionSegment turn;
    turn.start = 0.01;
    RotationMotion spin;
    spin.point = pivot;
    spin.angular_velocity = 4.0;
    turn.motion = spin;
    return Motion{{push, turn}, 0};
}

/// Dam break: a water column 1 m wide and 2 m high against the left wall of a tank 4 m long
/// (Koshizuka & Oka 1996, scaled), tank 3 m high.
inline Case dambreak_case(double dp) {
    return tank_case_2d(dp, 4.0, 3.0, box(0.0, 0.0, 1.0, 2.0));
}

/// The dam break (dambreak_case) with a block `block` in the water that moves
/// (push_then_turn about `pivot`) and a damping zone over 0.5 m ≤ x ≤ 1.5 m: moving wall
/// particles and fast fluid around them.
inline Case moving_block_dambreak(double dp, const Box& block, const Eigen::Vector3d& pivot) {
    Case c = dambreak_case(dp);
    Obstacle o;
    o.box = block;
    o.object.name = "block";
    o.object.motion = push_then_turn(pivot);
    c.obstacles.push_back(o);
    DampingZone zone;
    zone.start = Eigen::Vector3d(0.5, 0.0, 0.0);
    zone.end = Eigen::Vector3d(1.5, 0.0, 0.0);
    c.damping.push_back(zone);
    return c;
}

/// A small 3D dam break: water 0.15 × 0.2 × 0.2 m at the left wall of a tank 0.4 × 0.2 × 0.3 m,
/// h = 1.3 dp as the benchmark's.
inline Case small_dambreak_3d_case(double dp) {
    Case c =
        tank_case_3d(dp, {0.4, 0.2, 0.3}, {0.15, 0.2, 0.2}, {-0.2, -0.2, -0.2}, {0.6, 0.4, 0.5});
    c.name = "dambreak3d-small";
    c.constants.coefh = 0.75; // h = 1.3 dp, as the benchmark
    return c;
}

} // namespace sluice::test
