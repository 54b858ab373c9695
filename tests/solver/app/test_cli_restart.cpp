// The `sluice` command line's checkpoints and restarts as a user meets them: a restart continues
// bit for bit, a run killed or interrupted while writing leaves a restartable state, and the
// gauges and diagnostics continue across a restart.

#include "app/cli.h"

#include <gtest/gtest.h>

#include <algorithm>
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
    fs::create_directories(dir_ / "empty");
    r = sluice("run small.xml --backend cpu --end-time 0.2 --restart empty", dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "no checkpoint of case 'small'")) << r.output;
    r = sluice("run small.xml --backend cpu --discard-newer --out other", dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "--discard-newer goes with --restart")) << r.output;
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
    // Again, killing the restarted run. The kill may have landed after a snapshot and before
    // its step's checkpoint: what was written after the checkpoint is dropped, as asked.
    pid = start_sluice("run small.xml --backend cpu --end-time 0.8 --checkpoint-interval 1e-6 "
                       "--restart out --discard-newer",
                       dir_);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop_and_wait(pid, SIGKILL);
    ASSERT_FALSE(fs::exists(dir_ / "out/summary.json"))
        << "the restarted run ended before the kill";
    // The third leg finishes; the series is whole and the final state is the uninterrupted one.
    const Result r =
        sluice("run small.xml --backend cpu --end-time 0.8 --restart out --discard-newer", dir_);
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

/// A coarse 2D dam break with gauges, a few seconds to its end on the CPU: 11 frames, t = 0 …
/// 0.2 s.
const std::string flume_case = R"(<sluice name="flume" dimension="2">
  <geometry dp="0.04">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.2" outputInterval="0.02"/>
  <gauges interval="0.01">
    <height name="H" x="0.25"/>
    <probe name="P" point="0.25 0.1" fields="pressure velocity"/>
  </gauges>
</sluice>
)";

/// The (file, time) entries of the series (.pvd) of case `name` in `out`, in order.
std::vector<std::pair<std::string, double>> series(const fs::path& out, const std::string& name) {
    std::vector<std::pair<std::string, double>> entries;
    tinyxml2::XMLDocument pvd;
    if (pvd.LoadFile((out / (name + ".pvd")).c_str()) != tinyxml2::XML_SUCCESS)
        return entries;
    for (const auto* e = pvd.FirstChildElement("VTKFile")
                             ->FirstChildElement("Collection")
                             ->FirstChildElement("DataSet");
         e; e = e->NextSiblingElement("DataSet"))
        entries.emplace_back(e->Attribute("file"), e->DoubleAttribute("timestep"));
    return entries;
}

/// Waits up to a minute for `path` to appear; whether it did.
bool wait_for(const fs::path& path) {
    for (int k = 0; k < 60000 && !fs::exists(path); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return fs::exists(path);
}

// The issue's sequence: Ctrl-C, --restart to the end, --restart to a later end. The interrupt
// adds no frame, the last restart continues from the end (not from the interrupt's checkpoint)
// and nothing of the earlier legs is lost: the series, the snapshot files (bit for bit on the
// CPU, as RestartContinuesTheRunBitForBit), diagnostics.csv and gauges.csv are the
// uninterrupted run's.
TEST_F(Cli, InterruptedAndContinuedRunKeepsTheUninterruptedSeries) {
    write("flume.xml", flume_case);
    ASSERT_EQ(sluice("run flume.xml --backend cpu --end-time 0.22 --out whole", dir_).exit_code, 0);
    const auto uninterrupted = series(dir_ / "whole", "flume");
    ASSERT_EQ(uninterrupted.size(), 12u); // t = 0, 0.02, …, 0.22

    // Ctrl-C once frame 2 (t = 0.04 s) is out, well before the end at 0.2 s.
    const pid_t pid = start_sluice("run flume.xml --backend cpu --out legs", dir_);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(wait_for(dir_ / "legs/flume_0002.vtp"));
    stop_and_wait(pid, SIGINT);
    const std::string log = read_file(dir_ / "run.log");
    ASSERT_TRUE(contains(read_file(dir_ / "legs/summary.json"), R"("status": "interrupted")"))
        << "the run ended before the interrupt: " << log;
    EXPECT_TRUE(contains(log, "checkpoint (interrupted)")) << log;
    // No frame of its own: what it wrote is the start of the uninterrupted series.
    const auto interrupted = series(dir_ / "legs", "flume");
    ASSERT_GE(interrupted.size(), 3u);
    ASSERT_LT(interrupted.size(), 11u) << log;
    EXPECT_TRUE(std::equal(interrupted.begin(), interrupted.end(), uninterrupted.begin()));

    Result r = sluice("run flume.xml --backend cpu --restart legs", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "checkpoint (end of run)")) << r.output;
    std::vector<std::pair<std::string, std::string>> finished; // file, contents
    for (const auto& [file, t] : series(dir_ / "legs", "flume"))
        finished.emplace_back(file, read_file(dir_ / "legs" / file));
    ASSERT_EQ(finished.size(), 11u);

    r = sluice("run flume.xml --backend cpu --end-time 0.22 --restart legs", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "restarting at t = 0.2")) << r.output;
    for (const auto& [file, contents] : finished)
        EXPECT_EQ(read_file(dir_ / "legs" / file), contents) << file << " changed";
    EXPECT_EQ(series(dir_ / "legs", "flume"), uninterrupted);
    for (const auto& [file, t] : uninterrupted)
        EXPECT_EQ(read_file(dir_ / "legs" / file), read_file(dir_ / "whole" / file)) << file;
    EXPECT_EQ(read_file(dir_ / "legs/diagnostics.csv"), read_file(dir_ / "whole/diagnostics.csv"));
    EXPECT_EQ(read_file(dir_ / "legs/gauges.csv"), read_file(dir_ / "whole/gauges.csv"));
    expect_complete_series(dir_ / "legs", "flume");

    // summary.json: the version and the command line of the last leg, overrides included.
    const std::string json = read_file(dir_ / "legs/summary.json");
    EXPECT_TRUE(contains(json, R"("version": ")")) << json;
    EXPECT_TRUE(contains(json, R"("--end-time",)")) << json;
    EXPECT_TRUE(contains(json, R"("0.22",)")) << json;
    EXPECT_TRUE(contains(json, R"("--restart",)")) << json;
}

