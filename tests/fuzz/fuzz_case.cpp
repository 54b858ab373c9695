// libFuzzer entry point: each input is a case file's text, read and checked as `sluice check`
// does (check_input.h). CaseError and ResourceError are the expected ends of a bad input; any
// other exception escapes, std::terminate aborts, and libFuzzer reports the input as a crash,
// as it does a sanitizer's report or a timeout. How to run a campaign: tests/fuzz/README.md.

#include "check_input.h"

#include <cstddef>
#include <cstdint>
#include <string>

#ifndef SLUICE_FUZZ_CORPUS_DIR
#error "SLUICE_FUZZ_CORPUS_DIR: the seed corpus folder, where the seeds' surface files are"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Named as a file of the seed corpus folder, so that a seed's relative stl= and path= find
    // their files there.
    static const std::string file_name = std::string(SLUICE_FUZZ_CORPUS_DIR) + "/input.xml";
    sluice::fuzz::check_input(std::string(reinterpret_cast<const char*>(data), size), file_name);
    return 0;
}
