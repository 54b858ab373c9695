// Kernels checked for their physical properties (SPlisHSPlasH Tests/Kernel/KernelTests.cpp):
// Σ W·V ≈ 1 and Σ ∇W·V ≈ 0 on a lattice, W ≥ 0, compact support, F·r = dW/dr.

#include "physics/kernels.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace sluice;

namespace {

/// Sums W(|x − x_j|)·V, ∇W·V and |∇W|·V over the lattice x_j = (i + ½)·dp around x
/// (V = dp^D).
template <int D, class KernelT>
void lattice_sums(const KernelT& kernel, double dp, const double (&x)[3], double& sum_w,
                  double (&sum_grad)[3], double& sum_abs_grad) {
    sum_w = sum_abs_grad = 0.0;
    sum_grad[0] = sum_grad[1] = sum_grad[2] = 0.0;
    const int reach = static_cast<int>(std::ceil(2.0 * kernel.h / dp)) + 2;
    const double volume = std::pow(dp, D);
    for (int i = -reach; i <= reach; ++i)
        for (int j = -reach; j <= reach; ++j)
            for (int k = (D == 3 ? -reach : 0); k <= (D == 3 ? reach : 0); ++k) {
                const int idx[3] = {i, j, k};
                double rij[3] = {0, 0, 0};
                double r2 = 0.0;
                for (int a = 0; a < D; ++a) {
                    rij[a] = x[a] - (idx[a] + 0.5) * dp;
                    r2 += rij[a] * rij[a];
                }
                const float r = static_cast<float>(std::sqrt(r2));
                sum_w += kernel.value(r) * volume;
                for (int a = 0; a < D; ++a)
                    sum_grad[a] += rij[a] * kernel.grad_factor(r) * volume;
                sum_abs_grad += std::sqrt(r2) * std::fabs(kernel.grad_factor(r)) * volume;
            }
}

template <class KernelT>
class KernelTest : public ::testing::Test {};

template <int D, template <int> class K>
struct Spec {
    static constexpr int dimension = D;
    using Kernel = K<D>;
};
using Kernels = ::testing::Types<Spec<2, WendlandC2>, Spec<3, WendlandC2>, Spec<2, CubicSpline>,
                                 Spec<3, CubicSpline>>;
TYPED_TEST_SUITE(KernelTest, Kernels);

TYPED_TEST(KernelTest, LatticeSumsAreOneAndZero) {
    constexpr int D = TypeParam::dimension;
    const double dp = 0.01;
    for (double coefh : {1.0, 1.2, 1.5}) {
        const typename TypeParam::Kernel kernel(coefh * std::sqrt(double(D)) * dp);
        // On a lattice point, between points, and at a generic offset.
        const double points[][3] = {
            {0.5 * dp, 0.5 * dp, 0.5 * dp}, {0.0, 0.0, 0.0}, {0.13 * dp, 0.71 * dp, 0.37 * dp}};
        for (const auto& x : points) {
            double sum_w, sum_grad[3], sum_abs_grad;
            lattice_sums<D>(kernel, dp, x, sum_w, sum_grad, sum_abs_grad);
            // Discretisation errors for h/dp ≥ √D: about 1 % (worst at coefh = 1).
            EXPECT_NEAR(sum_w, 1.0, 1e-2) << "coefh " << coefh << " at x/dp = " << x[0] / dp;
            for (int a = 0; a < D; ++a)
                EXPECT_NEAR(sum_grad[a] / sum_abs_grad, 0.0, 1e-2)
                    << "coefh " << coefh << " axis " << a << " at x/dp = " << x[0] / dp;
        }
    }
}

TYPED_TEST(KernelTest, NonNegativeWithCompactSupport) {
    const double h = 0.02;
    const typename TypeParam::Kernel kernel(h);
    for (int s = 0; s <= 400; ++s) {
        const float r = static_cast<float>(s * 3.0 * h / 400);
        EXPECT_GE(kernel.value(r), 0.0f) << r;
        EXPECT_LE(kernel.grad_factor(r), 0.0f) << r; // W decreases with r
        if (r >= 2.0f * kernel.h) {
            EXPECT_EQ(kernel.value(r), 0.0f) << r;
            EXPECT_EQ(kernel.grad_factor(r), 0.0f) << r;
        }
    }
    // Continuous at the support edge.
    EXPECT_NEAR(kernel.value(2.0f * kernel.h * 0.9999f), 0.0f, 1e-7f * kernel.value(0.0f));
}

TYPED_TEST(KernelTest, GradientMatchesFiniteDifference) {
    const double h = 0.02;
    const typename TypeParam::Kernel kernel(h);
    const double scale = kernel.value(0.0f) / h; // |dW/dr| is of this order
    for (int s = 1; s < 200; ++s) {
        const double r = s * 2.0 * h / 200;
        const double e = 1e-3 * h;
        const double dwdr =
            (kernel.value(static_cast<float>(r + e)) - kernel.value(static_cast<float>(r - e))) /
            (2.0 * e);
        EXPECT_NEAR(kernel.grad_factor(static_cast<float>(r)) * r, dwdr, 2e-3 * scale)
            << "r/h = " << r / h;
    }
}

} // namespace
