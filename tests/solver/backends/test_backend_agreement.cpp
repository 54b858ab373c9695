// Every backend against the CPU reference, one typed body each over the backends besides the CPU
// (backend_tags.h): agreement after N steps (2D and 3D, both integrators, the other
// kernel/viscosity/diffusion models, the index layouts and the linked list) and the gauges read
// through each backend's own neighbour structure. The CUDA instantiations skip where no CUDA
// device is present.
//
// Tolerances. The GPU runs the CPU's physics functions (backends/cuda/test_packed_particles.cpp
// shows the packed path is bit-identical on the host); the device differs by rounding only: fused
// multiply-add, powf, and the order of each particle's neighbour sum (the atomic construction
// orders a bin's particles arbitrarily). Over the first 200 steps of the 2D dam break (the
// collapse under way, speeds ~0.5 m/s) such differences stay near float resolution: limits are
// set at 1e-3·dp for positions, 1e-4·ρ0 for densities and 1e-4·sqrt(gH) for velocities, far
// above rounding and far below any modelling error.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/gauge_plan.h"
#include "support/cases.h"
#include "support/state_difference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace sluice;
using sluice::test::Difference;
using sluice::test::difference;

namespace {

constexpr double g = 9.81;

/// Runs `steps` steps of the case on the CPU (the reference) and on `backend`, and checks that
/// they agree.
void expect_backends_agree(const Case& c, int steps, double fluid_height, const char* what,
                           Backend backend) {
    auto cpu = make_simulation(c, Backend::cpu);
    auto other = make_simulation(c, backend);
    // Same generation, same initial state, bit for bit.
    const Difference initial = difference(cpu->snapshot(), other->snapshot());
    EXPECT_EQ(initial.dx, 0.0);
    EXPECT_EQ(initial.drho, 0.0);
    EXPECT_DOUBLE_EQ(cpu->constants().h, other->constants().h);
    for (int k = 0; k < steps; ++k) {
        cpu->step();
        other->step();
        ASSERT_NEAR(other->last_dt(), cpu->last_dt(), 1e-4 * cpu->last_dt()) << "step " << k + 1;
    }
    const Snapshot a = cpu->snapshot(), b = other->snapshot();
    const Difference d = difference(a, b);
    double speed = 0.0;
    for (const auto& v : a.velocity)
        speed = std::max(
            speed, std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]));
    std::printf("%s: CPU vs %s after %d steps (t = %.4f s, max speed %.3f m/s): max |dx| = %.3g "
                "dp, max |dv| = %.3g sqrt(gH), max |drho| = %.3g rho0; time %.9g vs %.9g s\n",
                what, other->backend_name().c_str(), steps, cpu->time(), speed, d.dx / c.dp,
                d.dv / std::sqrt(g * fluid_height), d.drho / c.constants.rho0, cpu->time(),
                other->time());
    EXPECT_LT(d.dx, 1e-3 * c.dp) << what;
    EXPECT_LT(d.dv, 1e-4 * std::sqrt(g * fluid_height)) << what;
    EXPECT_LT(d.drho, 1e-4 * c.constants.rho0) << what;
    EXPECT_NEAR(other->time(), cpu->time(), 1e-5 * cpu->time()) << what;
    EXPECT_EQ(other->counts().fluid, cpu->counts().fluid);
    EXPECT_EQ(other->counts().excluded, cpu->counts().excluded);
}

template <class Tag>
class BackendAgreement : public test::BackendTest<Tag> {};
TYPED_TEST_SUITE(BackendAgreement, test::BackendsBesidesCpu, test::BackendName);

TYPED_TEST(BackendAgreement, AgreesWithCpuOnDamBreak2D) {
    expect_backends_agree(test::dambreak_case(0.04), 200, 2.0, "dam break 2D, symplectic",
                          TypeParam::backend);
}

TYPED_TEST(BackendAgreement, AgreesWithCpuOnDamBreak2DVerlet) {
    Case c = test::dambreak_case(0.04);
    c.physics.integrator = IntegratorKind::verlet;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, Verlet", TypeParam::backend);
}

TYPED_TEST(BackendAgreement, AgreesWithCpuWithOtherModels2D) {
    Case c = test::dambreak_case(0.04);
    c.physics.kernel = KernelKind::cubic_spline;
    c.physics.viscosity = ViscosityKind::laminar;
    c.physics.viscosity_value = 1e-3;
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    c.neighbours = parse_neighbour_module("radix-sort/moore/0.5");
    expect_backends_agree(c, 200, 2.0, "dam break 2D, cubic spline, laminar, Fourtakas",
                          TypeParam::backend);
}

