/// atomic_file.h: a file appears whole or not at all. Writes that fail midway (a file-size limit
/// hit inside fwrite or at the flush), a missing folder and a rename onto a folder leave neither a
/// new target nor the hidden temporary, and an earlier file under the final name stays as it was.

#include "io/atomic_file.h"

#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/resource.h>

namespace fs = std::filesystem;
using namespace sluice;
using test::files_in;
using test::read_file;

namespace {

/// Lowers this process's file-size limit (RLIMIT_FSIZE) to `bytes` for its lifetime: a write past
/// it fails with EFBIG (SIGXFSZ ignored meanwhile), as a full disk would fail it, midway.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = saved_;
        lowered.rlim_cur = bytes;
        ok_ = setrlimit(RLIMIT_FSIZE, &lowered) == 0;
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        std::signal(SIGXFSZ, previous_handler_);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool ok() const { return ok_; }

private:
    rlimit saved_{};
    void (*previous_handler_)(int) = SIG_DFL;
    bool ok_ = false;
};

class AtomicFileTest : public test::TempFolderTest {
protected:
    AtomicFileTest() : TempFolderTest("sluice_test_atomic_file_") {}
};

/// Runs `write`, expects the std::runtime_error "output: cannot write 'PATH': WHY" with `why`.
template <typename WriteT>
void expect_write_error(WriteT write, const fs::path& path, const std::string& why) {
    try {
        write();
        ADD_FAILURE() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "output: cannot write '" + path.string() + "': " + why);
    }
}

// ---------------------------------------------------------------------------------------------

TEST(AtomicFile, TemporaryIsAHiddenFileInTheSameFolder) {
    EXPECT_EQ(temp_path_for("/a/b/dam_0001.vtp"), fs::path("/a/b/.dam_0001.vtp.tmp"));
    EXPECT_EQ(temp_path_for("gauges.csv"), fs::path(".gauges.csv.tmp"));
    EXPECT_EQ(temp_path_for("out/summary.json"), fs::path("out/.summary.json.tmp"));
}

TEST(AtomicFile, MessagesQuoteThePathAndSayWhy) {
    EXPECT_EQ(quoted("/tmp/x y.csv"), "'/tmp/x y.csv'");
    try {
        fail_output("append to", "/tmp/g.csv", "No space left on device");
        FAIL() << "fail_output returned";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "output: cannot append to '/tmp/g.csv': No space left on device");
    }
}

TEST_F(AtomicFileTest, WritesTheExactBytesAndLeavesNoTemporary) {
    std::string bytes = "line 1\nline 2\r\n";
    bytes += std::string(1, '\0') + "\xff binary tail";
    const fs::path path = root_ / "data.bin";
    write_file_atomically(path, bytes);
    EXPECT_EQ(read_file(path), bytes);
    EXPECT_EQ(fs::file_size(path), bytes.size());

    write_file_atomically(root_ / "synced.bin", bytes, /*sync=*/true);
    EXPECT_EQ(read_file(root_ / "synced.bin"), bytes);

    write_file_atomically(root_ / "empty.txt", "");
    EXPECT_TRUE(fs::is_regular_file(root_ / "empty.txt"));
    EXPECT_EQ(fs::file_size(root_ / "empty.txt"), 0u);

    EXPECT_EQ(files_in(root_), (std::set<std::string>{"data.bin", "synced.bin", "empty.txt"}));
}

TEST_F(AtomicFileTest, ReplacesAnEarlierFileWholly) {
    const fs::path path = root_ / "summary.json";
    write_file_atomically(path, std::string(10000, 'a'));
    write_file_atomically(path, "short");
    EXPECT_EQ(read_file(path), "short"); // no tail of the longer file
    EXPECT_EQ(files_in(root_), std::set<std::string>{"summary.json"});
}

TEST_F(AtomicFileTest, WriteFailingMidwayLeavesNoTargetAndNoTemporary) {
    const fs::path path = root_ / "big.vtp";
    const std::string bytes(1 << 20, 'x'); // past stdio's buffer: fwrite itself fails
    {
        FileSizeLimit limit(4096);
        ASSERT_TRUE(limit.ok());
        expect_write_error([&] { write_file_atomically(path, bytes); }, path, std::strerror(EFBIG));
    }
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(temp_path_for(path)));
    EXPECT_TRUE(files_in(root_).empty());
}

TEST_F(AtomicFileTest, WriteFailingAtTheFlushKeepsTheEarlierFile) {
    const fs::path path = root_ / "dam.pvd";
    write_file_atomically(path, "old complete file\n");
    const std::string bytes(200, 'y'); // fits stdio's buffer: the flush is what fails
    {
        FileSizeLimit limit(100);
        ASSERT_TRUE(limit.ok());
        expect_write_error([&] { write_file_atomically(path, bytes, /*sync=*/true); }, path,
                           std::strerror(EFBIG));
    }
    EXPECT_EQ(read_file(path), "old complete file\n");
    EXPECT_EQ(files_in(root_), std::set<std::string>{"dam.pvd"});
}

TEST_F(AtomicFileTest, MissingFolderThrowsNamingThePath) {
    const fs::path path = root_ / "no_such_folder" / "a.csv";
    expect_write_error([&] { write_file_atomically(path, "x"); }, path, std::strerror(ENOENT));
    EXPECT_TRUE(files_in(root_).empty());
}

TEST_F(AtomicFileTest, FailedRenameRemovesTheTemporaryAndKeepsWhatWasThere) {
    // The final name is a non-empty folder: the bytes are written, the rename fails.
    const fs::path path = root_ / "taken";
    fs::create_directories(path);
    std::ofstream(path / "inside.txt") << "keep";
    try {
        write_file_atomically(path, "new bytes");
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_EQ(
            message.rfind("output: cannot rename temporary file to '" + path.string() + "': ", 0),
            0u)
            << message;
    }
    EXPECT_FALSE(fs::exists(temp_path_for(path)));
    EXPECT_EQ(files_in(root_), std::set<std::string>{"taken"});
    EXPECT_EQ(read_file(path / "inside.txt"), "keep");
}

TEST_F(AtomicFileTest, MoveIntoPlaceRenamesOrRemovesTheTemporary) {
    const fs::path path = root_ / "a.txt";
    const fs::path tmp = temp_path_for(path);
    std::ofstream(tmp) << "whole";
    move_into_place(tmp, path);
    EXPECT_EQ(read_file(path), "whole");
    EXPECT_FALSE(fs::exists(tmp));

    const fs::path elsewhere = root_ / "missing_folder" / "b.txt";
    std::ofstream(tmp) << "orphan";
    EXPECT_THROW(move_into_place(tmp, elsewhere), std::runtime_error);
    EXPECT_FALSE(fs::exists(tmp));
    EXPECT_EQ(files_in(root_), std::set<std::string>{"a.txt"});
}

} // namespace
