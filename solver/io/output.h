#pragma once
/// \file output.h
/// Run output: the series of a run's snapshots, one VTK XML PolyData file (.vtp) per output time
/// (each written by io/vtp_file.h), and a ParaView collection (.pvd) listing them with their
/// times (summary.json: summary.h).
///
/// Every file is written to a hidden temporary name in its final directory (".<file>.tmp") and
/// renamed into place, so a crash never leaves a half-written file under a final name and the
/// .pvd only ever lists complete .vtp files. (Renames are atomic; nothing is fsync'ed, so a
/// power loss may still lose recent files.)
///
/// Errors (directory cannot be created, VTK writer fails, disk full, rename fails) throw
/// std::runtime_error whose message names the path.

#include "io/snapshot.h"
#include "io/vtp_file.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// The time series of one run in one directory: `<dir>/<name>_NNNN.vtp` (NNNN = 0, 1, …,
/// zero-padded to at least 4 digits) and `<dir>/<name>.pvd` listing them.
///
/// Snapshots may be written concurrently: reserve() numbers them in time order (one thread),
/// write() may then run on several threads at once and finish in any order; the .pvd lists, in
/// time order, only the snapshots whose file is complete.
class SnapshotSeriesWriter {
public:
    /// Creates `directory` (with parents) and removes what a previous run of this case left
    /// there, so a re-run never mixes two series: `<name>.pvd`, `<name>_<digits>.vtp`,
    /// `<name>_failed.vtp`, `summary.json`, `gauges.csv`, `diagnostics.csv`, its checkpoints
    /// `<name>_checkpoint_<digits>.chk`, and their leftover temporaries. Other files (including
    /// other cases' series, e.g. `<name>_other_0000.vtp`) are kept. \throws std::invalid_argument
    /// when `case_name` is empty or contains '/'. \throws std::runtime_error naming the directory
    /// when it cannot be created or cleaned.
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name);

    /// Continues the series of a restarted run: its first resume_times.size() snapshots (which
    /// must exist) stay, with these times; later-numbered snapshots, a failure snapshot and
    /// leftover temporaries (written by the interrupted run after its checkpoint) are removed,
    /// and the .pvd is rewritten to list the kept ones. Checkpoints are kept.
    /// \throws std::runtime_error naming the directory when a kept snapshot is missing.
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name,
                         const std::vector<double>& resume_times);

    /// Continues the pieces of a restarted run over several processes (set_pieces(piece,
    /// pieces) included): the first resume_times.size() snapshots' pieces of this process (and,
    /// for piece 0, their .pvtp files) must exist; what this process wrote later is removed
    /// (piece 0 also removes later .pvtp files and the failure .pvtp, and rewrites the .pvd).
    /// \throws std::runtime_error naming the directory when a kept file is missing.
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name,
                         const std::vector<double>& resume_times, int piece, int pieces);

    /// Continues the series of a restart under another number of processes than wrote it
    /// (RegroupedSeries; `pieces` 0: this run is one process, else this is piece `piece` of
    /// `pieces`, as set_pieces): its first resume_times.size() snapshots stay in the form they
    /// were written in, `<name>_NNNN.vtp` or `<name>_NNNN.pvtp` and its pieces, and the .pvd
    /// lists each so (ParaView reads the two forms as one series). Piece 0 (or the one process)
    /// checks that they exist, removes every later-numbered file of the series, of any piece, and
    /// the failure snapshot, and rewrites the .pvd; the other processes touch nothing, and must
    /// not write before it is done.
    /// \throws std::runtime_error naming the directory when a kept snapshot is missing.
    struct RegroupedSeries {};
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name,
                         const std::vector<double>& resume_times, int piece, int pieces,
                         RegroupedSeries);

    /// How snapshots are written from now on; `boundary_only_first`: the boundary particles
    /// (which do not move) are written in snapshot 0 only. Set before the first reserve().
    void set_format(const VtpFormat& format, bool boundary_only_first);

    /// The number the next snapshot of the series gets (its time order).
    std::size_t reserve();

    /// Writes snapshot `index` (from reserve()) as `<name>_NNNN.vtp`, then rewrites
    /// `<name>.pvd` to list every complete snapshot (timestep = snapshot.time, file relative to
    /// the directory). Thread-safe between different indices. If the .vtp is written but the
    /// .pvd rewrite throws, the snapshot still counts and the next successful write lists it.
    /// \returns the bytes of the .vtp written.
    std::uintmax_t write(std::size_t index, const Snapshot& snapshot);

    /// A run over several processes (DESIGN.md, Scale-out): this writer is process `piece` of
    /// `pieces`, each writing its part of every snapshot as `<name>_NNNN_<piece>.vtp`; the .pvd
    /// is then written by publish() only, listing one `<name>_NNNN.pvtp` per time (VTK's
    /// parallel PolyData naming the pieces). Set before the first reserve().
    void set_pieces(int piece, int pieces);
    /// The number of leading snapshots whose file (piece) is complete here.
    std::size_t complete_prefix() const;
    /// Pieces mode, on one process (piece 0): every process's pieces of snapshots [0, count)
    /// are complete (the minimum of every complete_prefix()); writes their .pvtp files and the
    /// .pvd listing them. Snapshots already published are not written again.
    void publish(std::size_t count);
    /// Pieces mode, on one process after every process's write_failure(): `<name>_failed.pvtp`
    /// naming the pieces `<name>_failed_<piece>.vtp`. \returns its path.
    std::filesystem::path publish_failure() const;

    /// reserve() and write() in one: the next snapshot, on the calling thread.
    /// \returns the path of the .vtp written.
    std::filesystem::path write(const Snapshot& snapshot);

    /// Writes `<name>_failed.vtp` (the state a failure was detected in, every particle and
    /// field, with the series' compressor), replacing an earlier one; it is not listed in the
    /// .pvd, which stays the series of good states. Pieces mode: `<name>_failed_<piece>.vtp`.
    /// \returns the path written.
    std::filesystem::path write_failure(const Snapshot& snapshot);

    const std::filesystem::path& directory() const { return directory_; }
    std::filesystem::path pvd_path() const;
    /// Number of series snapshots written completely (the failure snapshot is not counted).
    std::size_t count() const;
    /// The series .vtp files written completely so far, in time order (the failure snapshot is
    /// not included; a regrouped restart's kept snapshots as they were written).
    std::vector<std::filesystem::path> files() const;

private:
    std::filesystem::path path_of(std::size_t index) const;
    std::filesystem::path piece_path(std::size_t index, int piece) const;
    std::filesystem::path pvtp_path(std::size_t index) const;
    void write_pvd() const; ///< with mutex_ held

    std::filesystem::path directory_;
    std::string name_;
    VtpFormat format_;
    bool boundary_only_first_ = false;
    std::size_t reserved_ = 0;
    mutable std::mutex mutex_;
    /// Per reserved index: the time of its snapshot, once its file is complete.
    std::vector<std::optional<double>> complete_;
    /// Per reserved index: its snapshot (this process's piece) has Snapshot::normal, so its
    /// .pvtp lists the array (every piece of a time has it or none does).
    std::vector<bool> normal_;
    bool failure_normal_ = false; ///< the same for the failure snapshot
    /// A regrouped restart: the file names of the snapshots kept from before it.
    std::vector<std::string> kept_files_;
    int piece_ = 0, pieces_ = 0; ///< pieces mode when pieces_ > 0
    std::size_t published_ = 0;  ///< pieces mode: snapshots listed in the .pvd
};

} // namespace sluice
