#pragma once
/// \file motion_bounds.h
/// Where a moving object's box goes over a time interval of one segment, from the segment's
/// closed form rather than from samples (host code): the ground of swept_box and
/// first_domain_exit (case/motion_table.h).
///
/// A segment's profile (physics/motion.h) over τ ∈ [τ0, τ1] has a range: a polynomial's is its
/// values at the ends and at its vertex, a table's its values at the ends and at the samples
/// between, a sum of sinusoids' the bound of case/sines_bound.h (exact for one sinusoid), with
/// the ramp r ∈ [r(τ0), r(τ1)] (r rises monotonically). A corner x0 of the box then moves:
/// - in a translation to base(x0) + d, d_a ∈ [lo_a, hi_a]: per axis exactly that interval;
/// - in a rotation by θ ∈ [θ0, θ1] about unit n through p to p + (u·n) n + cos θ α + sin θ β
///   (u = base(x0) − p, α = u − (u·n) n, β = n × u; Rodrigues' formula): per axis a constant
///   plus ρ_a cos(θ − ψ_a), whose range over [θ0, θ1] is its ends or ±ρ_a where θ passes ψ_a
///   (+π) modulo 2π.
/// So the box of the corners over an interval is exact given the profile's range, and the
/// box's points lie in the hull of its corners (a rigid motion is affine). Every box is widened
/// by the rounding of the poses the solver computes (R x0 + T in double).

#include "case/case_model.h"
#include "case/sines_bound.h"
#include "physics/motion.h"

#include <Eigen/Core>

#include <optional>
#include <vector>

namespace sluice {

struct MotionTables;

/// The point x (m, in the object's reference frame at t = 0) under `pose`: R x + T, on the host.
Eigen::Vector3d apply_pose(const RigidPose& pose, const Eigen::Vector3d& x);

/// The 8 corners of a box (2D: 4 distinct, y = 0), whose poses bound an object's.
std::vector<Eigen::Vector3d> box_corners(const Box& b);

/// The values a segment's profile takes over an interval: a translation's displacement d per
/// axis (lo[a], hi[a]), a rotation's angle θ in [0] (rad).
struct ProfileRange {
    double lo[3] = {}, hi[3] = {};
};

/// The profile ranges of one segment over subintervals of τ ∈ [0, span] (span ≤ end − start,
/// finite). Holds references into `tables`: it must outlive this object.
class SegmentRange {
public:
    SegmentRange(const MotionTables& tables, const MotionSegmentData& segment, double span);

    ProfileRange over(double tau0, double tau1);

    /// The box of `corners` (the object's reference corners x0) over τ ∈ [tau0, tau1].
    Box corner_box(const std::vector<Eigen::Vector3d>& corners, double tau0, double tau1);

    /// The work done so far: component evaluations of a sines profile, else one per call.
    double work() const;

private:
    const MotionTables& tables_;
    const MotionSegmentData& segment_;
    double span_;
    std::optional<SinesRange> sines_;
    double calls_ = 0.0;
};

} // namespace sluice
