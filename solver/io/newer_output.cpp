#include "io/newer_output.h"

#include "io/atomic_file.h"
#include "io/csv_series.h"
#include "io/file_names.h"

#include <tinyxml2.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

namespace sluice {
namespace fs = std::filesystem;

namespace {

/// The snapshot number of a file of the series of case `name` in any form (`<name>_NNNN.vtp`,
/// `<name>_NNNN.pvtp`, a piece `<name>_NNNN_<p>.vtp`), or nothing.
std::optional<std::uint64_t> snapshot_number(const std::string& file, const std::string& name) {
    if (const auto index = series_index(file, name))
        return index;
    if (const auto index = numbered_file(file, name + "_", ".pvtp"))
        return index;
    if (const auto piece = piece_index(file, name))
        return piece->first;
    return std::nullopt;
}

/// The step of a checkpoint of case `name` (one process's or a piece), or nothing.
std::optional<std::uint64_t> checkpoint_file_step(const std::string& file,
                                                  const std::string& name) {
    if (const auto step = checkpoint_step(file, name))
        return step;
    if (const auto piece = process_checkpoint(file, name))
        return piece->first;
    return std::nullopt;
}

/// The file names of `dir`, sorted (none when it does not exist).
std::vector<std::string> file_names(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    if (ec)
        fail_output("list output directory", dir, ec.message());
    std::sort(names.begin(), names.end());
    return names;
}

/// The times the .pvd lists, by file name (none when it is missing or does not parse: the
/// files are named without their times then).
std::map<std::string, double> pvd_times(const fs::path& pvd) {
    std::map<std::string, double> times;
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(pvd.c_str()) != tinyxml2::XML_SUCCESS)
        return times;
    const tinyxml2::XMLElement* root = doc.FirstChildElement("VTKFile");
    const tinyxml2::XMLElement* collection = root ? root->FirstChildElement("Collection") : nullptr;
    for (const tinyxml2::XMLElement* e = collection ? collection->FirstChildElement("DataSet")
                                                    : nullptr;
         e; e = e->NextSiblingElement("DataSet"))
        if (const char* file = e->Attribute("file"))
            times[file] = e->DoubleAttribute("timestep");
    return times;
}

/// The data rows of a CSV series (csv_series.h) after time `time`; nothing when there are none
/// or the file is missing.
std::optional<NewerOutput::Rows> rows_after(const fs::path& path, double time) {
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    NewerOutput::Rows rows;
    rows.file = path.filename().string();
    std::string line;
    bool header_seen = false;
    while (std::getline(in, line)) {
        if (!header_seen) {
            header_seen = line.rfind("#", 0) != 0;
            continue;
        }
        if (line.empty())
            continue;
        const double t = std::strtod(line.c_str(), nullptr);
        if (kept_on_resume(t, time))
            continue;
        if (rows.count == 0)
            rows.first = t;
        rows.last = t;
        ++rows.count;
    }
    if (in.bad())
        fail_output("read", path, "read error");
    if (rows.count == 0)
        return std::nullopt;
    return rows;
}

std::string seconds(double t) {
    std::ostringstream out;
    out << t << " s";
    return out.str();
}

/// "a", "a and b", or "a … b (N files)".
std::string first_to_last(const std::vector<std::string>& files) {
    if (files.size() == 1)
        return files.front();
    if (files.size() == 2)
        return files.front() + " and " + files.back();
    return files.front() + " … " + files.back() + " (" + std::to_string(files.size()) + " files)";
}

} // namespace

NewerOutput find_newer_output(const fs::path& dir, const std::string& name,
                              std::size_t kept_snapshots, double time, std::uint64_t step) {
    NewerOutput newer;
    const std::map<std::string, double> times = pvd_times(dir / (name + ".pvd"));
    std::set<std::uint64_t> numbers;
    for (const std::string& file : file_names(dir)) {
        if (const auto number = snapshot_number(file, name); number && *number >= kept_snapshots) {
            numbers.insert(*number);
            newer.snapshot_files.push_back(file);
            if (const auto listed = times.find(file); listed != times.end())
                newer.snapshot_times.push_back(listed->second);
        }
        if (const auto at = checkpoint_file_step(file, name); at && *at > step)
            newer.checkpoint_files.push_back(file);
    }
    newer.snapshot_numbers.assign(numbers.begin(), numbers.end());
    std::sort(newer.snapshot_times.begin(), newer.snapshot_times.end());
    for (const std::string& csv : run_csv_files())
        if (auto rows = rows_after(dir / csv, time))
            newer.rows.push_back(std::move(*rows));
    return newer;
}

std::vector<std::string> NewerOutput::describe() const {
    std::vector<std::string> lines;
    if (!snapshot_files.empty()) {
        std::string line = std::to_string(snapshot_numbers.size()) +
                           (snapshot_numbers.size() == 1 ? " snapshot: " : " snapshots: ") +
                           first_to_last(snapshot_files);
        if (!snapshot_times.empty())
            line += snapshot_times.size() == 1 ? ", t = " + seconds(snapshot_times.front())
                                               : ", t = " + seconds(snapshot_times.front()) +
                                                     " to " + seconds(snapshot_times.back());
        lines.push_back(line);
    }
    for (const Rows& r : rows)
        lines.push_back(r.file + ": " + std::to_string(r.count) +
                        (r.count == 1
                             ? " row, t = " + seconds(r.first)
                             : " rows, t = " + seconds(r.first) + " to " + seconds(r.last)));
    if (!checkpoint_files.empty())
        lines.push_back(std::string(checkpoint_files.size() == 1 ? "a checkpoint" : "checkpoints") +
                        " of a later step: " + first_to_last(checkpoint_files));
    return lines;
}

void remove_checkpoints_after(const fs::path& dir, const std::string& name, std::uint64_t step) {
    for (const std::string& file : file_names(dir)) {
        const auto at = checkpoint_file_step(file, name);
        if (!at || *at <= step)
            continue;
        std::error_code ec;
        if (!fs::remove(dir / file, ec) && ec && ec != std::errc::no_such_file_or_directory)
            fail_output("remove checkpoint", dir / file, ec.message());
    }
}

} // namespace sluice
