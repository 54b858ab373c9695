#pragma once
/// \file temp_folder.h
/// What the file-writing tests share: a fresh folder per test under the system's temporary
/// folder (removed afterwards, also when the test fails), and reading back what was written.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

namespace sluice::test {

/// The whole file, bytes as they are ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The names of the entries of a folder.
inline std::set<std::string> files_in(const std::filesystem::path& dir) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

/// A fixture whose root_ is a new folder `PREFIX<test name>_<random>` for each test.
class TempFolderTest : public ::testing::Test {
protected:
    explicit TempFolderTest(std::string prefix) : prefix_(std::move(prefix)) {}
    void SetUp() override {
        std::random_device rd;
        root_ = std::filesystem::temp_directory_path() /
                (prefix_ +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                 "_" + std::to_string(rd()));
        std::filesystem::create_directories(root_);
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
    std::filesystem::path root_;

private:
    std::string prefix_;
};

} // namespace sluice::test
