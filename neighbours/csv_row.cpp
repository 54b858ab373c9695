#include "csv_row.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace sluice {

void CsvRow::separate() {
    if (cells_++ > 0)
        line_ += ',';
}

CsvRow& CsvRow::text(std::string_view cell) {
    if (cell.find_first_of(",\"\n\r") != std::string_view::npos)
        throw std::invalid_argument("CSV cell '" + std::string(cell) +
                                    "' holds a comma, a double quote or a line break");
    separate();
    line_ += cell;
    return *this;
}

CsvRow& CsvRow::integer(long long value) {
    separate();
    line_ += std::to_string(value);
    return *this;
}

CsvRow& CsvRow::number(double value, int significant_digits, NonFinite non_finite) {
    separate();
    if (!std::isfinite(value) && non_finite == NonFinite::empty)
        return *this;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, value);
    line_ += buffer;
    return *this;
}

void write_csv_file(const std::string& path, const std::vector<std::string>& columns,
                    const std::vector<CsvRow>& rows) {
    CsvRow header;
    for (const std::string& c : columns)
        header.text(c);
    for (const CsvRow& row : rows)
        if (row.cells() != columns.size())
            throw std::invalid_argument("CSV row of " + std::to_string(row.cells()) +
                                        " cells for " + std::to_string(columns.size()) +
                                        " columns (" + path + ")");
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << header.str() << '\n';
    for (const CsvRow& row : rows)
        f << row.str() << '\n';
    f.close();
    if (!f)
        throw std::runtime_error("cannot write " + path + " (writing failed)");
}

} // namespace sluice
