// The CUDA backend's packed layout (packed_particles.h), run on the host: its interaction visitor
// and its integration wrappers give bit for bit what the shared CPU path (physics.h
// interact_particle, integrators.h on arrays) gives, for every kernel, query, viscosity and
// diffusion model, in 2D and 3D. So the GPU runs the CPU's physics; the backends can only differ
// by device rounding (fused multiply-add, powf) and by summation order.

#include "backends/cuda/packed_particles.h"
#include "neighbours/cpu_builder.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <variant>
#include <vector>

using namespace sluice;

namespace {

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

template <int D>
bool same_bits(const Vec<D>& a, const Vec<D>& b) {
    for (int k = 0; k < D; ++k)
        if (!same_bits(a[k], b[k]))
            return false;
    return true;
}

FluidConstants test_constants(double h, ViscosityModel viscosity, DensityDiffusion diffusion) {
    FluidConstants c;
    c.rho0 = 1000.0f;
    c.inv_rho0 = 1e-3f;
    c.c0 = 40.0f;
    c.b = c.c0 * c.c0 * c.rho0 / c.gamma;
    c.h = static_cast<float>(h);
    c.mass = 0.4f;
    c.eta2 = 0.01f * c.h * c.h;
    c.viscosity = viscosity;
    c.alpha = 0.05f;
    c.nu = 1e-3f;
    c.diffusion = diffusion;
    c.ddt_coef = 2.0f * 0.1f * c.h * c.c0;
    c.hydro_coef = c.rho0 * c.gravity / c.b;
    return c;
}

/// A jittered lattice with random velocities and densities; a third of the particles boundary.
template <int D>
struct Cloud {
    std::vector<Vec<D>> position;
    std::vector<Vec<D>> velocity;
    std::vector<float> density;
    std::vector<ParticleType> type;
};

template <int D>
Cloud<D> make_cloud(double dp, int per_axis, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-0.2f, 0.2f), speed(-1.0f, 1.0f),
        rho(990.0f, 1030.0f);
    Cloud<D> c;
    const int count = D == 3 ? per_axis * per_axis * per_axis : per_axis * per_axis;
    for (int p = 0; p < count; ++p) {
        Vec<D> x{}, v{};
        int rest = p;
        for (int k = 0; k < D; ++k) {
            x[k] = static_cast<float>((rest % per_axis + 0.5 + jitter(rng)) * dp);
            rest /= per_axis;
            v[k] = speed(rng);
        }
        c.position.push_back(x);
        c.velocity.push_back(v);
        c.density.push_back(rho(rng));
        c.type.push_back(p % 3 == 0 ? ParticleType::boundary : ParticleType::fluid);
    }
    return c;
}

template <int D, class QueryT, class KernelT>
void check_interaction(const KernelT& kernel, const FluidConstants& c, const Cloud<D>& cloud,
                       double dp, int per_axis) {
    const std::uint32_t n = static_cast<std::uint32_t>(cloud.position.size());
    // Packed state in input order; 3D positions carry p/ρ².
    std::vector<Vec<D>> packed_position(n);
    std::vector<Float4> motion(n);
    for (std::uint32_t i = 0; i < n; ++i)
        pack_particle<D>(c, cloud.position[i], cloud.velocity[i], cloud.density[i], cloud.type[i],
                         packed_position[i], motion[i]);

    Vec<D> lo{}, hi{};
    for (int k = 0; k < D; ++k)
        hi[k] = static_cast<float>(per_axis * dp);
    const float radius = 2.0f * c.h;
    const GridSpec<D> grid = make_grid<D>(lo, hi, radius, 0.5f);
    CpuNeighbourBuilder<D> builder;
    builder.build(packed_position.data(), n, grid, radius, OutsidePolicy::clamp);
    const NeighbourView<D> view = builder.view();
    const std::vector<std::uint32_t>& perm = builder.permutation();

    // The CPU backend's arrays in bin order.
    std::vector<Vec<D>> velocity(n);
    std::vector<float> density(n), pressure(n);
    std::vector<ParticleType> type(n);
    std::vector<Float4> sorted_motion(n);
    for (std::uint32_t k = 0; k < n; ++k) {
        velocity[k] = cloud.velocity[perm[k]];
        density[k] = cloud.density[perm[k]];
        pressure[k] = tait_pressure(c, density[k]);
        type[k] = cloud.type[perm[k]];
        sorted_motion[k] = motion[perm[k]];
    }
    const ParticlesView<D> shared{velocity.data(), density.data(), pressure.data(), type.data()};
    const PackedParticlesView<D> packed{view.positions, sorted_motion.data()};
    int compared = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const Derivatives<D> a = interact_particle<QueryT>(view, shared, kernel, c, i);
        const Derivatives<D> b = interact_packed_particle<QueryT>(view, packed, kernel, c, i);
        ASSERT_TRUE(same_bits(a.acceleration, b.acceleration)) << "particle " << i;
        ASSERT_TRUE(same_bits(a.density_rate, b.density_rate)) << "particle " << i;
        ASSERT_TRUE(same_bits(a.mu_max, b.mu_max)) << "particle " << i;
        if (MonaghanMolteniModel::matches(c)) { // the GPU's compile-time model: the same sums
            const Derivatives<D> f =
                interact_packed_particle<QueryT, MonaghanMolteniModel>(view, packed, kernel, c, i);
            ASSERT_TRUE(same_bits(f.acceleration, b.acceleration)) << "particle " << i;
            ASSERT_TRUE(same_bits(f.density_rate, b.density_rate)) << "particle " << i;
            ASSERT_TRUE(same_bits(f.mu_max, b.mu_max)) << "particle " << i;
        }
        compared += a.density_rate != 0.0f ? 1 : 0;
    }
    EXPECT_GT(compared, static_cast<int>(n / 2)); // the sums are not trivially zero
}

