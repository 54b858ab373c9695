#pragma once
/// \file case_reader.h
/// Reads a case file (XML, format in cases/README.md) into a Case and checks it. A Case that
/// comes out of here is valid: every value is in range, boxes are non-degenerate, fluid lies
/// inside the tank and the domain and does not overlap obstacles. Nothing downstream re-checks.

#include "case/case_model.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace sluice {

/// Anything wrong with a case file. what() is exactly "FILE:LINE: message" (the line of the
/// offending element or attribute, 1-based), or "FILE: message" when the error belongs to no
/// line (the file cannot be read). The CLI maps it to exit code 2.
class CaseError : public std::runtime_error {
public:
    CaseError(const std::string& file, int line, const std::string& message);

    const std::string& file() const { return file_; }
    int line() const { return line_; } ///< 0 when not tied to a line
    const std::string& message() const { return message_; }

private:
    std::string file_;
    int line_;
    std::string message_;
};

/// What the command line replaces in a case before it is checked (`--dp`, `--end-time`), so
/// that every rule of the reader holds for the case that runs: the geometry at the new spacing
/// (walls thick enough, a wave maker's depth on the lattice), the default domain around what
/// moving objects sweep up to the new end time. Messages say where dp came from.
struct CaseOverrides {
    std::optional<double> dp;       ///< m, > 0 and finite (the caller checks the number itself)
    std::optional<double> end_time; ///< s, > 0 and finite
    /// c0 = coef·sqrt(g·H_max) (`--coef-sound`), replacing the file's coefSound or speedOfSound;
    /// > 0 and finite
    std::optional<double> coef_sound;
    /// The tank's inside a whole number of spacings (resolution_checks.h check_tank_lattice).
    /// `sluice bench` turns it off: it times the steps of a geometry at any spacing, and a
    /// gap at a corner does not change what a step costs.
    bool tank_lattice = true;
};

/// Reads and checks the case file at `path`; messages name `path` as given.
/// \throws CaseError on any error, including a file that cannot be read.
Case read_case(const std::string& path, const CaseOverrides& overrides = {});

/// Parses and checks a case from its text; messages name `file_name_for_messages`.
/// \throws CaseError on any error.
Case parse_case(const std::string& xml_text, const std::string& file_name_for_messages,
                const CaseOverrides& overrides = {});

} // namespace sluice
