#include "csv_row.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sluice;

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

// neighbours_bench's CSV was written with `std::ofstream << std::setprecision(6)`; its numbers
// must keep exactly those characters (postprocess/plot_neighbour_bench.py and older result files).
TEST(CsvRow, NumbersAreWhatAnOstreamAtThatPrecisionWrites) {
    const double values[] = {0.0,
                             1.0,
                             0.5,
                             static_cast<double>(1.0f / 3.0f),
                             1e6,
                             1234567.0,
                             0.018432,
                             2.5e-7,
                             -3.75,
                             std::nan(""),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
    for (const double v : values) {
        std::ostringstream expected;
        expected << std::setprecision(6) << v;
        EXPECT_EQ(CsvRow().number(v).str(), expected.str()) << v;
    }
    EXPECT_EQ(CsvRow().number(1.0 / 3.0, 9).str(), "0.333333333");
    EXPECT_EQ(CsvRow().number(0.125, 17).str(), "0.125");
}

TEST(CsvRow, CellsAreJoinedByCommas) {
    CsvRow row;
    row.integer(3).integer(4000000000LL).text("circles-0").number(0.5).text("");
    EXPECT_EQ(row.str(), "3,4000000000,circles-0,0.5,");
    EXPECT_EQ(row.cells(), 5u);
}

TEST(CsvRow, NonFiniteNumbersCanBeEmptyCells) {
    CsvRow row;
    row.number(std::nan(""), 9, CsvRow::NonFinite::empty)
        .number(std::numeric_limits<double>::infinity(), 9, CsvRow::NonFinite::empty)
        .number(2.0, 9, CsvRow::NonFinite::empty);
    EXPECT_EQ(row.str(), ",,2");
    EXPECT_EQ(row.cells(), 3u);
}

TEST(CsvRow, TextThatWouldSplitACellIsRefused) {
    for (const char* bad : {"a,b", "say \"x\"", "two\nlines", "cr\r"}) {
        CsvRow row;
        EXPECT_THROW(row.text(bad), std::invalid_argument) << bad;
        EXPECT_EQ(row.cells(), 0u);
    }
    EXPECT_NO_THROW(CsvRow().text("clear:0.0039|histogram:0.0123; W = 34"));
}

TEST(CsvFile, WritesTheHeaderThenEveryRow) {
    const auto path = std::filesystem::temp_directory_path() / "sluice_test_csv_row.csv";
    std::vector<CsvRow> rows(2);
    rows[0].integer(2).text("counting-sort/strips/0.5").number(std::nan(""));
    rows[1].integer(3).text("linked-list/moore/1/index").number(0.25);
    write_csv_file(path.string(), {"dim", "module", "ms"}, rows);
    EXPECT_EQ(read_file(path),
              "dim,module,ms\n2,counting-sort/strips/0.5,nan\n3,linked-list/moore/1/index,0.25\n");
    // A second write starts afresh.
    write_csv_file(path.string(), {"dim"}, {});
    EXPECT_EQ(read_file(path), "dim\n");
    std::filesystem::remove(path);
}

TEST(CsvFile, RefusesRowsOfTheWrongWidthAndUnwritablePaths) {
    const auto path = std::filesystem::temp_directory_path() / "sluice_test_csv_row_bad.csv";
    std::vector<CsvRow> rows(1);
    rows[0].integer(1);
    EXPECT_THROW(write_csv_file(path.string(), {"a", "b"}, rows), std::invalid_argument);
    EXPECT_FALSE(std::filesystem::exists(path)); // checked before the file is opened
    EXPECT_THROW(write_csv_file("/nonexistent-dir/x.csv", {"a"}, rows), std::runtime_error);
}
