#pragma once
/// \file double_arrays.h
/// Eigen vectors and matrices to and from the plain double arrays of the device-side physics
/// structs (physics/motion.h, physics/rigid_body.h): 3-vectors and row-major 3 × 3 matrices.

#include <Eigen/Core>

namespace sluice::test {

inline Eigen::Vector3d vec(const double* a) {
    return {a[0], a[1], a[2]};
}
inline void put(const Eigen::Vector3d& v, double* out) {
    out[0] = v.x(), out[1] = v.y(), out[2] = v.z();
}
inline Eigen::Matrix3d mat(const double* m) {
    Eigen::Matrix3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r(i, j) = m[3 * i + j];
    return r;
}
inline void put_matrix(const Eigen::Matrix3d& m, double* out) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[3 * i + j] = m(i, j);
}

} // namespace sluice::test