TYPED_TEST(BackendAgreement, AgreesWithCpuOnDamBreak3D) {
    Case c = test::small_dambreak_3d_case(0.02);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_backends_agree(c, 100, 0.2, "dam break 3D, h = 1.3 dp", TypeParam::backend);
}

/// Modified dynamic boundaries (mDBC: the BoundaryCondition pass, wall particles without
/// continuity sums) within the same tolerance: 2D and 3D, both slip conditions, both
/// integrators, the index layout.
TYPED_TEST(BackendAgreement, ModifiedWallsAgreeWithCpu) {
    Case c = test::dambreak_case(0.04);
    c.physics.boundary = BoundaryKind::mdbc;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, mDBC no-slip", TypeParam::backend);
    c.physics.slip = SlipKind::free_slip;
    c.physics.integrator = IntegratorKind::verlet;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, mDBC free-slip, Verlet", TypeParam::backend);
    c.physics.integrator = IntegratorKind::symplectic;
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5/index");
    expect_backends_agree(c, 200, 2.0, "dam break 2D, mDBC, index layout", TypeParam::backend);
    Case c3 = test::small_dambreak_3d_case(0.02);
    c3.physics.boundary = BoundaryKind::mdbc;
    c3.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_backends_agree(c3, 100, 0.2, "dam break 3D, mDBC", TypeParam::backend);
}

/// Particle shifting (physics/shifting.h: the shift's sums in the interaction pass, the move in
/// the corrector or the Verlet step) within the same tolerance: 2D with DBC and mDBC, Verlet,
/// 3D.
TYPED_TEST(BackendAgreement, ShiftingAgreesWithCpu) {
    Case c = test::dambreak_case(0.04);
    c.physics.shifting = ShiftingKind::fickian;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, shifting", TypeParam::backend);
    c.physics.boundary = BoundaryKind::mdbc;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, shifting, mDBC", TypeParam::backend);
    c.physics.integrator = IntegratorKind::verlet;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, shifting, mDBC, Verlet", TypeParam::backend);
    Case c3 = test::small_dambreak_3d_case(0.02);
    c3.physics.shifting = ShiftingKind::fickian;
    c3.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_backends_agree(c3, 100, 0.2, "dam break 3D, shifting", TypeParam::backend);
}

/// The Riemann formulation (physics/riemann.h) and δ-SPH's diffusion with its gradient pass
/// (physics/delta_sph.h) within the same tolerance: mDBC and DBC walls, shifting, the index
/// layout, 3D (the Riemann terms take the symplectic integrator only, case reader).
TYPED_TEST(BackendAgreement, NewFormulationsAgreeWithCpu) {
    Case c = test::dambreak_case(0.04);
    c.physics.formulation = FormulationKind::riemann;
    c.physics.viscosity_value = 0.0;
    c.physics.diffusion = DensityDiffusionKind::none;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, Riemann, DBC", TypeParam::backend);
    c.physics.boundary = BoundaryKind::mdbc;
    c.physics.shifting = ShiftingKind::fickian;
    expect_backends_agree(c, 200, 2.0, "dam break 2D, Riemann, mDBC, shifting", TypeParam::backend);
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5/index");
    expect_backends_agree(c, 200, 2.0, "dam break 2D, Riemann, mDBC, index layout",
                          TypeParam::backend);
    Case a = test::dambreak_case(0.04);
    a.physics.diffusion = DensityDiffusionKind::antuono;
    a.physics.boundary = BoundaryKind::mdbc;
    a.physics.shifting = ShiftingKind::fickian;
    expect_backends_agree(a, 200, 2.0, "dam break 2D, delta+-SPH, mDBC", TypeParam::backend);
    a.neighbours = parse_neighbour_module("counting-sort/strips/0.5/index");
    expect_backends_agree(a, 200, 2.0, "dam break 2D, delta+-SPH, index layout",
                          TypeParam::backend);
    Case c3 = test::small_dambreak_3d_case(0.02);
    c3.physics.boundary = BoundaryKind::mdbc;
    c3.physics.formulation = FormulationKind::riemann;
    c3.physics.viscosity_value = 0.0;
    c3.physics.diffusion = DensityDiffusionKind::none;
    c3.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    expect_backends_agree(c3, 100, 0.2, "dam break 3D, Riemann, mDBC", TypeParam::backend);
    c3.physics.formulation = FormulationKind::classical;
    c3.physics.viscosity_value = 0.01;
    c3.physics.diffusion = DensityDiffusionKind::antuono;
    expect_backends_agree(c3, 100, 0.2, "dam break 3D, delta-SPH, mDBC", TypeParam::backend);
}

