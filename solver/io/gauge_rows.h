#pragma once
/// \file gauge_rows.h
/// gauges.csv rows finished off the stepping thread: a pending sample (Simulation::begin_gauges)
/// is handed over and a writer thread waits for it, turns it into values (the evaluator given,
/// in a run GaugePlan::evaluate of case/gauge_plan.h) and writes the row, in order; samples
/// between rows (averaged sensors) go to an accumulator in the same order. With gauges
/// sampled every step this keeps the wait for the device, the CSV formatting and the write out of
/// the step.

#include "io/csv_series.h"
#include "io/gauge_samples.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace sluice {

class GaugeRowWriter {
public:
    /// Turns a sample into the row's values, one per column (NaN: no reading); called on the
    /// writer's thread.
    using Evaluate = std::function<std::vector<double>(const GaugeResponse&)>;
    /// Takes a sample between rows (averaged sensors: SensorAverages::add_step of
    /// case/gauge_plan.h); called on the writer's thread, in order with the rows.
    using Accumulate = std::function<void(const GaugeResponse&)>;
    /// `csv` (and what `evaluate` and `accumulate` refer to) must outlive the writer.
    GaugeRowWriter(Evaluate evaluate, CsvSeries& csv, Accumulate accumulate = {});
    ~GaugeRowWriter(); ///< writes what is queued, then stops
    GaugeRowWriter(const GaugeRowWriter&) = delete;
    GaugeRowWriter& operator=(const GaugeRowWriter&) = delete;

    /// Queues the row of time t (s); blocks while 256 rows wait (a slow disk slows the run).
    void submit(double t, std::future<GaugeResponse> sample);
    /// Queues a sample between rows for `accumulate` (blocks as submit). Precondition: the
    /// writer was given an Accumulate.
    void accumulate(std::future<GaugeResponse> sample);
    /// Returns once every submitted row is written.
    /// \throws what writing a row threw (e.g. a full disk), once.
    void flush();

private:
    void run();

    struct Pending {
        double t;
        std::future<GaugeResponse> sample;
        bool row; ///< false: for accumulate_
    };
    void enqueue(Pending p);

    Evaluate evaluate_;
    CsvSeries& csv_;
    Accumulate accumulate_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Pending> queue_;
    bool busy_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

} // namespace sluice
