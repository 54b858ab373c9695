#include "io/gauge_rows.h"

namespace sluice {

GaugeRowWriter::GaugeRowWriter(Evaluate evaluate, CsvSeries& csv)
    : evaluate_(std::move(evaluate)), csv_(csv), thread_([this] { run(); }) {}

GaugeRowWriter::~GaugeRowWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void GaugeRowWriter::submit(double t, std::future<GaugeResponse> sample) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < 256 || error_; });
    queue_.emplace_back(t, std::move(sample));
    changed_.notify_all();
}

void GaugeRowWriter::flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
    if (error_) {
        std::exception_ptr e = error_;
        error_ = nullptr;
        queue_.clear();
        std::rethrow_exception(e);
    }
}

void GaugeRowWriter::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return !queue_.empty() || stop_; });
        if (queue_.empty())
            return; // stop_ with nothing left
        auto [t, sample] = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        try {
            csv_.write(t, evaluate_(sample.get()));
        } catch (...) {
            lock.lock();
            error_ = std::current_exception();
            busy_ = false;
            changed_.notify_all();
            continue;
        }
        lock.lock();
        busy_ = false;
        changed_.notify_all();
    }
}

} // namespace sluice
