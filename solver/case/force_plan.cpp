#include "case/force_plan.h"

#include <string>

namespace sluice {

ForcePlan::ForcePlan(const Case& c, const std::vector<ObjectIds>& objects)
    : dimension_(c.dimension) {
    const std::vector<BoundaryObjectRef> refs = boundary_objects(c);
    const bool three = c.dimension == 3;
    const std::string force_unit = three ? "N" : "N/m", moment_unit = three ? "N*m" : "N*m/m";
    for (std::size_t k = 0; k < refs.size() && k < objects.size(); ++k) {
        const ObjectProperties& p = *refs[k].properties;
        if (p.name.empty())
            continue;
        GaugeRequest::Body body;
        body.first_id = objects[k].first;
        body.id_count = objects[k].count;
        body.object = static_cast<std::uint32_t>(k);
        const Eigen::Vector3d point =
            p.moment_point ? *p.moment_point
                           : Eigen::Vector3d(0.5 * (refs[k].box.min + refs[k].box.max));
        body.moment_point = {static_cast<float>(point.x()), static_cast<float>(point.y()),
                             static_cast<float>(point.z())};
        request_.bodies.push_back(body);
        for (const char* axis :
             three ? std::vector<const char*>{"x", "y", "z"} : std::vector<const char*>{"x", "z"})
            columns_.push_back({p.name + ".F" + axis, force_unit});
        for (const char* axis :
             three ? std::vector<const char*>{"x", "y", "z"} : std::vector<const char*>{"y"})
            columns_.push_back({p.name + ".M" + axis, moment_unit});
    }
}

std::vector<double> ForcePlan::evaluate(const GaugeResponse& response) const {
    std::vector<double> row;
    for (const std::array<double, 6>& f : response.forces) {
        if (dimension_ == 3) {
            row.insert(row.end(), f.begin(), f.end());
        } else {
            row.push_back(f[0]);
            row.push_back(f[2]);
            row.push_back(f[4]);
        }
    }
    return row;
}

} // namespace sluice
