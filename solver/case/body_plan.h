#pragma once
/// \file body_plan.h
/// A case's floating objects as the columns of bodies.csv (cases/README.md, "bodies.csv"): per
/// body NAME its centre of mass, orientation (unit quaternion and roll, pitch, yaw), velocity
/// and angular velocity, the fluid's force and moment about the centre, and the springs' and
/// contacts' forces, from a gauge sample (GaugeRequest::floating).
///
/// 3D: NAME.x .y .z (m), .qw .qx .qy .qz, .roll .pitch .yaw (degrees; z–y–x Tait–Bryan angles
/// of the rotation from the pose at t = 0: R = R_z(yaw) R_y(pitch) R_x(roll)), .vx .vy .vz (m/s),
/// .wx .wy .wz (rad/s), .Fx .Fy .Fz (N), .Mx .My .Mz (N·m), .spring_Fx … , .contact_Fx … (N).
/// 2D (per unit width): NAME.x .z, .qw .qy, .pitch (the turn about y, degrees), .vx .vz, .wy, .Fx
/// .Fz (N/m), .My (N·m/m), .spring_Fx .spring_Fz, .contact_Fx .contact_Fz.

#include "case/case_model.h"
#include "case/gauge_plan.h"
#include "io/gauge_samples.h"

#include <array>
#include <vector>

namespace sluice {

/// Roll, pitch and yaw (rad) of unit quaternion q (w, x, y, z) (the file comment).
std::array<double, 3> roll_pitch_yaw(const double* q);

class BodyPlan {
public:
    explicit BodyPlan(const Case& c);

    bool empty() const { return columns_.empty(); }
    const GaugeRequest& request() const { return request_; }
    const std::vector<GaugeColumn>& columns() const { return columns_; }
    /// One value per column.
    std::vector<double> evaluate(const GaugeResponse& response) const;

private:
    int dimension_;
    GaugeRequest request_;
    std::vector<GaugeColumn> columns_;
};

} // namespace sluice
