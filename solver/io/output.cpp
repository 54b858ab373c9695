// The series of one run's snapshots: numbering, the .pvd, restarts that continue a series, and
// the pieces of a run over several processes (io/output.h). Each file is written by
// io/vtp_file.h.

#include "io/output.h"

#include "io/atomic_file.h"
#include "io/file_names.h"
#include "io/polydata_file.h"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace sluice {
namespace fs = std::filesystem;

namespace {

/// Names a previous run of case `name` leaves in its directory (see the constructor's
/// contract): `<name>.pvd`, `<name>_<digits>.vtp`, `<name>_failed.vtp`, summary.json,
/// gauges.csv, diagnostics.csv and checkpoints.
bool is_run_file(const std::string& file, const std::string& name) {
    return file == name + ".pvd" || file == name + "_failed.vtp" || file == "summary.json" ||
           file == "gauges.csv" || file == "diagnostics.csv" || series_index(file, name) ||
           checkpoint_step(file, name) || file == name + "_failed.pvtp" ||
           numbered_file(file, name + "_", ".pvtp") || piece_index(file, name) ||
           numbered_file(file, name + "_failed_", ".vtp") || process_checkpoint(file, name);
}

bool is_stale(const std::string& file, const std::string& name) {
    const std::string tmp_suffix = ".tmp";
    if (file.size() > 1 + tmp_suffix.size() && file[0] == '.' &&
        file.compare(file.size() - tmp_suffix.size(), tmp_suffix.size(), tmp_suffix) == 0)
        return is_run_file(file.substr(1, file.size() - 1 - tmp_suffix.size()), name);
    return is_run_file(file, name);
}

/// Removes what a run wrote after the checkpoint a restart continues from: the files for which
/// `later(name)` holds, and the temporaries `.<name>.tmp` of such files that it did not finish.
template <class PredicateT>
void remove_written_after_checkpoint(const fs::path& directory, PredicateT later);

/// A case name must be a plain file name (it prefixes every file of the series).
void require_plain_name(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        throw std::invalid_argument("output: invalid case name '" + name +
                                    "' (must be a plain file name)");
}

/// Removes the files of `directory` whose name satisfies `remove`; `why` words the error.
template <class PredicateT>
void remove_files(const fs::path& directory, PredicateT remove, const char* why) {
    std::error_code ec;
    std::vector<fs::path> chosen;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
        if (remove(it->path().filename().string()))
            chosen.push_back(it->path());
    if (ec)
        fail_output("list output directory", directory, ec.message());
    for (const fs::path& p : chosen)
        if (!fs::remove(p, ec) && ec)
            fail_output(why, p, ec.message());
}

template <class PredicateT>
void remove_written_after_checkpoint(const fs::path& directory, PredicateT later) {
    remove_files(
        directory,
        [&](const std::string& file) {
            const bool temporary =
                file.size() > 5 && file[0] == '.' && file.compare(file.size() - 4, 4, ".tmp") == 0;
            return later(temporary ? file.substr(1, file.size() - 5) : file);
        },
        "remove output file written after the checkpoint");
}

} // namespace

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name)
    : directory_(std::move(directory)), name_(std::move(case_name)) {
    require_plain_name(name_);
    std::error_code ec;
    fs::create_directories(directory_, ec);
    if (ec || !fs::is_directory(directory_))
        fail_output("create output directory", directory_,
                    ec ? ec.message() : "exists and is not a directory");

    remove_files(
        directory_, [&](const std::string& file) { return is_stale(file, name_); },
        "remove stale output file");
}

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name,
                                           const std::vector<double>& resume_times)
    : directory_(std::move(directory)), name_(std::move(case_name)) {
    require_plain_name(name_);
    for (std::size_t k = 0; k < resume_times.size(); ++k) {
        char index[32];
        std::snprintf(index, sizeof index, "_%04zu.vtp", k);
        const fs::path path = directory_ / (name_ + index);
        if (!fs::exists(path))
            fail_output("resume the series in", directory_,
                        "its snapshot " + path.filename().string() + " is missing");
        complete_.emplace_back(resume_times[k]);
    }
    reserved_ = complete_.size();
    // What the interrupted run wrote after its checkpoint is written again: remove it, and the
    // temporaries of writes it did not finish.
    remove_files(
        directory_,
        [&](const std::string& file) {
            const auto index = series_index(file, name_);
            const bool temporary = file.size() > 5 && file[0] == '.' &&
                                   file.compare(file.size() - 4, 4, ".tmp") == 0 &&
                                   is_stale(file, name_);
            return (index && *index >= resume_times.size()) || file == name_ + "_failed.vtp" ||
                   temporary;
        },
        "remove output file written after the checkpoint");
    write_pvd();
}

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name,
                                           const std::vector<double>& resume_times, int piece,
                                           int pieces)
    : directory_(std::move(directory)), name_(std::move(case_name)), piece_(piece),
      pieces_(pieces) {
    require_plain_name(name_);
    if (pieces < 1 || piece < 0 || piece >= pieces)
        throw std::logic_error("output: 0 <= piece < pieces");
    for (std::size_t k = 0; k < resume_times.size(); ++k) {
        for (const fs::path& p : {piece_path(k, piece), pvtp_path(k)})
            if ((piece == 0 || p.extension() == ".vtp") && !fs::exists(p))
                fail_output("resume the series in", directory_,
                            "its snapshot " + p.filename().string() + " is missing");
        complete_.emplace_back(resume_times[k]);
    }
    reserved_ = published_ = complete_.size();
    // What this process (piece 0: and the series' own files) wrote after the checkpoint goes.
    const std::string own_failed = name_ + "_failed_" + std::to_string(piece) + ".vtp";
    auto later = [&](const std::string& file) {
        if (const auto p = piece_index(file, name_))
            return p->second == static_cast<std::uint64_t>(piece) && p->first >= reserved_;
        if (file == own_failed)
            return true;
        if (piece != 0)
            return false;
        const auto index = numbered_file(file, name_ + "_", ".pvtp");
        return (index && *index >= reserved_) || file == name_ + "_failed.pvtp";
    };
    remove_written_after_checkpoint(directory_, later);
    if (piece == 0)
        write_pvd();
}

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name,
                                           const std::vector<double>& resume_times, int piece,
                                           int pieces, RegroupedSeries)
    : directory_(std::move(directory)), name_(std::move(case_name)), piece_(piece),
      pieces_(pieces) {
    require_plain_name(name_);
    if (pieces < 0 || piece < 0 || piece >= std::max(pieces, 1))
        throw std::logic_error("output: 0 <= piece < pieces, or piece 0 of none");
    for (std::size_t k = 0; k < resume_times.size(); ++k) {
        const fs::path parallel = pvtp_path(k);
        const fs::path single = path_of(k);
        const bool is_parallel = fs::exists(parallel);
        if (piece == 0 && !is_parallel && !fs::exists(single))
            fail_output("resume the series in", directory_,
                        "its snapshot " + single.filename().string() + " (or " +
                            parallel.filename().string() + ") is missing");
        kept_files_.push_back((is_parallel ? parallel : single).filename().string());
        complete_.emplace_back(resume_times[k]);
    }
    reserved_ = published_ = complete_.size();
    if (piece != 0)
        return;
    // What the interrupted run wrote after its checkpoint, by however many processes.
    auto later = [&](const std::string& file) {
        if (const auto p = piece_index(file, name_))
            return p->first >= reserved_;
        if (const auto index = series_index(file, name_))
            return *index >= reserved_;
        if (const auto index = numbered_file(file, name_ + "_", ".pvtp"))
            return *index >= reserved_;
        return file == name_ + "_failed.vtp" || file == name_ + "_failed.pvtp" ||
               numbered_file(file, name_ + "_failed_", ".vtp").has_value();
    };
    remove_written_after_checkpoint(directory_, later);
    write_pvd();
}

