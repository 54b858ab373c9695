/// csv_series.h: comment lines, the header, one flushed row per sample with NaN written empty and
/// the documented digits, and a restarted run's resume: rows after the restart time dropped,
/// the earlier file's comments kept, a changed header refused.

#include "io/atomic_file.h"
#include "io/csv_series.h"

#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;
using namespace sluice;
using test::files_in;
using test::read_file;

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

class CsvSeriesTest : public test::TempFolderTest {
protected:
    CsvSeriesTest() : TempFolderTest("sluice_test_csv_series_") {}
    void SetUp() override {
        TempFolderTest::SetUp();
        path_ = root_ / "gauges.csv";
    }
    /// A first run's file: two comments, columns H1,H2, rows at t = 0, 0.1, …, 0.5.
    void write_first_run() {
        CsvSeries csv(path_, {"first run", "H: m"}, {"H1", "H2"});
        for (int k = 0; k <= 5; ++k)
            csv.write(0.1 * k, {double(k), 10.0 * k});
    }
    fs::path path_;
};

// ---------------------------------------------------------------------------------------------

TEST_F(CsvSeriesTest, CommentsThenHeaderThenOneRowPerSample) {
    {
        CsvSeries csv(path_, {"water heights", "t: s; H1, H2: m"}, {"H1", "H2"});
        EXPECT_EQ(csv.path(), path_);
        csv.write(0.0, {0.25, 0.5});
        csv.write(0.5, {-1.0, 1e-3});
    }
    EXPECT_EQ(read_file(path_), "# water heights\n"
                                "# t: s; H1, H2: m\n"
                                "t,H1,H2\n"
                                "0,0.25,0.5\n"
                                "0.5,-1,0.001\n");
    EXPECT_EQ(files_in(root_), std::set<std::string>{"gauges.csv"}); // no temporary left
}

TEST_F(CsvSeriesTest, NoCommentsAndNoColumnsGiveJustTheTimeColumn) {
    {
        CsvSeries csv(path_, {}, {});
        csv.write(2.0, {});
    }
    EXPECT_EQ(read_file(path_), "t\n2\n");
}

TEST_F(CsvSeriesTest, ValuesWithoutAReadingAreEmpty) {
    {
        CsvSeries csv(path_, {}, {"a", "b", "c"});
        csv.write(1.0, {nan_value, 3.0, nan_value});
        csv.write(2.0, {std::numeric_limits<double>::infinity(), nan_value, 4.0});
    }
    EXPECT_EQ(read_file(path_), "t,a,b,c\n1,,3,\n2,,,4\n");
}

TEST_F(CsvSeriesTest, FloatsExactlyAndTimeAsGiven) {
    const float third = 1.0f / 3.0f;
    const double t = 0.1 + 0.2; // 0.30000000000000004: the row must hold this t, not 0.3
    {
        CsvSeries csv(path_, {}, {"f", "d"});
        csv.write(t, {double(third), 1.0 / 3.0});
    }
    const std::string text = read_file(path_);
    const std::string row = text.substr(text.find('\n') + 1);
    EXPECT_EQ(row, "0.30000000000000004,0.333333343,0.333333333\n");
    EXPECT_EQ(std::strtod(row.c_str(), nullptr), t);
    EXPECT_EQ(std::strtof(row.c_str() + row.find(',') + 1, nullptr), third);
}

TEST_F(CsvSeriesTest, EveryRowIsOnDiskWhenWriteReturns) {
    CsvSeries csv(path_, {"c"}, {"x"});
    EXPECT_EQ(read_file(path_), "# c\nt,x\n");
    csv.write(0.5, {7.0});
    EXPECT_EQ(read_file(path_), "# c\nt,x\n0.5,7\n"); // still open: flushed, not only closed
}

TEST_F(CsvSeriesTest, WrongValueCountThrowsAndWritesNothing) {
    CsvSeries csv(path_, {}, {"x", "y"});
    EXPECT_THROW(csv.write(0.0, {1.0}), std::invalid_argument);
    EXPECT_THROW(csv.write(0.0, {1.0, 2.0, 3.0}), std::invalid_argument);
    EXPECT_EQ(read_file(path_), "t,x,y\n");
}

TEST_F(CsvSeriesTest, StartingAfreshReplacesAnEarlierFile) {
    write_first_run();
    {
        CsvSeries csv(path_, {"second run"}, {"P1"}); // no resume: the old columns don't matter
        csv.write(0.0, {1.5});
    }
    EXPECT_EQ(read_file(path_), "# second run\nt,P1\n0,1.5\n");
}

TEST_F(CsvSeriesTest, ResumeDropsRowsAfterTheRestartAndAppends) {
    write_first_run();
    {
        // Restart from a checkpoint at t = 0.3 (the row written at 0.1 * 3 is kept: within the
        // relative tolerance of 1e-12), with new comments that must not replace the old ones.
        CsvSeries csv(path_, {"restarted"}, {"H1", "H2"}, 0.3);
        EXPECT_EQ(read_file(path_), "# first run\n"
                                    "# H: m\n"
                                    "t,H1,H2\n"
                                    "0,0,0\n"
                                    "0.10000000000000001,1,10\n"
                                    "0.20000000000000001,2,20\n"
                                    "0.30000000000000004,3,30\n");
        csv.write(0.4, {-4.0, nan_value});
    }
    const std::string text = read_file(path_);
    EXPECT_EQ(text.substr(text.rfind("0.30000000000000004")), "0.30000000000000004,3,30\n"
                                                              "0.40000000000000002,-4,\n");
    EXPECT_EQ(files_in(root_), std::set<std::string>{"gauges.csv"});
}

TEST_F(CsvSeriesTest, ResumeAtZeroKeepsOnlyTheFirstRow) {
    write_first_run();
    { CsvSeries csv(path_, {}, {"H1", "H2"}, 0.0); }
    EXPECT_EQ(read_file(path_), "# first run\n# H: m\nt,H1,H2\n0,0,0\n");
}

TEST_F(CsvSeriesTest, ResumeWithoutAFileOrHeaderStartsAfresh) {
    { CsvSeries csv(path_, {"new"}, {"x"}, 1.0); }
    EXPECT_EQ(read_file(path_), "# new\nt,x\n");

    std::ofstream(path_) << "# only a comment, the run died before its header\n";
    { CsvSeries csv(path_, {"again"}, {"x"}, 1.0); }
    EXPECT_EQ(read_file(path_), "# again\nt,x\n");
}

TEST_F(CsvSeriesTest, ResumeWithOtherColumnsThrowsAndKeepsTheFile) {
    write_first_run();
    const std::string before = read_file(path_);
    try {
        CsvSeries csv(path_, {}, {"H1", "H3"}, 0.2);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(quoted(path_)), std::string::npos) << message;
        EXPECT_NE(message.find("t,H1,H3"), std::string::npos) << message;
    }
    EXPECT_EQ(read_file(path_), before);
}

TEST_F(CsvSeriesTest, UnwritablePathThrowsNamingIt) {
    std::ofstream(root_ / "regular_file") << "not a folder";
    const fs::path path = root_ / "regular_file" / "diagnostics.csv";
    try {
        CsvSeries csv(path, {}, {"x"});
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(quoted(path)), std::string::npos) << e.what();
    }
}

} // namespace
