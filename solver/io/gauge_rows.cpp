#include "io/gauge_rows.h"

namespace sluice {

GaugeRowWriter::GaugeRowWriter(Evaluate evaluate, CsvSeries& csv, Accumulate accumulate)
    : evaluate_(std::move(evaluate)), csv_(csv), accumulate_(std::move(accumulate)),
      thread_([this] { run(); }) {}

GaugeRowWriter::~GaugeRowWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void GaugeRowWriter::submit(double t, std::future<GaugeResponse> sample) {
    enqueue({t, std::move(sample), true});
}

void GaugeRowWriter::accumulate(std::future<GaugeResponse> sample) {
    enqueue({0.0, std::move(sample), false});
}

void GaugeRowWriter::enqueue(Pending p) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < 256 || error_; });
    queue_.push_back(std::move(p));
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
        Pending p = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        try {
            if (p.row)
                csv_.write(p.t, evaluate_(p.sample.get()));
            else
                accumulate_(p.sample.get());
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
