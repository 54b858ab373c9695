#include "io/csv_series.h"

#include "io/atomic_file.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sluice {
namespace fs = std::filesystem;

namespace {

std::string header_row(const std::vector<std::string>& columns) {
    std::string row = "t";
    for (const std::string& c : columns)
        row += "," + c;
    return row;
}

} // namespace

CsvSeries::CsvSeries(fs::path path, const std::vector<std::string>& comments,
                     const std::vector<std::string>& columns, double resume_after)
    : path_(std::move(path)), columns_(columns.size()) {
    const std::string header = header_row(columns);
    std::string kept;
    bool resumed = false;
    if (resume_after >= 0.0 && fs::exists(path_)) {
        // Keep comments, the header and rows up to the restart time; rewrite atomically.
        std::ifstream in(path_);
        std::string line;
        bool header_seen = false;
        while (std::getline(in, line)) {
            if (!header_seen) {
                if (line.rfind("#", 0) == 0) {
                    kept += line + "\n";
                    continue;
                }
                if (line != header)
                    fail_output("continue", path_,
                                "its columns differ from this case's (" + header +
                                    "); move it away to start a new file");
                header_seen = true;
                kept += line + "\n";
                continue;
            }
            const double t = std::strtod(line.c_str(), nullptr);
            if (kept_on_resume(t, resume_after))
                kept += line + "\n";
        }
        resumed = header_seen;
    }
    if (!resumed) {
        kept.clear();
        for (const std::string& c : comments)
            kept += "# " + c + "\n";
        kept += header + "\n";
    }
    write_file_atomically(path_, kept);
    file_ = std::fopen(path_.c_str(), "ab");
    if (!file_)
        fail_output("append to", path_, std::strerror(errno));
}

CsvSeries::~CsvSeries() {
    if (file_)
        std::fclose(file_);
}

void CsvSeries::write(double t, const std::vector<double>& values) {
    if (values.size() != columns_)
        throw std::invalid_argument("CsvSeries: " + std::to_string(values.size()) + " values for " +
                                    std::to_string(columns_) + " columns");
    std::string row;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", t);
    row += buffer;
    for (const double v : values) {
        row += ',';
        if (std::isfinite(v)) {
            std::snprintf(buffer, sizeof buffer, "%.9g", v);
            row += buffer;
        }
    }
    row += '\n';
    if (std::fwrite(row.data(), 1, row.size(), file_) != row.size() || std::fflush(file_) != 0)
        fail_output("write", path_, std::strerror(errno));
}

} // namespace sluice
