#pragma once
/// \file force_plan.h
/// The named boundary objects of a case (ObjectProperties::name) turned into the bodies of a
/// gauge request and its answers into forces.csv columns: per body the force of the fluid on it
/// and the moment about its point (physics/forces.h), NAME.Fx NAME.Fy NAME.Fz NAME.Mx NAME.My
/// NAME.Mz in 3D (N, N·m), NAME.Fx NAME.Fz NAME.My in 2D (per unit width: N/m, N·m/m).

#include "case/case_model.h"
#include "case/gauge_plan.h"
#include "case/particles.h"
#include "io/gauge_samples.h"

#include <functional>
#include <vector>

namespace sluice {

class ForcePlan {
public:
    /// `objects`: each boundary object's ids (boundary_positions(c, &objects)).
    ForcePlan(const Case& c, const std::vector<ObjectIds>& objects);

    bool empty() const { return request_.bodies.empty(); }
    /// A request with the bodies only.
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
