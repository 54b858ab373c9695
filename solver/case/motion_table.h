#pragma once
/// \file motion_table.h
/// A case's <motion> elements (case/motion_model.h) as the tables physics/motion.h evaluates:
/// each segment's profile with the pose it starts and ends in, wave makers as sums of sinusoids
/// (case/wave_maker.h); per boundary particle, by id, its moving object and reference position;
/// and what needs the motion evaluated ahead of a run: a bound on the walls' speed, and the box an
/// object sweeps (the default domain holds it, a given one must).

#include "case/case_model.h"
#include "case/particles.h"
#include "neighbours/vec.h"
#include "physics/motion.h"

#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <vector>

namespace sluice {

/// The host copy of a case's motion tables (physics/motion.h), one entry of object_first per
/// boundary object of boundary_objects(c) (an object without motion has no segment).
struct MotionTables {
    std::vector<MotionSegmentData> segments;
    std::vector<SineComponent> sines;
    std::vector<TableSample> samples;
    std::vector<std::uint32_t> object_first{0}; ///< objects + 1 entries
    std::vector<char> moves;                    ///< per object: it has a motion or floats
    /// Per object: it floats (case/body_table.h): its state is its body's, not the tables'.
    std::vector<char> floats;
    /// m/s: no point of a moving object is faster at any time of [0, end_time] (the segments'
    /// analytic bounds: polynomial profiles at their ends, |ω| or |v| times the bound of a sum
    /// of sinusoids' derivative and the ramp's slope times the sum's (case/sines_bound.h), a
    /// table's steepest interval).
    double speed_bound = 0.0;
    /// The index in `segments` of the segment whose bound speed_bound is (for messages).
    std::uint32_t fastest_segment = 0;

    std::uint32_t objects() const { return static_cast<std::uint32_t>(moves.size()); }
    bool any() const;
    /// Host pointers into this object (valid while it lives and is not changed).
    MotionTablesView view() const;
};

/// The tables of case c's motions, evaluated up to `end_time` (s) for the speed bound. The
/// rotations' radii come from each object's bounding box (BoundaryObjectRef::box), whose
/// corners bound the distance of every particle of it from the axis.
/// \throws std::invalid_argument when a wave maker's spec is not one (case/wave_maker.h).
MotionTables make_motion_tables(const Case& c, double end_time);

/// make_motion_tables(c, c.run.end_time) for a run, checked against the domain (the reader
/// checked the case's own end time; --end-time may ask for more).
/// \throws std::invalid_argument naming the object and the time when a moving object leaves the
///         domain before the run's end (or may: first_domain_exit's `proven`).
MotionTables run_motion_tables(const Case& c);

/// Object k's state at time t (s), on the host.
RigidState object_state(const MotionTables& tables, std::uint32_t object, double t);

/// A box that holds the box `box` of object k in every pose of its motion over [0, end_time]:
/// per segment, the box of its corners over the segment's profile range (case/motion_bounds.h),
/// no sampling. Exact (within rounding) for polynomial, table and single-sinusoid profiles over
/// whole periods; a sum of sinusoids is bounded within E = h²/8 max|f''| of its tabulated values
/// (case/sines_bound.h), about 1e-3 of its amplitude.
Box swept_box(const MotionTables& tables, std::uint32_t object, const Box& box, double end_time);

/// A time in [0, end_time] at which a corner of a moving object's box is outside the case's
/// domain (by more than 1e-6 dp), with that object's index, such that no corner went beyond
/// the domain by more than dp/100 (+ 1e-6 dp) before it; none when no corner goes beyond by more
/// than that. Found by bisecting each segment where the bound on its corners over an interval
/// (case/motion_bounds.h) reaches beyond the domain by more than dp/100, and evaluating the pose
/// at the midpoints; its time is then within (dp/100) / (the corner's speed) of the crossing.
/// `proven` is false when the search ran out of its work limit (about 3e7 component
/// evaluations) or of resolution before deciding: then `time` begins an interval over which a
/// corner may pass beyond the domain by more than dp/100 (a conservative answer, never a miss).
struct DomainExit {
    std::uint32_t object = 0;
    double time = 0.0;
    bool proven = true;
};
std::optional<DomainExit> first_domain_exit(const Case& c, const MotionTables& tables,
                                            double end_time);

/// Per boundary particle id (< the boundary count): the index of its object when that object
/// moves (else no_object), and its reference position x0 (m; where the case generated it).
template <int D>
struct MovingWallTables {
    std::vector<std::uint16_t> object;
    std::vector<Vec<D>> reference;
};

/// From the boundary particles as generated (boundary_positions(c, &objects)).
/// \throws std::invalid_argument when the case has 65535 objects or more.
template <int D>
MovingWallTables<D> moving_wall_tables(const MotionTables& tables,
                                       const std::vector<Eigen::Vector3d>& reference,
                                       const std::vector<ObjectIds>& objects);

} // namespace sluice
