// The `sluice` command line's checkpoints and restarts as a user meets them: a restart continues
// bit for bit, a run killed or interrupted while writing leaves a restartable state, and the
// gauges and diagnostics continue across a restart.

#include "app/cli.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

using namespace cli_test;
namespace fs = std::filesystem;

namespace {

TEST_F(Cli, RestartContinuesTheRunBitForBit) {
    write("small.xml", small_case);
    // Uninterrupted, to 0.1 s; and in two legs: to 0.05 s with checkpoints, then --restart.
    ASSERT_EQ(sluice("run small.xml --backend cpu --end-time 0.1 --out whole", dir_).exit_code, 0);
    const Result first = sluice(
        "run small.xml --backend cpu --end-time 0.05 --checkpoint-interval 0.02 --out legs", dir_);
    ASSERT_EQ(first.exit_code, 0) << first.output;
    EXPECT_TRUE(contains(first.output, "checkpoint (interval)")) << first.output;
    EXPECT_TRUE(contains(first.output, "checkpoint (end of run)")) << first.output;
    const Result second = sluice(
        "run small.xml --backend cpu --end-time 0.1 --checkpoint-interval 0.02 --restart legs",
        dir_);
    ASSERT_EQ(second.exit_code, 0) << second.output;
    EXPECT_TRUE(contains(second.output, "restarting at t = 0.05")) << second.output;

    // The same series: 11 snapshots, increasing times, no duplicate; the last file identical.
    std::vector<double> times;
    EXPECT_EQ(pvd_entries(dir_ / "legs/small.pvd", &times), 11u);
    for (std::size_t k = 1; k < times.size(); ++k)
        EXPECT_GT(times[k], times[k - 1]);
    EXPECT_EQ(read_file(dir_ / "legs/small_0010.vtp"), read_file(dir_ / "whole/small_0010.vtp"));
    expect_complete_series(dir_ / "legs", "small");
    const std::string json = read_file(dir_ / "legs/summary.json");
    EXPECT_TRUE(contains(json, R"("restart": {)")) << json;
    EXPECT_TRUE(contains(json, "small_checkpoint_")) << json;

    // Nothing left to run, another dp, no checkpoint: clear errors, exit 2.
    Result r = sluice("run small.xml --backend cpu --end-time 0.1 --restart legs", dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "already at the end time")) << r.output;
    r = sluice("run small.xml --backend cpu --end-time 0.2 --dp 0.025 --restart legs", dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "dp = ")) << r.output;
    r = sluice("run small.xml --backend cpu --end-time 0.2 --restart whole", dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "no checkpoint of case 'small'")) << r.output;
}

/// Starts `sluice ARGS` in the background in `dir`; returns its pid.
pid_t start_sluice(const std::string& args, const fs::path& dir) {
    const fs::path pid_file = dir / "sluice.pid";
    const std::string command = "cd '" + dir.string() +
                                "' && ('" SLUICE_BINARY_DIR "/bin/sluice' " + args +
                                " > run.log 2>&1 & echo $! > sluice.pid)";
    if (std::system(command.c_str()) != 0)
        return -1;
    pid_t pid = -1;
    std::ifstream(pid_file) >> pid;
    return pid;
}

