#pragma once
/// \file case_override.h
/// Command-line overrides of a case read from XML (`--dp`), checked as the reader checks a case.

#include "case/case_model.h"

namespace sluice {

/// Replaces the particle spacing (`--dp`). Everything that follows from dp follows: the lattice
/// and so the particle count, h = coefh·√D·dp, the wall layers' thickness (layers·dp). The
/// boxes, the domain and every other setting stay as given; box extents need not be whole
/// multiples of the new dp (a box holds the lattice points whose centres lie inside it).
/// \throws std::invalid_argument, message naming the limit, when dp is not positive and finite,
///         when a fluid box, the tank or an obstacle would be thinner than dp on some axis (it
///         would hold no particle), or when the domain would not contain the tank walls at the
///         new thickness. The case is unchanged then.
void apply_dp_override(Case& c, double dp);

} // namespace sluice
