#pragma once
/// \file check_input.h
/// The fuzz target's one call: a case file's text through the reader and through what
/// `sluice check` does after it (app/check_case.h). The fuzz target (fuzz_case.cpp) and the
/// replay test (replay.cpp) both call it.

#include <string>

namespace sluice::fuzz {

/// How an input ended. Anything else (another exception, a crash, a sanitizer's report, a hang)
/// is a finding.
enum class Verdict {
    valid,    ///< the reader accepted it and check's sequence ran through
    rejected, ///< CaseError: the reader refused it (message: "FILE:LINE: ...")
    too_large ///< ResourceError: require_fits refused it for this target's machine (below)
};

struct Outcome {
    Verdict verdict = Verdict::valid;
    std::string message; ///< the CaseError's or ResourceError's what(); empty when valid
};

/// Particles are generated (and the wall normals found) only up to this pre-flight estimate,
/// which keeps an input under about a second; above it check's other steps still run.
constexpr double max_generated_particles = 50000.0;

/// The memory the target's machine is taken to have (bytes): require_fits refuses a case that
/// needs more, so an allocation beyond it that the pre-flight did not foresee stands out (as an
/// out-of-memory finding under libFuzzer's -rss_limit_mb=2048).
constexpr double host_memory = 1024.0 * 1024.0 * 1024.0;

/// Parses `text` as the case file `file_name` (relative surface and motion files are looked up
/// beside it) and runs check's sequence on the CPU backend, its output discarded.
/// \throws whatever the reader or check throws other than CaseError and ResourceError.
Outcome check_input(const std::string& text, const std::string& file_name);

const char* to_string(Verdict v);

} // namespace sluice::fuzz