fs::path SnapshotSeriesWriter::pvd_path() const {
    return directory_ / (name_ + ".pvd");
}

fs::path SnapshotSeriesWriter::path_of(std::size_t index) const {
    return directory_ / series_file(name_, index);
}

fs::path SnapshotSeriesWriter::piece_path(std::size_t index, int piece) const {
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, "_%04zu_%d.vtp", index, piece);
    return directory_ / (name_ + suffix);
}

fs::path SnapshotSeriesWriter::pvtp_path(std::size_t index) const {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "_%04zu.pvtp", index);
    return directory_ / (name_ + suffix);
}

void SnapshotSeriesWriter::set_pieces(int piece, int pieces) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reserved_ > 0 || pieces < 1 || piece < 0 || piece >= pieces)
        throw std::logic_error("output: set_pieces before the first snapshot, 0 <= piece < pieces");
    piece_ = piece;
    pieces_ = pieces;
}

std::size_t SnapshotSeriesWriter::complete_prefix() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t k = 0;
    while (k < complete_.size() && complete_[k])
        ++k;
    return k;
}

void SnapshotSeriesWriter::publish(std::size_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pieces_ == 0 || count > complete_.size())
        throw std::logic_error("output: publish in pieces mode, of reserved snapshots");
    if (count <= published_)
        return;
    for (std::size_t k = published_; k < count; ++k) {
        std::vector<std::string> sources;
        for (int p = 0; p < pieces_; ++p)
            sources.push_back(piece_path(k, p).filename().string());
        write_file_atomically(pvtp_path(k), pvtp_text(sources, format_, normal_[k]));
    }
    published_ = count;
    write_pvd();
}

