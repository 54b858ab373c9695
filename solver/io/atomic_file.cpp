#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace sluice {
namespace fs = std::filesystem;

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

void fail_output(const std::string& what, const fs::path& p, const std::string& why) {
    throw std::runtime_error("output: cannot " + what + " " + quoted(p) + ": " + why);
}

fs::path temp_path_for(const fs::path& path) {
    return path.parent_path() / ("." + path.filename().string() + ".tmp");
}

void move_into_place(const fs::path& tmp, const fs::path& path) {
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        fail_output("rename temporary file to", path, ec.message());
    }
}

void write_file_atomically(const fs::path& path, const std::string& bytes, bool sync) {
    const fs::path tmp = temp_path_for(path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr)
        fail_output("write", path, std::strerror(errno));
    int err = 0;
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (!ok)
        err = errno;
    if (ok && std::fflush(f) != 0) {
        ok = false;
        err = errno;
    }
    if (ok && sync && ::fsync(fileno(f)) != 0) {
        ok = false;
        err = errno;
    }
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        std::error_code ec;
        fs::remove(tmp, ec);
        fail_output("write", path, std::strerror(err != 0 ? err : EIO));
    }
    move_into_place(tmp, path);
}

} // namespace sluice