template <int D>
void check_all_interactions(double coefh) {
    const double dp = 0.01, h = coefh * std::sqrt(static_cast<double>(D)) * dp;
    const int per_axis = D == 3 ? 9 : 20;
    const Cloud<D> cloud = make_cloud<D>(dp, per_axis, 7u);
    for (ViscosityModel viscosity :
         {ViscosityModel::artificial_monaghan1992, ViscosityModel::laminar_lo_shao2002})
        for (DensityDiffusion diffusion : {DensityDiffusion::none, DensityDiffusion::molteni2009,
                                           DensityDiffusion::fourtakas2019}) {
            const FluidConstants c = test_constants(h, viscosity, diffusion);
            using Kernels = std::variant<WendlandC2<D>, CubicSpline<D>>;
            for (const Kernels& kernel : {Kernels(WendlandC2<D>(h)), Kernels(CubicSpline<D>(h))})
                for (const QueryTag& query :
                     {QueryTag(MooreQuery{}), QueryTag(StripsQuery{}), QueryTag(ChordsQuery{})}) {
                    SCOPED_TRACE(testing::Message()
                                 << "viscosity " << static_cast<int>(viscosity) << ", diffusion "
                                 << static_cast<int>(diffusion) << ", kernel " << kernel.index()
                                 << ", query " << query.index());
                    std::visit(
                        [&](const auto& k, auto q) {
                            check_interaction<D, decltype(q)>(k, c, cloud, dp, per_axis);
                        },
                        kernel, query);
                }
        }
}

TEST(PackedParticles, InteractionMatchesSharedVisitorBitForBit2D) {
    check_all_interactions<2>(1.0);
}

TEST(PackedParticles, InteractionMatchesSharedVisitorBitForBit3D) {
    check_all_interactions<3>(0.75);
}

TEST(PackedParticles, SignedDensityKeepsTheType) {
    for (ParticleType t : {ParticleType::fluid, ParticleType::boundary}) {
        for (float rho : {1000.0f, 1e-30f, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()}) {
            const float w = encode_density(rho, t);
            EXPECT_EQ(decode_type(w), t) << rho;
            EXPECT_TRUE(same_bits(decode_density(w), rho)) << rho;
        }
    }
}

