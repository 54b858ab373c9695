// The checks every backend must pass, one typed body each over the backends (backend_tags.h):
// the state at t = 0 and the bookkeeping of a step, the domain check at the start, exclusion of
// particles leaving the domain, and the failure report of an unstable run. The CUDA
// instantiations skip where no CUDA device is present.

#include "backends/backend_checks.h"
#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "support/cases.h"

#include <gtest/gtest.h>

using namespace sluice;

namespace {

template <class Tag>
class BackendChecks : public test::BackendTest<Tag> {};
TYPED_TEST_SUITE(BackendChecks, test::AllBackends, test::BackendName);

TYPED_TEST(BackendChecks, InitialStateAndBookkeeping) {
    test::check_initial_state_and_bookkeeping(TypeParam::backend, TypeParam::backend_name);
    if (TypeParam::backend == Backend::cuda) {
        EXPECT_FALSE(cuda_device_name().empty());
    }
}

TYPED_TEST(BackendChecks, ParticlesOutsideTheDomainAtStartAreAnError) {
    test::expect_particles_outside_domain_rejected(TypeParam::backend);
}

TYPED_TEST(BackendChecks, ParticlesLeavingTheDomainAreExcludedAndReported) {
    for (const char* module : {"counting-sort/strips/1", "counting-sort/hybrid/0.5/index",
                               "radix-sort/moore/1/index", "linked-list/modular/0.5"}) {
        SCOPED_TRACE(module);
        test::check_exclusions(TypeParam::backend, module);
    }
}

/// An absurd CFL number makes the dam break blow up within 200 steps.
TYPED_TEST(BackendChecks, FailureNamesStepTimeAndParticles) {
    Case c = test::dambreak_case(0.04);
    c.constants.cfl = 5.0;
    test::expect_failure(c, 200, TypeParam::backend);
}

} // namespace
