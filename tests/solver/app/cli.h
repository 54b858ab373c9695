#pragma once
/// \file cli.h
/// What the tests of the `sluice` command line share (test_cli.cpp, test_cli_restart.cpp): running
/// the binary and capturing its output and exit code, a fresh folder per test, the check that a
/// series is complete, and a small 2D case.

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace cli_test {
namespace fs = std::filesystem;

struct Result {
    int exit_code = -1;
    std::string output; ///< stdout and stderr together
};

/// Runs `sluice ARGS` in `dir` and captures its output and exit code.
inline Result sluice(const std::string& args, const fs::path& dir = fs::temp_directory_path()) {
    const std::string command =
        "cd '" + dir.string() + "' && '" SLUICE_BINARY_DIR "/bin/sluice' " + args + " 2>&1";
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return r;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe))
        r.output += buffer;
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

inline std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// A fresh folder per test, removed afterwards.
class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("sluice_cli_" + std::string(info->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir_ / name) << text;
        return dir_ / name;
    }

    /// Checks that `out` holds a complete series: the .pvd parses, lists `expected` files that
    /// all exist, and no temporary file is left behind.
    void expect_complete_series(const fs::path& out, const std::string& name) {
        tinyxml2::XMLDocument pvd;
        ASSERT_EQ(pvd.LoadFile((out / (name + ".pvd")).c_str()), tinyxml2::XML_SUCCESS);
        const auto* collection = pvd.FirstChildElement("VTKFile")->FirstChildElement("Collection");
        ASSERT_NE(collection, nullptr);
        int listed = 0;
        for (const auto* e = collection->FirstChildElement("DataSet"); e;
             e = e->NextSiblingElement("DataSet")) {
            EXPECT_TRUE(fs::exists(out / e->Attribute("file"))) << e->Attribute("file");
            ++listed;
        }
        EXPECT_GE(listed, 1);
        for (const auto& entry : fs::directory_iterator(out))
            EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp"))
                << "temporary file left: " << entry.path();
    }

    fs::path dir_;
};

/// The number of data sets a series (.pvd) lists, and their times into `times` if given.
inline std::size_t pvd_entries(const fs::path& pvd, std::vector<double>* times = nullptr) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(pvd.c_str()) != tinyxml2::XML_SUCCESS)
        return 0;
    std::size_t n = 0;
    for (const auto* e = doc.FirstChildElement("VTKFile")
                             ->FirstChildElement("Collection")
                             ->FirstChildElement("DataSet");
         e; e = e->NextSiblingElement("DataSet"), ++n)
        if (times)
            times->push_back(e->DoubleAttribute("timestep"));
    return n;
}

inline const std::string small_case = R"(<sluice name="small" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.05" outputInterval="0.01"/>
</sluice>
)";

} // namespace cli_test
