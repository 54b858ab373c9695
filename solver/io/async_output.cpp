#include "io/async_output.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace sluice {

BackgroundSnapshotWriter::BackgroundSnapshotWriter(WriteFunction write, Settings settings)
    : write_(std::move(write)), settings_(std::move(settings)) {
    settings_.writers = std::max(1u, settings_.writers);
    settings_.max_queued = std::max<std::size_t>(1, settings_.max_queued);
    collector_ = std::thread([this] { collect(); });
    for (unsigned k = 0; k < settings_.writers; ++k)
        writer_threads_.emplace_back([this] { write_loop(); });
}

BackgroundSnapshotWriter::~BackgroundSnapshotWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    collector_.join();
    for (std::thread& t : writer_threads_)
        t.join();
}

void BackgroundSnapshotWriter::rethrow_locked() {
    if (error_) {
        std::exception_ptr e = std::exchange(error_, nullptr);
        std::rethrow_exception(e);
    }
}

void BackgroundSnapshotWriter::fail_locked(std::exception_ptr error) {
    failed_ = true;
    if (!error_)
        error_ = std::move(error);
}

void BackgroundSnapshotWriter::submit(std::future<Snapshot> snapshot, std::size_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return pending_.size() < settings_.max_queued; });
    pending_.push_back({std::move(snapshot), ticket});
    changed_.notify_all();
    rethrow_locked();
}

void BackgroundSnapshotWriter::flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] {
        return pending_.empty() && !collecting_ && ready_.empty() && writing_ == 0;
    });
    rethrow_locked();
}

std::size_t BackgroundSnapshotWriter::written() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
}

double BackgroundSnapshotWriter::write_seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return write_seconds_;
}

void BackgroundSnapshotWriter::collect() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
        if (pending_.empty())
            break; // stopping, nothing left
        Pending next = std::move(pending_.front());
        pending_.pop_front();
        collecting_ = true;
        const bool failed_before = failed_;
        lock.unlock();
        changed_.notify_all(); // room in the queue
        std::exception_ptr error;
        std::shared_ptr<const Snapshot> snapshot;
        try {
            // get() even after a failure: it releases the snapshot's copy slot.
            snapshot = std::make_shared<const Snapshot>(next.snapshot.get());
            if (settings_.in_order && !failed_before)
                settings_.in_order(*snapshot);
        } catch (...) {
            error = std::current_exception();
        }
        next.snapshot = {};
        lock.lock();
        if (error)
            fail_locked(error);
        // At most `writers` finished snapshots wait: host memory stays bounded.
        changed_.wait(lock, [this] { return ready_.size() < settings_.writers; });
        if (!failed_)
            ready_.push_back({std::move(snapshot), next.ticket});
        collecting_ = false;
        changed_.notify_all();
    }
}

void BackgroundSnapshotWriter::write_loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] {
            return !ready_.empty() || (stopping_ && pending_.empty() && !collecting_);
        });
        if (ready_.empty())
            return; // stopping, nothing left
        Ready next = std::move(ready_.front());
        ready_.pop_front();
        const bool skip = failed_;
        ++writing_;
        lock.unlock();
        changed_.notify_all(); // room for the collector
        std::exception_ptr error;
        const auto start = std::chrono::steady_clock::now();
        if (!skip) {
            try {
                write_(*next.snapshot, next.ticket);
            } catch (...) {
                error = std::current_exception();
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        next.snapshot.reset();
        lock.lock();
        --writing_;
        write_seconds_ += seconds;
        if (error)
            fail_locked(error);
        else if (!skip)
            ++written_;
        changed_.notify_all();
    }
}

unsigned default_writer_count(unsigned hardware_threads) {
    if (hardware_threads <= 2)
        return 1;
    return std::min(8u, hardware_threads - 2);
}

} // namespace sluice
