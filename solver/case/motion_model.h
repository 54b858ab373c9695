#pragma once
/// \file motion_model.h
/// The case model of moving boundaries (cases/README.md, "<motion>"): a boundary object's
/// prescribed rigid motion as segments in time, wave makers among them, and damping zones.
/// The reader (case/motion_reader.cpp) fills it and checks it; case/motion_table.h turns it into
/// the tables the backends evaluate (physics/motion.h).
///
/// Units are SI, angles in radians (the case file's degrees are converted by the reader).
/// Every segment moves the object relative to where the previous one left it; rotations turn
/// about an axis fixed in space (through `point`, right-handed about `axis`); between segments
/// and after the last one the object rests.

#include "case/wave_maker.h"

#include <Eigen/Core>

#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace sluice {

/// Translation with a constant acceleration: d(τ) = v τ + a τ²/2 (τ: time since the segment's
/// start).
struct RectilinearMotion {
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero();     ///< m/s at the segment's start
    Eigen::Vector3d acceleration = Eigen::Vector3d::Zero(); ///< m/s²
};

/// Rotation with a constant angular acceleration: θ(τ) = ω τ + α τ²/2.
struct RotationMotion {
    Eigen::Vector3d point = Eigen::Vector3d::Zero(); ///< m, on the axis
    Eigen::Vector3d axis = Eigen::Vector3d::UnitY(); ///< unit vector
    double angular_velocity = 0.0;                   ///< rad/s at the segment's start
    double angular_acceleration = 0.0;               ///< rad/s²
};

/// d(τ) = A (sin(2πτ/T + φ) − sin φ): starts where the previous segment left the object.
struct SinusoidalTranslation {
    Eigen::Vector3d amplitude = Eigen::Vector3d::Zero(); ///< m
    double period = 0.0;                                 ///< s
    double phase = 0.0;                                  ///< rad
};

/// θ(τ) = Θ (sin(2πτ/T + φ) − sin φ) about the axis.
struct SinusoidalRotation {
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    Eigen::Vector3d axis = Eigen::Vector3d::UnitY();
    double amplitude = 0.0; ///< rad
    double period = 0.0;    ///< s
    double phase = 0.0;     ///< rad
};

/// A CSV file of time and displacement, interpolated linearly: d(τ) = f(t) − f(start), with f
/// held at its ends outside the file's times. The velocity is the interpolant's slope.
struct FileTranslation {
    std::string file;                          ///< as written in the case
    std::vector<double> times;                 ///< s, ascending (absolute simulation time)
    std::vector<Eigen::Vector3d> displacement; ///< m (2D: y = 0)
};

/// The same for an angle about the axis: θ(τ) = f(t) − f(start).
struct FileRotation {
    std::string file;
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    Eigen::Vector3d axis = Eigen::Vector3d::UnitY();
    std::vector<double> times;  ///< s, ascending
    std::vector<double> angles; ///< rad
};

/// A wave maker (case/wave_maker.h): a piston translating along `direction`, or a flap turning
/// about the hinge line (`point`, `axis`), positive angles towards the waves.
struct WaveMakerMotion {
    WaveMakerSpec spec;
    Eigen::Vector3d direction = Eigen::Vector3d::UnitX(); ///< piston: unit vector
    Eigen::Vector3d point = Eigen::Vector3d::Zero();      ///< flap: on the hinge
    Eigen::Vector3d axis = Eigen::Vector3d::UnitY();      ///< flap: unit vector
};

using SegmentMotion =
    std::variant<RectilinearMotion, RotationMotion, SinusoidalTranslation, SinusoidalRotation,
                 FileTranslation, FileRotation, WaveMakerMotion>;

struct MotionSegment {
    double start = 0.0;                                   ///< s
    double end = std::numeric_limits<double>::infinity(); ///< s (> start)
    SegmentMotion motion;
    int line = 0; ///< of its element in the case file, for messages
};

/// A boundary object's prescribed motion: segments in time order that do not overlap.
struct Motion {
    std::vector<MotionSegment> segments;
    int line = 0; ///< of <motion>
};

/// A zone where fluid velocities relax to rest (Altomare et al. 2017, Coastal Eng. 127 §2.3;
/// DualSPHysics's damping zone): from the plane through `start` normal to end − start, over the
/// length |end − start|, and beyond `end` in full: each step v ← v·max(0, 1 − dt·β·f²) with f
/// the fraction of the length a particle lies past `start` (1 beyond `end`).
struct DampingZone {
    Eigen::Vector3d start = Eigen::Vector3d::Zero(); ///< m
    Eigen::Vector3d end = Eigen::Vector3d::Zero();   ///< m
    double reduction = 10.0;                         ///< β (1/s)
    int line = 0;
};

const char* segment_name(const SegmentMotion& m); ///< the element's name, e.g. "rectilinear"

} // namespace sluice
