#pragma once
/// \file atomic_file.h
/// Files that appear whole or not at all: written to a hidden temporary in the same directory
/// (".<file>.tmp") and renamed into place, so a crash never leaves a half-written file under a
/// final name. (Renames are atomic; nothing is fsync'ed unless asked, so a power loss may still
/// lose recent files.) Errors throw std::runtime_error naming the path and the cause in words
/// ("No space left on device").

#include <filesystem>
#include <string>

namespace sluice {

/// "'path'", for messages.
std::string quoted(const std::filesystem::path& p);

/// Throws std::runtime_error "output: cannot WHAT 'PATH': WHY".
[[noreturn]] void fail_output(const std::string& what, const std::filesystem::path& p,
                              const std::string& why);

/// The hidden temporary a file is written to before it is renamed into place: same directory
/// (so the rename is atomic), ".<file>.tmp".
std::filesystem::path temp_path_for(const std::filesystem::path& path);

/// Renames `tmp` to `path`; on failure removes `tmp` and throws naming `path`.
void move_into_place(const std::filesystem::path& tmp, const std::filesystem::path& path);

/// Writes `bytes` to `path` through its temporary; checks every write, flush and close, so a
/// full disk is reported rather than leaving a truncated file. With `sync`, the data reach the
/// disk (fsync) before the rename: a checkpoint survives a power cut too.
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes,
                           bool sync = false);

} // namespace sluice
