#pragma once
/// \file csv_row.h
/// A minimal CSV writer: rows built cell by cell, and a file written whole (header, then rows).
/// Cells are never quoted, so a text cell may hold no comma, double quote or line break (the
/// caller replaces them; text() throws). Numbers are written as printf's %g (the same characters
/// as a std::ostream at that precision writes): "0.333333", "1e+06", "nan", "inf".
/// In neighbours/, the lowest layer, so that the neighbour benchmark (which links nothing of
/// solver/) and any solver layer that may use neighbours/ can share it.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

/// One row of a CSV file, without its line end.
class CsvRow {
public:
    /// How a NaN or an infinity is written.
    enum class NonFinite {
        text, ///< as %g writes it: "nan", "-nan", "inf", "-inf"
        empty ///< as an empty cell (no reading)
    };

    /// Appends a text cell. \throws std::invalid_argument if it holds ',', '"', '\n' or '\r'.
    CsvRow& text(std::string_view cell);
    /// Appends an integer cell, in decimal.
    CsvRow& integer(long long value);
    /// Appends a number to `significant_digits` significant digits (printf's %.Ng; 6 is what a
    /// std::ostream writes by default). \pre 1 <= significant_digits <= 17.
    CsvRow& number(double value, int significant_digits = 6,
                   NonFinite non_finite = NonFinite::text);

    const std::string& str() const { return line_; }
    std::size_t cells() const { return cells_; }

private:
    void separate();
    std::string line_;
    std::size_t cells_ = 0;
};

/// Writes `path` afresh: the header row (the column names, which obey text()'s rule), then the
/// rows, each ended by '\n'.
/// \throws std::invalid_argument if a row's cell count differs from the column count;
///         std::runtime_error naming the path if the file cannot be written.
void write_csv_file(const std::string& path, const std::vector<std::string>& columns,
                    const std::vector<CsvRow>& rows);

} // namespace sluice
