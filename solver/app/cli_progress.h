#pragma once
/// \file cli_progress.h
/// Progress reporting for long runs: a live line on a terminal, plain periodic log lines
/// otherwise (logs, CI, pipes).

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace sluice {

class ProgressReporter {
public:
    /// end_time: simulated end time (s). Reports go to `out`; `live` = redraw one line in place
    /// (default: when stderr is a terminal).
    explicit ProgressReporter(double end_time);
    ProgressReporter(double end_time, std::ostream& out, bool live);

    /// Call after every step; prints at most a few times per second (live) or every 10 % of the
    /// simulated time and at least every 30 s of wall time (plain).
    void update(double time, std::uint64_t steps);
    /// A restarted run: rates and the ETA count from this time and step, not from zero.
    void start_from(double time, std::uint64_t steps);
    /// Prints a message on its own line without garbling the live line.
    void log_line(const std::string& message);
    /// Ends the live line (prints a newline if one is showing). Idempotent.
    void finish();

    /// "t = 0.5000 / 1.0000 s, 8123 steps, 2310 steps/s, ETA 0:12"
    static std::string format(double time, double end_time, std::uint64_t steps,
                              double steps_per_second, double eta_seconds);

private:
    using Clock = std::chrono::steady_clock;
    void print(double time, std::uint64_t steps, Clock::time_point now);

    double end_time_;
    std::ostream& out_;
    bool live_;
    bool line_showing_ = false;
    Clock::time_point start_;
    Clock::time_point last_print_;
    double start_time_ = 0.0;
    std::uint64_t start_steps_ = 0;
    int last_decile_ = 0;
};

} // namespace sluice
