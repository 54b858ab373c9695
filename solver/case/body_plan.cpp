#include "case/body_plan.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice {

std::array<double, 3> roll_pitch_yaw(const double* q) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double roll = std::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
    const double pitch = std::asin(std::clamp(2.0 * (w * y - z * x), -1.0, 1.0));
    const double yaw = std::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
    return {roll, pitch, yaw};
}

BodyPlan::BodyPlan(const Case& c) : dimension_(c.dimension) {
    request_.floating = true;
    const bool three = c.dimension == 3;
    const std::string per = three ? "" : "/m";
    const auto add = [&](const std::string& name, std::vector<const char*> suffixes,
                         const std::string& unit) {
        for (const char* s : suffixes)
            columns_.push_back({name + "." + s, unit});
    };
    for (const BoundaryObjectRef& o : boundary_objects(c)) {
        if (!o.properties->floating)
            continue;
        const std::string& n = o.properties->name;
        if (three) {
            add(n, {"x", "y", "z"}, "m");
            add(n, {"qw", "qx", "qy", "qz"}, "1");
            add(n, {"roll", "pitch", "yaw"}, "deg");
            add(n, {"vx", "vy", "vz"}, "m/s");
            add(n, {"wx", "wy", "wz"}, "rad/s");
            add(n, {"Fx", "Fy", "Fz"}, "N");
            add(n, {"Mx", "My", "Mz"}, "N*m");
            add(n, {"spring_Fx", "spring_Fy", "spring_Fz"}, "N");
            add(n, {"contact_Fx", "contact_Fy", "contact_Fz"}, "N");
        } else {
            add(n, {"x", "z"}, "m");
            add(n, {"qw", "qy"}, "1");
            add(n, {"pitch"}, "deg");
            add(n, {"vx", "vz"}, "m/s");
            add(n, {"wy"}, "rad/s");
            add(n, {"Fx", "Fz"}, "N" + per);
            add(n, {"My"}, "N*m" + per);
            add(n, {"spring_Fx", "spring_Fz"}, "N" + per);
            add(n, {"contact_Fx", "contact_Fz"}, "N" + per);
        }
    }
}

std::vector<double> BodyPlan::evaluate(const GaugeResponse& response) const {
    constexpr double degrees = 180.0 / 3.14159265358979323846;
    std::vector<double> row;
    const bool three = dimension_ == 3;
    const auto vector = [&](const double* v) {
        if (three) {
            row.insert(row.end(), v, v + 3);
        } else {
            row.push_back(v[0]);
            row.push_back(v[2]);
        }
    };
    for (const FloatingSample& f : response.floating) {
        vector(f.center);
        if (three) {
            row.insert(row.end(), f.orientation, f.orientation + 4);
            for (double a : roll_pitch_yaw(f.orientation))
                row.push_back(a * degrees);
        } else {
            row.push_back(f.orientation[0]);
            row.push_back(f.orientation[2]);
            // the turn about y, unwrapped to (−180°, 180°]: 2 atan2(q_y, q_w)
            row.push_back(2.0 * std::atan2(f.orientation[2], f.orientation[0]) * degrees);
        }
        vector(f.velocity);
        if (three)
            row.insert(row.end(), f.angular_velocity, f.angular_velocity + 3);
        else
            row.push_back(f.angular_velocity[1]);
        vector(f.fluid_force);
        if (three)
            row.insert(row.end(), f.fluid_moment, f.fluid_moment + 3);
        else
            row.push_back(f.fluid_moment[1]);
        vector(f.spring_force);
        vector(f.contact_force);
    }
    return row;
}

} // namespace sluice