template <int D>
void check_integration() {
    const FluidConstants c =
        test_constants(0.012, ViscosityModel::artificial_monaghan1992, DensityDiffusion::none);
    const Cloud<D> cloud = make_cloud<D>(0.01, 5, 11u);
    const std::uint32_t n = static_cast<std::uint32_t>(cloud.position.size());
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> f(-20.0f, 20.0f), drho(-500.0f, 500.0f);
    std::vector<Vec<D>> acceleration(n);
    std::vector<float> density_rate(n);
    std::vector<Float4> derivatives(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        for (int k = 0; k < D; ++k)
            acceleration[i][k] = f(rng);
        density_rate[i] = drho(rng);
        derivatives[i] = pack_derivatives<D>(acceleration[i], density_rate[i]);
    }
    const float dt = 1e-4f;
    // Reference: integrators.h on arrays, as the CPU backend runs it.
    std::vector<Vec<D>> position = cloud.position, velocity = cloud.velocity, previous_position(n),
                        previous_velocity(n);
    std::vector<float> density = cloud.density, previous_density(n);
    std::vector<ParticleType> type = cloud.type;
    const IntegratorArrays<D> a{
        position.data(),          velocity.data(),          density.data(),
        previous_position.data(), previous_velocity.data(), previous_density.data(),
        acceleration.data(),      density_rate.data(),      type.data()};
    for (std::uint32_t i = 0; i < n; ++i) {
        Vec<D> x;
        Float4 m;
        pack_particle<D>(c, cloud.position[i], cloud.velocity[i], cloud.density[i], cloud.type[i],
                         x, m);
        // predictor
        symplectic_predict(a, i, dt, c.rho0);
        PreviousState<D> previous;
        const IntegrationResult<D> p = predict_packed<D>(c, x, m, derivatives[i], dt, previous);
        ASSERT_TRUE(same_bits(p.state.position, position[i]));
        ASSERT_TRUE(same_bits(p.state.velocity, velocity[i]));
        ASSERT_TRUE(same_bits(p.state.density, density[i]));
        ASSERT_TRUE(same_bits(previous.position, previous_position[i]));
        ASSERT_TRUE(same_bits(previous.velocity, previous_velocity[i]));
        ASSERT_TRUE(same_bits(previous.density, previous_density[i]));
        const ParticleState<D> unpacked = unpack_particle(p.position, p.motion);
        ASSERT_TRUE(same_bits(unpacked.position, position[i]));
        ASSERT_EQ(unpacked.type, type[i]);
        ASSERT_TRUE(same_bits(unpacked.p_rho2, pressure_over_rho2(c, density[i])));
        // corrector
        symplectic_correct(a, i, dt, c.rho0);
        const IntegrationResult<D> q =
            correct_packed<D>(c, p.position, p.motion, derivatives[i], dt, previous);
        ASSERT_TRUE(same_bits(q.state.position, position[i]));
        ASSERT_TRUE(same_bits(q.state.velocity, velocity[i]));
        ASSERT_TRUE(same_bits(q.state.density, density[i]));
        // Verlet, both forms
        for (bool euler : {false, true}) {
            std::vector<Vec<D>> vx = position, vv = velocity, pv = previous_velocity;
            std::vector<float> vr = density, pr = previous_density;
            const IntegratorArrays<D> b{
                vx.data(), vv.data(),           vr.data(),           nullptr,    pv.data(),
                pr.data(), acceleration.data(), density_rate.data(), type.data()};
            verlet_update(b, i, dt, euler, c.rho0);
            PreviousState<D> pv_packed;
            pv_packed.velocity = previous_velocity[i];
            pv_packed.density = previous_density[i];
            const IntegrationResult<D> r =
                verlet_packed<D>(c, q.position, q.motion, derivatives[i], dt, euler, pv_packed);
            ASSERT_TRUE(same_bits(r.state.position, vx[i]));
            ASSERT_TRUE(same_bits(r.state.velocity, vv[i]));
            ASSERT_TRUE(same_bits(r.state.density, vr[i]));
            ASSERT_TRUE(same_bits(pv_packed.velocity, pv[i]));
            ASSERT_TRUE(same_bits(pv_packed.density, pr[i]));
        }
    }
}

TEST(PackedParticles, IntegrationMatchesIntegratorsBitForBit2D) {
    check_integration<2>();
}

TEST(PackedParticles, IntegrationMatchesIntegratorsBitForBit3D) {
    check_integration<3>();
}

TEST(PackedParticles, FailureCheckMatchesTheCpuRule) {
    ParticleState<3> s;
    s.density = 1000.0f;
    EXPECT_FALSE(state_is_bad(s, 500.0f, 2000.0f));
    s.density = 499.0f;
    EXPECT_TRUE(state_is_bad(s, 500.0f, 2000.0f));
    s.density = 1000.0f;
    s.velocity[2] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(state_is_bad(s, 500.0f, 2000.0f));
    s.velocity[2] = 0.0f;
    s.position[0] = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(state_is_bad(s, 500.0f, 2000.0f));
}

} // namespace
