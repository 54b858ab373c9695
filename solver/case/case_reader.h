#pragma once
/// \file case_reader.h
/// Reads a case file (XML, format in cases/README.md) into a Case and checks it. A Case that
/// comes out of here is valid: every value is in range, boxes are non-degenerate, fluid lies
/// inside the tank and the domain and does not overlap obstacles. Nothing downstream re-checks.

#include "case/case_model.h"

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

/// Reads and checks the case file at `path`; messages name `path` as given.
/// \throws CaseError on any error, including a file that cannot be read.
Case read_case(const std::string& path);

/// Parses and checks a case from its text; messages name `file_name_for_messages`.
/// \throws CaseError on any error.
Case parse_case(const std::string& xml_text, const std::string& file_name_for_messages);

} // namespace sluice