void SnapshotSeriesWriter::set_format(const VtpFormat& format, bool boundary_only_first) {
    std::lock_guard<std::mutex> lock(mutex_);
    format_ = format;
    boundary_only_first_ = boundary_only_first;
}

std::size_t SnapshotSeriesWriter::reserve() {
    std::lock_guard<std::mutex> lock(mutex_);
    complete_.emplace_back();
    normal_.resize(complete_.size()); // a restart's kept snapshots (published already) too
    return reserved_++;
}

std::uintmax_t SnapshotSeriesWriter::write(std::size_t index, const Snapshot& snapshot) {
    VtpFormat format;
    bool boundary = true;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (index >= reserved_ || complete_[index])
            throw std::logic_error("output: snapshot " + std::to_string(index) +
                                   " was not reserved or is written already");
        format = format_;
        boundary = !boundary_only_first_ || index == 0;
    }
    const std::uintmax_t bytes =
        write_vtp(pieces_ ? piece_path(index, piece_) : path_of(index), snapshot, format, boundary);
    std::lock_guard<std::mutex> lock(mutex_);
    complete_[index] = snapshot.time;
    normal_[index] = !snapshot.normal.empty();
    if (!pieces_)
        write_pvd();
    return bytes;
}

fs::path SnapshotSeriesWriter::write(const Snapshot& snapshot) {
    const std::size_t index = reserve();
    write(index, snapshot);
    return path_of(index);
}

std::size_t SnapshotSeriesWriter::count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<std::size_t>(std::count_if(complete_.begin(), complete_.end(),
                                                  [](const auto& t) { return t.has_value(); }));
}

std::vector<fs::path> SnapshotSeriesWriter::files() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<fs::path> out;
    for (std::size_t k = 0; k < complete_.size(); ++k)
        if (complete_[k])
            out.push_back(k < kept_files_.size() ? directory_ / kept_files_[k] : path_of(k));
    return out;
}

fs::path SnapshotSeriesWriter::write_failure(const Snapshot& snapshot) {
    VtpFormat format;
    int piece = 0, pieces = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        format = format_;
        piece = piece_;
        pieces = pieces_;
    }
    const auto failed_piece = [&](int p) {
        return directory_ / (name_ + "_failed_" + std::to_string(p) + ".vtp");
    };
    const fs::path path = pieces ? failed_piece(piece) : directory_ / (name_ + "_failed.vtp");
    // The whole failing state, walls and every field included: it is for finding the cause.
    format.velocity = format.density = format.pressure = true;
    write_vtp(path, snapshot, format);
    std::lock_guard<std::mutex> lock(mutex_);
    failure_normal_ = !snapshot.normal.empty();
    return path;
}

fs::path SnapshotSeriesWriter::publish_failure() const {
    VtpFormat format;
    std::vector<std::string> sources;
    bool normal = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        normal = failure_normal_;
        for (int p = 0; p < pieces_; ++p)
            sources.push_back(name_ + "_failed_" + std::to_string(p) + ".vtp");
    }
    format.velocity = format.density = format.pressure = true;
    const fs::path path = directory_ / (name_ + "_failed.pvtp");
    write_file_atomically(path, pvtp_text(sources, format, normal));
    return path;
}

void SnapshotSeriesWriter::write_pvd() const {
    std::vector<std::pair<double, std::string>> datasets;
    for (std::size_t k = 0; k < complete_.size(); ++k) {
        if (!complete_[k] || (pieces_ && k >= published_))
            continue;
        const std::string file = k < kept_files_.size()
                                     ? kept_files_[k]
                                     : (pieces_ ? pvtp_path(k) : path_of(k)).filename().string();
        datasets.emplace_back(*complete_[k], file);
    }
    write_file_atomically(pvd_path(), pvd_text(datasets));
}

} // namespace sluice
