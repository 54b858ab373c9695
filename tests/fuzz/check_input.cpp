#include "check_input.h"

#include "app/check_case.h"
#include "app/preflight.h"
#include "case/case_reader.h"

#include <ostream>
#include <streambuf>

namespace sluice::fuzz {

namespace {

/// An ostream that drops what it is given (check's report is formatted, not kept).
class NullBuffer : public std::streambuf {
protected:
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

} // namespace

Outcome check_input(const std::string& text, const std::string& file_name) {
    NullBuffer buffer;
    std::ostream discard(&buffer);
    try {
        const Case c = parse_case(text, file_name);
        CheckLimits limits;
        limits.max_generated_particles = max_generated_particles;
        limits.host_memory = host_memory;
        check_case(discard, c, Backend::cpu, limits);
    } catch (const CaseError& e) {
        return {Verdict::rejected, e.what()};
    } catch (const ResourceError& e) {
        return {Verdict::too_large, e.what()};
    }
    return {};
}

const char* to_string(Verdict v) {
    switch (v) {
    case Verdict::valid:
        return "valid";
    case Verdict::rejected:
        return "rejected";
    case Verdict::too_large:
        return "too large";
    }
    return "?";
}

} // namespace sluice::fuzz
