#pragma once
/// \file async_output.h
/// Output off the critical path: snapshots begun with Simulation::begin_snapshot() are finished
/// and written by a background thread, in order, while the simulation steps on.
///
///     SnapshotSeriesWriter series(dir, name);
///     BackgroundSnapshotWriter output([&](const Snapshot& s) { series.write(s); });
///     ...
///     output.submit(sim->begin_snapshot());   // returns once the copy is under way
///     ...
///     output.flush();                          // before reading series.count(), at the end
///
/// The write function runs on the writer thread only, one snapshot at a time; whatever it
/// touches must not be used by other threads until flush() returns.

#include "io/snapshot.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace sluice {

class BackgroundSnapshotWriter {
public:
    using WriteFunction = std::function<void(const Snapshot&)>;

    /// Starts the writer thread. `max_queued` bounds the snapshots waiting to be written:
    /// submit() blocks while that many are queued, so a slow disk slows the run instead of
    /// filling memory.
    explicit BackgroundSnapshotWriter(WriteFunction write, std::size_t max_queued = 2);
    /// Writes what is queued, then stops the thread; an error at this point is dropped (call
    /// flush() first to see it).
    ~BackgroundSnapshotWriter();
    BackgroundSnapshotWriter(const BackgroundSnapshotWriter&) = delete;
    BackgroundSnapshotWriter& operator=(const BackgroundSnapshotWriter&) = delete;

    /// Queues a snapshot for writing. After a write failed, later snapshots are still taken
    /// (releasing their copy slots) but not written.
    /// \throws the first exception of an earlier write or get(), once (then it is cleared).
    void submit(std::future<Snapshot> snapshot);

    /// Waits until every queued snapshot has been written.
    /// \throws the first exception of a write or get() since the last report, once.
    void flush();

    /// Snapshots written successfully so far.
    std::size_t written() const;

private:
    void run();
    void rethrow_locked(std::unique_lock<std::mutex>& lock);

    WriteFunction write_;
    std::size_t max_queued_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::future<Snapshot>> queue_;
    bool busy_ = false; ///< the thread is finishing or writing a snapshot
    bool stopping_ = false;
    std::size_t written_ = 0;
    std::exception_ptr error_; ///< not yet reported
    bool failed_ = false;      ///< a write or get() failed: write nothing more
    std::thread thread_;       ///< last: starts after every other member is ready
};

} // namespace sluice
