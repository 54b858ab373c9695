#pragma once
/// \file file_names.h
/// The numbered files of a run: `<name>_NNNN.vtp` (series), `<name>_checkpoint_<step>.chk`.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace sluice {

/// The number of a file called PREFIX<digits>SUFFIX (at most 18 digits), or nothing.
inline std::optional<std::uint64_t>
numbered_file(const std::string& file, const std::string& prefix, const std::string& suffix) {
    if (file.size() <= prefix.size() + suffix.size() ||
        file.compare(0, prefix.size(), prefix) != 0 ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        return std::nullopt;
    const std::string digits =
        file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoull(digits);
}

/// `<name>_NNNN.vtp`: snapshot k of a series (at least four digits), the name series_index reads.
inline std::string series_file(const std::string& name, std::uint64_t k) {
    std::string digits = std::to_string(k);
    if (digits.size() < 4)
        digits.insert(0, 4 - digits.size(), '0');
    return name + "_" + digits + ".vtp";
}

/// The index of a series snapshot `<name>_NNNN.vtp`, or nothing.
inline std::optional<std::uint64_t> series_index(const std::string& file, const std::string& name) {
    return numbered_file(file, name + "_", ".vtp");
}

/// The (snapshot, piece) of a piece `<name>_NNNN_<piece>.vtp` of a run over several processes,
/// or nothing.
inline std::optional<std::pair<std::uint64_t, std::uint64_t>> piece_index(const std::string& file,
                                                                          const std::string& name) {
    const std::size_t cut = file.rfind('_');
    if (cut == std::string::npos || cut <= name.size())
        return std::nullopt;
    const auto snapshot = numbered_file(file.substr(0, cut) + ".vtp", name + "_", ".vtp");
    const auto piece = numbered_file(file.substr(cut), "_", ".vtp");
    if (!snapshot || !piece)
        return std::nullopt;
    return std::make_pair(*snapshot, *piece);
}

/// The step of a checkpoint `<name>_checkpoint_<step>.chk`, or nothing.
inline std::optional<std::uint64_t> checkpoint_step(const std::string& file,
                                                    const std::string& name) {
    return numbered_file(file, name + "_checkpoint_", ".chk");
}

/// The (step, process) of a checkpoint of one process of several,
/// `<name>_checkpoint_<step>_<process>.chk`, or nothing.
inline std::optional<std::pair<std::uint64_t, std::uint64_t>>
process_checkpoint(const std::string& file, const std::string& name) {
    const std::size_t cut = file.rfind('_');
    if (cut == std::string::npos || cut <= name.size())
        return std::nullopt;
    const auto step = checkpoint_step(file.substr(0, cut) + ".chk", name);
    const auto process = numbered_file(file.substr(cut), "_", ".chk");
    if (!step || !process)
        return std::nullopt;
    return std::make_pair(*step, *process);
}

} // namespace sluice
