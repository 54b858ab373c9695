#pragma once
// Small hand-made 2D particle sets for the physics tests: water's constants and a cloud of
// particles whose derivatives come from interact_particle (physics.h), with δ-SPH's density
// gradients when the constants ask for them.

#include "neighbours/cpu_builder.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sluice::test {

inline FluidConstants water(double c0, double h, double dp, DensityDiffusion diffusion) {
    FluidConstants c;
    c.rho0 = 1000.0f;
    c.inv_rho0 = 1e-3f;
    c.b = static_cast<float>(c0 * c0 * 1000.0 / 7.0);
    c.c0 = static_cast<float>(c0);
    c.mass = static_cast<float>(1000.0 * dp * dp);
    c.h = static_cast<float>(h);
    c.eta2 = static_cast<float>(0.01 * h * h);
    c.diffusion = diffusion;
    c.ddt_coef = static_cast<float>(2.0 * 0.1 * h * c0);
    c.hydro_coef = static_cast<float>(1000.0 * 9.81 / c.b);
    c.inv_rho0_c0 = static_cast<float>(1.0 / (1000.0 * c0));
    return c;
}

/// 2D fluid particles in bin order with everything interact_particle reads.
struct Cloud {
    std::vector<Vec<2>> position, velocity;
    std::vector<float> density, pressure;
    std::vector<ParticleType> type;
    CpuNeighbourBuilder<2> builder;

    void add(float x, float z, float rho, float vx = 0, float vz = 0,
             ParticleType t = ParticleType::fluid) {
        position.push_back(Vec<2>{{x, z}});
        velocity.push_back(Vec<2>{{vx, vz}});
        density.push_back(rho);
        type.push_back(t);
    }
    std::vector<Vec<2>> gradient; ///< δ-SPH's ⟨∇ρ⟩^L (bin order), when the constants ask
    /// Sorts into bin order and returns the derivatives of every particle (bin order).
    template <class KernelT>
    std::vector<Derivatives<2>> derivatives(const KernelT& kernel, const FluidConstants& c) {
        const float radius = 2.0f * kernel.h;
        const GridSpec<2> grid =
            make_grid<2>(Vec<2>{{-1.0f, -1.0f}}, Vec<2>{{2.0f, 2.0f}}, radius, 1.0f);
        builder.build(position.data(), static_cast<std::uint32_t>(position.size()), grid, radius);
        auto gather = [&](auto& a) {
            auto copy = a;
            for (std::size_t k = 0; k < a.size(); ++k)
                a[k] = copy[builder.permutation()[k]];
        };
        gather(position);
        gather(velocity);
        gather(density);
        gather(type);
        pressure.resize(density.size());
        for (std::size_t k = 0; k < density.size(); ++k)
            pressure[k] = tait_pressure(c, density[k]);
        ParticlesView<2> view{velocity.data(), density.data(), pressure.data(), type.data()};
        if (c.diffusion == DensityDiffusion::antuono2010) {
            gradient.assign(position.size(), Vec<2>{});
            for (std::uint32_t i = 0; i < position.size(); ++i) {
                if (type[i] != ParticleType::fluid)
                    continue;
                DensityGradientVisitor<2, KernelT, ParticlesView<2>> visitor{view, kernel, c.mass,
                                                                             density[i]};
                for_each_neighbour<StripsQuery>(builder.view(), position[i], visitor);
                gradient[i] = visitor.sums.renormalised();
            }
            view.density_gradient = gradient.data();
        }
        std::vector<Derivatives<2>> out;
        for (std::uint32_t i = 0; i < position.size(); ++i)
            out.push_back(interact_particle<StripsQuery>(builder.view(), view, kernel, c, i));
        return out;
    }
};

/// The still column of the hydrostatic tests: 20 × 20 particles at dp = 0.02 m filling 0.4 m of
/// water, each at the density of its depth's hydrostatic pressure (Tait inverted); no walls.
struct HydrostaticColumn {
    static constexpr double dp = 0.02, depth = 0.4;
    static constexpr int side = 20;
    static double c0() { return 20.0 * std::sqrt(9.81 * depth); }
    static double h() { return std::sqrt(2.0) * dp; }
    static void fill(Cloud& cloud, const FluidConstants& c) {
        for (int iz = 0; iz < side; ++iz)
            for (int ix = 0; ix < side; ++ix) {
                const double z = (iz + 0.5) * dp;
                cloud.add(static_cast<float>((ix + 0.5) * dp), static_cast<float>(z),
                          tait_density(c, static_cast<float>(1000.0 * 9.81 * (depth - z))));
            }
    }
    /// The largest |dρ/dt| over the column with the constants c (kg/(m³·s)), Wendland C2.
    static float worst_density_rate(const FluidConstants& c) {
        Cloud cloud;
        fill(cloud, c);
        float worst = 0.0f;
        for (const Derivatives<2>& d : cloud.derivatives(WendlandC2<2>(h()), c))
            worst = std::max(worst, std::fabs(d.density_rate));
        return worst;
    }
};

} // namespace sluice::test