// A restart from a checkpoint older than the output in its folder (here the newest checkpoint
// is damaged and skipped) would drop that output: refused, naming it, until --discard-newer.
TEST_F(Cli, RestartRefusesToDropNewerOutputUnlessAsked) {
    write("flume.xml", flume_case);
    ASSERT_EQ(
        sluice("run flume.xml --backend cpu --checkpoint-interval 0.1 --out out", dir_).exit_code,
        0);
    std::vector<fs::path> checkpoints; // at 0.1 and 0.2 s
    for (const auto& entry : fs::directory_iterator(dir_ / "out"))
        if (entry.path().extension() == ".chk")
            checkpoints.push_back(entry.path());
    std::sort(checkpoints.begin(), checkpoints.end());
    ASSERT_EQ(checkpoints.size(), 2u);
    {
        std::fstream damage(checkpoints.back(), std::ios::in | std::ios::out | std::ios::binary);
        damage.seekp(200);
        damage.write("damaged", 7);
    }
    const fs::path out = dir_ / "out";
    const std::vector<std::string> names = {"flume_0006.vtp", "flume_0010.vtp", "flume.pvd",
                                            "diagnostics.csv", "gauges.csv"};
    std::vector<std::string> before;
    for (const std::string& name : names)
        before.push_back(read_file(out / name));

    Result r = sluice("run flume.xml --backend cpu --end-time 0.22 --restart out", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& part :
         {std::string("the newest usable checkpoint is at t = 0.1"),
          std::string("5 snapshots: flume_0006.vtp … flume_0010.vtp (5 files), t = 0.12"),
          std::string("diagnostics.csv: 5 rows, t = 0.12"), std::string("gauges.csv: 10 rows"),
          "a checkpoint of a later step: " + checkpoints.back().filename().string(),
          std::string("give --discard-newer")})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
    for (std::size_t k = 0; k < names.size(); ++k)
        EXPECT_EQ(read_file(out / names[k]), before[k]) << names[k] << " was touched";
    EXPECT_TRUE(fs::exists(checkpoints.back()));

    r = sluice("run flume.xml --backend cpu --end-time 0.22 --restart out --discard-newer", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "dropping what was written after it")) << r.output;
    EXPECT_FALSE(fs::exists(checkpoints.back()));
    // That stretch written again: the same snapshots and rows, then the new ones.
    EXPECT_EQ(read_file(out / "flume_0006.vtp"), before[0]);
    EXPECT_EQ(read_file(out / "flume_0010.vtp"), before[1]);
    EXPECT_EQ(pvd_entries(out / "flume.pvd"), 12u);
    for (std::size_t k : {3u, 4u}) {
        const std::string now = read_file(out / names[k]);
        EXPECT_EQ(now.substr(0, before[k].size()), before[k]) << names[k];
        EXPECT_GT(now.size(), before[k].size()) << names[k];
    }
    expect_complete_series(out, "flume");
    const Result help = sluice("run --help");
    EXPECT_TRUE(contains(help.output, "--discard-newer")) << help.output;
}

} // namespace
