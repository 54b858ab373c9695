#include "app/cli_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace sluice {

ProgressReporter::ProgressReporter(double end_time)
    : ProgressReporter(end_time, std::cerr, isatty(fileno(stderr)) != 0) {}

ProgressReporter::ProgressReporter(double end_time, std::ostream& out, bool live)
    : end_time_(end_time), out_(out), live_(live), start_(Clock::now()), last_print_(start_) {}

std::string ProgressReporter::format(double time, double end_time, std::uint64_t steps,
                                     double steps_per_second, double eta_seconds) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(4);
    s << "t = " << time << " / " << end_time << " s, " << steps << " steps, ";
    s.precision(0);
    s << steps_per_second << " steps/s, ETA ";
    if (std::isfinite(eta_seconds)) {
        const long total = std::lround(std::max(0.0, eta_seconds));
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60,
                      total % 60);
        s << buffer;
    } else {
        s << "--";
    }
    return s.str();
}

void ProgressReporter::print(double time, std::uint64_t steps, Clock::time_point now) {
    const double wall = std::chrono::duration<double>(now - start_).count();
    const double rate = wall > 0.0 ? static_cast<double>(steps - start_steps_) / wall : 0.0;
    const double done = time - start_time_;
    const double eta = done > 0.0 ? wall * (end_time_ - time) / done : INFINITY;
    const std::string text = format(time, end_time_, steps, rate, eta);
    if (live_) {
        out_ << "\r\033[K" << text << std::flush;
        line_showing_ = true;
    } else {
        out_ << "sluice: " << text << "\n" << std::flush;
    }
    last_print_ = now;
}

void ProgressReporter::start_from(double time, std::uint64_t steps) {
    start_time_ = time;
    start_steps_ = steps;
    last_decile_ = static_cast<int>(std::floor(10.0 * time / end_time_));
}

void ProgressReporter::update(double time, std::uint64_t steps) {
    const Clock::time_point now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_print_).count();
    if (live_) {
        if (since >= 0.25)
            print(time, steps, now);
        return;
    }
    const int decile = static_cast<int>(std::floor(10.0 * time / end_time_));
    if (decile > last_decile_ || since >= 30.0) {
        last_decile_ = std::max(decile, last_decile_);
        print(time, steps, now);
    }
}

void ProgressReporter::log_line(const std::string& message) {
    if (line_showing_)
        out_ << "\r\033[K";
    out_ << "sluice: " << message << "\n" << std::flush;
    line_showing_ = false;
}

void ProgressReporter::finish() {
    if (line_showing_)
        out_ << "\n" << std::flush;
    line_showing_ = false;
}

} // namespace sluice