void stop_and_wait(pid_t pid, int signal) {
    ::kill(pid, signal);
    for (int k = 0; k < 500 && ::kill(pid, 0) == 0; ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

TEST_F(Cli, KillNineDuringCheckpointsLeavesARestartableRun) {
    write("small.xml", small_case);
    // A checkpoint after every step (each fsync'ed): a kill lands inside or between writes.
    const std::string run = "run small.xml --backend cpu --end-time 0.8 --checkpoint-interval "
                            "1e-6 --out out";
    pid_t pid = start_sluice(run, dir_);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    stop_and_wait(pid, SIGKILL);
    ASSERT_FALSE(fs::exists(dir_ / "out/summary.json")) << "the run ended before the kill";
    // Again, killing the restarted run.
    pid = start_sluice("run small.xml --backend cpu --end-time 0.8 --checkpoint-interval 1e-6 "
                       "--restart out",
                       dir_);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop_and_wait(pid, SIGKILL);
    ASSERT_FALSE(fs::exists(dir_ / "out/summary.json"))
        << "the restarted run ended before the kill";
    // The third leg finishes; the series is whole and the final state is the uninterrupted one.
    const Result r = sluice("run small.xml --backend cpu --end-time 0.8 --restart out", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(sluice("run small.xml --backend cpu --end-time 0.8 --out whole", dir_).exit_code, 0);
    expect_complete_series(dir_ / "out", "small");
    EXPECT_EQ(pvd_entries(dir_ / "out/small.pvd"), pvd_entries(dir_ / "whole/small.pvd"));
    EXPECT_EQ(read_file(dir_ / "out/small_0080.vtp"), read_file(dir_ / "whole/small_0080.vtp"));
}

TEST_F(Cli, InterruptLeavesACheckpoint) {
    write("small.xml", small_case);
    const pid_t pid = start_sluice("run small.xml --backend cpu --end-time 50 --out out", dir_);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop_and_wait(pid, SIGINT);
    const std::string log = read_file(dir_ / "run.log");
    EXPECT_TRUE(contains(log, "checkpoint (interrupted)")) << log;
    EXPECT_TRUE(contains(read_file(dir_ / "out/summary.json"), R"("status": "interrupted")"));
    const Result r = sluice("run small.xml --backend cpu --end-time 0.05 --restart out", dir_);
    // The interrupted run got past 0.05 s or not; either way the restart answers clearly.
    EXPECT_TRUE(r.exit_code == 0 || contains(r.output, "already at the end time")) << r.output;
}

std::vector<std::string> data_rows(const std::string& csv) {
    std::vector<std::string> rows;
    std::istringstream in(csv);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#' && line.rfind("t,", 0) != 0)
            rows.push_back(line);
    return rows;
}

TEST_F(Cli, GaugesAndDiagnosticsAreWrittenAsTheRunGoesAndContinueOnRestart) {
    write("gauged.xml", R"(<sluice name="gauged" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.1" outputInterval="0.02"/>
  <gauges interval="0.01">
    <height name="H" x="0.25"/>
    <probe name="P" point="0.25 0.1" fields="pressure velocity"/>
    <probe name="Air" point="0.9 0.9" fields="density"/>
    <front name="front" direction="+x"/>
  </gauges>
</sluice>
)");
    ASSERT_EQ(sluice("run gauged.xml --backend cpu --out whole", dir_).exit_code, 0);
    const std::string gauges = read_file(dir_ / "whole/gauges.csv");
    EXPECT_TRUE(contains(gauges, "# H: m\n")) << gauges;
    EXPECT_TRUE(contains(gauges, "# P.pressure: Pa\n")) << gauges;
    EXPECT_TRUE(contains(gauges, "t,H,P.pressure,P.velocity_x,P.velocity_z,Air.density,front\n"))
        << gauges;
    const std::vector<std::string> rows = data_rows(gauges);
    ASSERT_EQ(rows.size(), 11u) << gauges; // t = 0, 0.01, …, 0.1
    // t = 0: the level 0.5 m (within dp/4), the probe 0.4 m deep, no air, the front at 0.5 m.
    double t0 = 0, level = 0, p = 0, vx = 0, vz = 0, front = 0;
    char comma;
    std::istringstream first(rows[0]);
    first >> t0 >> comma >> level >> comma >> p >> comma >> vx >> comma >> vz >> comma >> comma >>
        front;
    EXPECT_EQ(t0, 0.0);
    EXPECT_NEAR(level, 0.5, 0.25 * 0.05) << rows[0];
    EXPECT_NEAR(p, 1000 * 9.81 * 0.4, 0.05 * 1000 * 9.81 * 0.4) << rows[0];
    EXPECT_NEAR(front, 0.5, 1e-6) << rows[0];
    for (const std::string& row : rows)
        EXPECT_TRUE(contains(row, ",,")) << "the probe in the air is empty: " << row;
    const std::vector<std::string> diagnostics =
        data_rows(read_file(dir_ / "whole/diagnostics.csv"));
    EXPECT_EQ(diagnostics.size(), 6u); // one per snapshot

    // In two legs through a checkpoint: the same rows, none twice.
    ASSERT_EQ(sluice("run gauged.xml --backend cpu --out legs --end-time 0.05 "
                     "--checkpoint-interval 0.03",
                     dir_)
                  .exit_code,
              0);
    ASSERT_EQ(sluice("run gauged.xml --backend cpu --restart legs", dir_).exit_code, 0);
    EXPECT_EQ(data_rows(read_file(dir_ / "legs/gauges.csv")), rows);
    // The first leg's end (0.05 s, not an output time) left one more snapshot, and its row.
    std::vector<std::string> legs = data_rows(read_file(dir_ / "legs/diagnostics.csv"));
    ASSERT_EQ(legs.size(), diagnostics.size() + 1);
    EXPECT_TRUE(legs[3].rfind("0.050", 0) == 0) << legs[3];
    legs.erase(legs.begin() + 3);
    EXPECT_EQ(legs, diagnostics);
}

} // namespace