/// The index layouts and the linked list against the CPU (same module), 2D and 3D, both
/// integrators: the agreement tolerance of the reorder layout.
TYPED_TEST(BackendAgreement, IndexLayoutsAgreeWithCpu) {
    for (const char* module : {"counting-sort/strips/0.5/index", "linked-list/moore/1"}) {
        Case c = test::dambreak_case(0.04);
        c.neighbours = parse_neighbour_module(module);
        expect_backends_agree(c, 200, 2.0, module, TypeParam::backend);
        c.physics.integrator = IntegratorKind::verlet;
        expect_backends_agree(c, 200, 2.0, module, TypeParam::backend);
        Case c3 = test::small_dambreak_3d_case(0.02);
        c3.neighbours = parse_neighbour_module(module);
        expect_backends_agree(c3, 100, 0.2, module, TypeParam::backend);
    }
}

/// Heights, probes (every field) and fronts for a dam break in a tank of `width`.
Gauges dam_break_gauges(int dimension, double width, double depth) {
    Gauges g;
    g.interval = 0.01;
    auto add = [&](GaugeKind kind, std::string name, Eigen::Vector3d point, int sign = 1,
                   double radius = 0.0) {
        Gauge x;
        x.kind = kind;
        x.name = std::move(name);
        x.point = point;
        x.sign = sign;
        x.radius = radius;
        x.fields = {ProbeField::pressure, ProbeField::velocity, ProbeField::density};
        g.gauges.push_back(x);
    };
    const double y = dimension == 3 ? depth / 2 : 0.0;
    add(GaugeKind::height, "Hin", {0.05 * width, y, 0});
    add(GaugeKind::height, "Hout", {0.5 * width, y, 0});
    add(GaugeKind::probe, "Pin", {0.05 * width, y, 0.05 * width});
    add(GaugeKind::probe, "Pfront", {0.3 * width, y, 0.02 * width});
    add(GaugeKind::front, "front", {0, 0, 0});
    add(GaugeKind::front, "back", {0, 0, 0}, -1);
    // Wall sensors: on the wall behind the column, and over a face on the floor under it.
    add(GaugeKind::sensor, "Swall", {0.0, y, 0.05 * width});
    add(GaugeKind::sensor, "Sfloor", {0.1 * width, y, 0.0}, 1, 0.02 * width);
    return g;
}

TYPED_TEST(BackendAgreement, GaugesAgreeWithCpu) {
    // The same query points through both backends' neighbour structures: values agree as the
    // states do (1e-3 dp in position, 1e-4·ρ0 in density, so c0²·1e-4·ρ0 in pressure).
    Case two = test::dambreak_case(0.04);
    two.gauges = dam_break_gauges(2, 4.0, 0.0);
    Case three = test::small_dambreak_3d_case(0.02);
    three.gauges = dam_break_gauges(3, 0.4, 0.2);
    for (const Case* c : {&two, &three}) {
        auto cpu = make_simulation(*c, Backend::cpu);
        auto other = make_simulation(*c, TypeParam::backend);
        const GaugePlan plan(*c, cpu->constants().support);
        for (int k = 0; k <= 150; ++k) {
            if (k % 50 == 0) {
                const std::vector<double> a = plan.evaluate(cpu->sample_gauges(plan.request()));
                const std::vector<double> b = plan.evaluate(other->sample_gauges(plan.request()));
                ASSERT_EQ(a.size(), b.size());
                // Pressure is c0²·Δρ: the density agreement (1e-4·ρ0 over 1e-3, below) times c0².
                const double c0 = cpu->constants().speed_of_sound;
                const double p_scale = 1e-1 * c0 * c0 * 1000.0, v_scale = std::sqrt(g * 0.2);
                for (std::size_t i = 0; i < a.size(); ++i) {
                    const std::string& unit = plan.columns()[i].unit;
                    const double scale = unit == "m"     ? c->dp
                                         : unit == "Pa"  ? p_scale
                                         : unit == "m/s" ? v_scale
                                                         : 1000.0;
                    SCOPED_TRACE(plan.columns()[i].name + " at step " + std::to_string(k));
                    ASSERT_EQ(std::isnan(a[i]), std::isnan(b[i])) << a[i] << " vs " << b[i];
                    if (!std::isnan(a[i])) {
                        EXPECT_NEAR(a[i], b[i], 1e-3 * scale) << plan.columns()[i].unit;
                    }
                }
                if (k == 150) {
                    std::printf("%dD gauges at step %d (cpu | %s):", c->dimension, k,
                                other->backend_name().c_str());
                    for (std::size_t i = 0; i < a.size(); ++i)
                        std::printf(" %s %.6g|%.6g", plan.columns()[i].name.c_str(), a[i], b[i]);
                    std::printf("\n");
                }
            }
            cpu->step();
            other->step();
        }
    }
}

} // namespace
