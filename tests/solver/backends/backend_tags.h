#pragma once
/// \file backend_tags.h
/// The backends as types, for checks written once and run on every backend (GoogleTest typed
/// tests): a tag per backend, the type lists the suites run over, and the fixture that skips a
/// backend this machine cannot run (the CUDA one without a GPU; .ci/gpu-check runs it on one).
///
///     TYPED_TEST_SUITE(BackendChecks, test::AllBackends, test::BackendName);
///     TYPED_TEST(BackendChecks, X) { make_simulation(c, TypeParam::backend); … }
///
/// Instantiations are named by the tag: `BackendChecks/Cpu.X`, `BackendChecks/Cuda.X`, so
/// `--gtest_filter='*Cuda*'` selects every GPU test and `-*Cuda*` leaves them out.

#include "backends/backend_options.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::test {

/// The CPU backend (OpenMP); the reference the other backends are compared with.
struct CpuTag {
    static constexpr Backend backend = Backend::cpu;
    static constexpr const char* name = "Cpu";
    /// Simulation::backend_name() of this backend.
    static constexpr const char* backend_name = "cpu";
};

/// The CUDA backend; runs only where a CUDA device is present.
struct CudaTag {
    static constexpr Backend backend = Backend::cuda;
    static constexpr const char* name = "Cuda";
    static constexpr const char* backend_name = "cuda";
};

/// Every backend: property checks (bookkeeping, exclusions, failures, validation).
using AllBackends = ::testing::Types<CpuTag, CudaTag>;
/// The backends compared against the CPU reference (the reference itself is not listed: it
/// would be compared with itself).
using BackendsBesidesCpu = ::testing::Types<CudaTag>;

/// Names a typed test's instantiation by its tag (`Cpu`, `Cuda`) instead of its index.
struct BackendName {
    template <class Tag>
    static std::string GetName(int) {
        return Tag::name;
    }
};

/// Whether this machine can run the backend (the CPU one always).
inline bool backend_runs_here(Backend backend) {
    return backend != Backend::cuda || cuda_device_available();
}

/// Fixture of the typed backend suites: a test of a backend this machine cannot run is skipped
/// before its body, saying why.
template <class Tag>
class BackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!backend_runs_here(Tag::backend))
            GTEST_SKIP() << "no CUDA device: the " << Tag::name
                         << " instantiation runs on a GPU host (.ci/gpu-check)";
    }
};

} // namespace sluice::test
