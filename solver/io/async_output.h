#pragma once
/// \file async_output.h
/// Output off the critical path: snapshots begun with Simulation::begin_snapshot() are finished
/// by a collector thread, in order, and compressed and written by a pool of writer threads, while
/// the simulation steps on.
///
///     SnapshotSeriesWriter series(dir, name);
///     BackgroundSnapshotWriter::Settings settings;
///     settings.writers = 4;
///     settings.in_order = [&](const Snapshot& s) { diagnostics.write(s); };
///     BackgroundSnapshotWriter output(
///         [&](const Snapshot& s, std::size_t index) { series.write(index, s); }, settings);
///     ...
///     output.submit(sim->begin_snapshot(), series.reserve()); // returns once the copy is under
///     way
///     ...
///     output.flush();                                         // before reading series.count()
///
/// `in_order` runs on the collector thread, one snapshot at a time, in submission order (a CSV
/// row per snapshot); `write` runs on the writer threads, several at once and finishing in any
/// order (each gets its own snapshot and ticket). Whatever they touch must be safe for that, and
/// must not be used by other threads until flush() returns.

#include "io/snapshot.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice {

class BackgroundSnapshotWriter {
public:
    using WriteFunction = std::function<void(const Snapshot&, std::size_t ticket)>;
    using InOrderFunction = std::function<void(const Snapshot&)>;

    struct Settings {
        /// Writer threads (at least 1). With one, snapshots are written in submission order.
        unsigned writers = 1;
        /// Snapshots waiting to be finished: submit() blocks while that many are queued, so a
        /// slow disk slows the run instead of filling memory. Finished snapshots waiting for a
        /// writer are bounded by `writers` too.
        std::size_t max_queued = 2;
        InOrderFunction in_order; ///< optional
    };

    /// Starts the collector and the writer threads.
    explicit BackgroundSnapshotWriter(WriteFunction write, Settings settings);
    explicit BackgroundSnapshotWriter(WriteFunction write)
        : BackgroundSnapshotWriter(std::move(write), Settings{}) {}
    /// Writes what is queued, then stops the threads; an error at this point is dropped (call
    /// flush() first to see it).
    ~BackgroundSnapshotWriter();
    BackgroundSnapshotWriter(const BackgroundSnapshotWriter&) = delete;
    BackgroundSnapshotWriter& operator=(const BackgroundSnapshotWriter&) = delete;

    /// Queues a snapshot for writing; `ticket` is handed to the write function with it. After a
    /// write failed, later snapshots are still taken (releasing their copy slots) but not written.
    /// \throws the first exception of an earlier write, in_order or get(), once (then cleared).
    void submit(std::future<Snapshot> snapshot, std::size_t ticket = 0);

    /// Waits until every queued snapshot has been written.
    /// \throws the first exception of a write, in_order or get() since the last report, once.
    void flush();

    /// Snapshots written successfully so far.
    std::size_t written() const;
    /// Seconds the writer threads spent in the write function, summed over threads (compression
    /// and disk: what runs beside the simulation).
    double write_seconds() const;
    unsigned writers() const { return static_cast<unsigned>(writer_threads_.size()); }

private:
    struct Pending {
        std::future<Snapshot> snapshot;
        std::size_t ticket;
    };
    struct Ready {
        std::shared_ptr<const Snapshot> snapshot;
        std::size_t ticket;
    };
    void collect();
    void write_loop();
    void fail_locked(std::exception_ptr error);
    void rethrow_locked();

    WriteFunction write_;
    Settings settings_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Pending> pending_; ///< submitted, not yet finished
    std::deque<Ready> ready_;     ///< finished, waiting for a writer
    bool collecting_ = false;     ///< the collector is finishing a snapshot
    unsigned writing_ = 0;        ///< writers inside the write function
    bool stopping_ = false;
    std::size_t written_ = 0;
    double write_seconds_ = 0.0;
    std::exception_ptr error_; ///< not yet reported
    bool failed_ = false;      ///< something failed: write nothing more
    // Last: they start after every other member is ready.
    std::thread collector_;
    std::vector<std::thread> writer_threads_;
};

/// Writer threads for a machine with `hardware_threads` (0 = unknown): leaves one for the
/// stepping thread and one for the rest, at least 1, at most 8.
unsigned default_writer_count(unsigned hardware_threads = std::thread::hardware_concurrency());

} // namespace sluice
