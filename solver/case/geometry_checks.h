#pragma once
/// \file geometry_checks.h
/// The geometric rules of a case, apart from how it was written: fluid lies inside the tank and
/// overlaps neither other fluid nor obstacles; a given domain contains every region; the default
/// domain. The case reader calls them once the boxes are read; errors are CaseError at the line
/// of the region (or the <domain> element) at fault.

#include "case/case_model.h"

#include <string>

namespace sluice {

/// "[x z] .. [x z]" (2D) or "[x y z] .. [x y z]" (3D), m, for messages.
std::string describe_box(const Case& c, const Box& b);

/// The tank box grown by its wall layers on every chosen face (m).
Box tank_with_walls(const TankWalls& t, double dp);

/// Every fluid box lies inside the tank interior (when there is a tank) and overlaps no other
/// fluid box and no obstacle; dp·1e-6 of rounding is allowed.
/// \throws CaseError at the fluid's line naming both boxes.
void check_fluid_placement(const Case& c);

/// c.domain contains every fluid box, obstacle and the tank with its wall layers.
/// \throws CaseError at `domain_where` naming the domain and the region outside it.
void check_domain(const Case& c, const SourceLocation& domain_where);

/// The bounding box of everything that holds particles, with the boxes moving objects sweep up
/// to the run's end time (case/motion_table.h), grown by 10 % of its largest extent on every side
/// (y stays 0 in 2D). Needs at least one fluid box.
Box default_domain(const Case& c);

} // namespace sluice
