#include "io/async_output.h"

#include <utility>

namespace sluice {

BackgroundSnapshotWriter::BackgroundSnapshotWriter(WriteFunction write, std::size_t max_queued)
    : write_(std::move(write)), max_queued_(max_queued == 0 ? 1 : max_queued),
      thread_([this] { run(); }) {}

BackgroundSnapshotWriter::~BackgroundSnapshotWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void BackgroundSnapshotWriter::rethrow_locked(std::unique_lock<std::mutex>&) {
    if (error_) {
        std::exception_ptr e = std::exchange(error_, nullptr);
        std::rethrow_exception(e);
    }
}

void BackgroundSnapshotWriter::submit(std::future<Snapshot> snapshot) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return queue_.size() < max_queued_; });
    queue_.push_back(std::move(snapshot));
    changed_.notify_all();
    rethrow_locked(lock);
}

void BackgroundSnapshotWriter::flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
    rethrow_locked(lock);
}

std::size_t BackgroundSnapshotWriter::written() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
}

void BackgroundSnapshotWriter::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty())
            return; // stopping, nothing left
        std::future<Snapshot> next = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        const bool failed_before = failed_;
        lock.unlock();
        changed_.notify_all(); // room in the queue
        std::exception_ptr error;
        bool wrote = false;
        try {
            const Snapshot s = next.get();
            if (!failed_before) {
                write_(s);
                wrote = true;
            }
        } catch (...) {
            error = std::current_exception();
        }
        next = {};
        lock.lock();
        busy_ = false;
        written_ += wrote ? 1 : 0;
        if (error) {
            failed_ = true;
            if (!error_)
                error_ = error;
        }
        changed_.notify_all();
    }
}

} // namespace sluice
