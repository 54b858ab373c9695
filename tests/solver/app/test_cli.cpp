// The `sluice` command line as a user meets it: exit codes, messages, and the files a run
// leaves (complete ones only, also when it fails).

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

TEST_F(Cli, HelpAndVersion) {
    Result help = sluice("--help");
    EXPECT_EQ(help.exit_code, 0);
    for (const char* part : {"run", "check", "bench", "tune", "Exit codes"})
        EXPECT_TRUE(contains(help.output, part)) << part << " missing in:\n" << help.output;
    // Each command lists its own options with units and defaults.
    const Result run = sluice("run --help");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    for (const char* part :
         {"CASE.xml", "--neighbours C/Q/W", "--end-time", "in s", "--dp", "--backend", "--out"})
        EXPECT_TRUE(contains(run.output, part)) << part << " missing in:\n" << run.output;
    const Result bench = sluice("bench --help");
    EXPECT_EQ(bench.exit_code, 0) << bench.output;
    for (const char* part :
         {"--steps", "=100", "--warmup", "=5", "--modules", "--csv", "--interaction", "--corrector",
          "--list-skin", "--list-age", "--end-time", "--from-state", "--output-interval",
          "--compressor", "--balance-interval", "--gpus"})
        EXPECT_TRUE(contains(bench.output, part)) << part << " missing in:\n" << bench.output;
    for (const char* part : {"--compressor lz4|zlib|none", "--compression-level", "--fields",
                             "--boundary-output every|first", "--writers", "--output-interval",
                             "--balance-interval", "--gpus", "--processes"})
        EXPECT_TRUE(contains(run.output, part)) << part << " missing in:\n" << run.output;
    EXPECT_EQ(sluice("check --help").exit_code, 0);
    Result version = sluice("--version");
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(contains(version.output, "sluice " SLUICE_VERSION));
}

TEST_F(Cli, CheckPrintsWhatARunWouldUse) {
    const Result r = sluice("check '" SLUICE_CASES_DIR "/dambreak2d.xml'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part :
         {"valid", "5000 fluid", "1518 boundary", "h ", "c0 ", "initial dt", "grid ", "bins",
          "memory", "wall normals    1518 of 1518 boundary particles (0 without one)",
          "shifting        none"})
        EXPECT_TRUE(contains(r.output, part)) << part << " missing in:\n" << r.output;
}

TEST_F(Cli, MalformedCaseNamesFileAndLineAndExits2) {
    const fs::path bad = write("bad.xml", R"(<sluice name="bad" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
  </geometry>
  <run endtime="1"/>
</sluice>
)");
    for (const char* command : {"check", "run"}) {
        const Result r = sluice(std::string(command) + " bad.xml", dir_);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(contains(r.output, "bad.xml:5: ")) << r.output;
        EXPECT_TRUE(contains(r.output, "did you mean 'endTime'")) << r.output;
    }
    EXPECT_FALSE(fs::exists(dir_ / "out")) << "a rejected case must not run or write anything";
}

TEST_F(Cli, BadCommandLinesExit2) {
    write("small.xml", small_case);
    for (const char* args :
         {"", "frobnicate small.xml", "run", "run small.xml --frob", "run small.xml --end-time -1",
          "run small.xml --end-time", "run small.xml --neighbours bucket/strips/1",
          "run small.xml --neighbours counting-sort/strips/2", "run small.xml --backend fpga",
          "run small.xml other.xml", "run missing.xml"}) {
        const Result r = sluice(args, dir_);
        EXPECT_EQ(r.exit_code, 2) << "sluice " << args << "\n" << r.output;
    }
    EXPECT_TRUE(contains(sluice("run small.xml --neighbours bucket/strips/1", dir_).output,
                         "counting-sort, radix-sort"));
    EXPECT_TRUE(contains(
        sluice("frobnicate small.xml", dir_).output,
        "unknown command 'frobnicate' (valid: run, check, bench, tune, surface, measure)"));
    const Result no_case = sluice("run", dir_);
    EXPECT_TRUE(contains(no_case.output, "CASE.xml is required")) << no_case.output;
    EXPECT_TRUE(contains(no_case.output, "sluice run --help")) << no_case.output;
    EXPECT_TRUE(contains(sluice("run small.xml --end-time -1", dir_).output,
                         "--end-time: expects a positive number, got '-1'"));
    EXPECT_EQ(sluice("bench small.xml --end-time -1", dir_).exit_code, 2);
    for (const char* args :
         {"run small.xml --compressor gzip", "run small.xml --compression-level 0",
          "run small.xml --fields velocity,speed", "run small.xml --boundary-output never",
          "run small.xml --writers 0", "run small.xml --compressor none --compression-level 3",
          "run small.xml --balance-interval -1", "bench small.xml --warmup -2",
          "bench small.xml --warmup 1.5",
          "bench small.xml --backend cpu --end-time 0.01 --from-state out/small"}) {
        const Result r = sluice(args, dir_);
        EXPECT_EQ(r.exit_code, 2) << "sluice " << args << "\n" << r.output;
    }
    EXPECT_TRUE(contains(sluice("run small.xml --fields velocity,speed", dir_).output,
                         "unknown field 'speed'"));
}

TEST_F(Cli, RunWritesTheChosenSnapshotFormatAndReportsThroughput) {
    write("small.xml", small_case);
    const Result r = sluice("run small.xml --out fmt --backend cpu --compressor zlib "
                            "--compression-level 2 --fields pressure --boundary-output first "
                            "--writers 3 --output-interval 0.005",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const fs::path out = dir_ / "fmt";
    expect_complete_series(out, "small");
    EXPECT_TRUE(fs::exists(out / "small_0010.vtp")); // every 0.005 s to 0.05 s
    const std::string first = read_file(out / "small_0000.vtp");
    const std::string later = read_file(out / "small_0004.vtp");
    for (const std::string* f : {&first, &later}) {
        EXPECT_TRUE(contains(*f, "vtkZLibDataCompressor"));
        EXPECT_TRUE(contains(*f, "Name=\"pressure\""));
        EXPECT_FALSE(contains(*f, "Name=\"velocity\""));
        EXPECT_FALSE(contains(*f, "Name=\"density\""));
    }
    // 10 × 10 fluid particles; the walls only in the first snapshot.
    EXPECT_FALSE(contains(first, "NumberOfPoints=\"100\""));
    EXPECT_TRUE(contains(later, "NumberOfPoints=\"100\"")) << later.substr(0, 600);
    const std::string json = read_file(out / "summary.json");
    for (const char* part : {R"("compressor": "zlib")", R"("level": 2)", R"("fields": "pressure")",
                             R"("boundary": "first")", R"("writers": 3)",
                             R"("million_particle_steps_per_s")", R"("wall_share")"})
        EXPECT_TRUE(contains(json, part)) << part << " missing in:\n" << json;
    EXPECT_TRUE(contains(r.output, "M particle-steps/s (the step alone:")) << r.output;
    EXPECT_TRUE(contains(r.output, "share of the wall time: construction")) << r.output;
}

TEST_F(Cli, FirstSnapshotOfAnMdbcRunHasTheWallNormals) {
    write("small.xml", small_case);
    for (const char* boundary : {"mdbc", "dbc"}) {
        const Result r = sluice("run small.xml --out " + std::string(boundary) +
                                    " --backend cpu --end-time 0.01 --boundary " + boundary,
                                dir_);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const fs::path out = dir_ / boundary;
        expect_complete_series(out, "small");
        // Only the first file: the normals do not change.
        EXPECT_EQ(contains(read_file(out / "small_0000.vtp"), "Name=\"normal\""),
                  std::string(boundary) == "mdbc");
        EXPECT_FALSE(contains(read_file(out / "small_0001.vtp"), "Name=\"normal\""));
    }
}

/// The NumberOfPoints of a .vtp file (its XML header is text whatever the compression).
long vtp_points(const fs::path& file) {
    const std::string text = read_file(file);
    const std::size_t at = text.find("NumberOfPoints=\"");
    return at == std::string::npos ? -1 : std::stol(text.substr(at + 16));
}

TEST_F(Cli, FloatingBodiesAreInEverySnapshotWhenWallsAreInTheFirstOnly) {
    std::string text = small_case;
    text.replace(text.find("  </geometry>"), 0,
                 "    <obstacle name=\"box\" min=\"0.6 0.3\" max=\"0.8 0.4\">"
                 "<floating density=\"500\"/></obstacle>\n");
    write("small.xml", text);
    const Result r = sluice("run small.xml --out out --backend cpu --end-time 0.02 "
                            "--output-interval 0.01 --boundary-output first",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_series(dir_ / "out", "small");
    // 10 x 10 fluid particles and the box's 4 x 2 after the first snapshot; the tank only there.
    EXPECT_EQ(vtp_points(dir_ / "out" / "small_0001.vtp"), 100 + 8);
    EXPECT_GT(vtp_points(dir_ / "out" / "small_0000.vtp"), 100 + 8);
}

TEST_F(Cli, CheckWritesTheGeneratedParticlesWithoutRunning) {
    write("small.xml", small_case);
    const Result r = sluice("check small.xml --boundary mdbc --write gen", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_series(dir_ / "gen", "small");
    EXPECT_EQ(pvd_entries(dir_ / "gen" / "small.pvd"), 1u);
    // Every particle `check` counts, the walls' mDBC normals with them; nothing else written.
    const std::size_t at = r.output.find("  particles       ");
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_EQ(vtp_points(dir_ / "gen" / "small_0000.vtp"), std::stol(r.output.substr(at + 18)));
    EXPECT_TRUE(contains(read_file(dir_ / "gen" / "small_0000.vtp"), "Name=\"normal\""));
    EXPECT_TRUE(contains(r.output, "written         gen/small_0000.vtp")) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "gen" / "summary.json"));
    // A run's folder is refused before anything is written.
    fs::create_directories(dir_ / "run");
    write("run/summary.json", "{}");
    const Result refused = sluice("check small.xml --write run", dir_);
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_TRUE(contains(refused.output, "holds a run's output")) << refused.output;
    EXPECT_FALSE(fs::exists(dir_ / "run" / "small.pvd"));
}

TEST_F(Cli, ShiftingFromTheCommandLine) {
    write("small.xml", small_case);
    const Result r = sluice("run small.xml --out shifted --backend cpu --end-time 0.01 "
                            "--shifting fickian",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_series(dir_ / "shifted", "small");
    const Result bad = sluice("run small.xml --shifting lind", dir_);
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_TRUE(contains(bad.output, "--shifting")) << bad.output;
}

/// The pair terms and c0 from the command line: a run with each; bad values exit 2 naming the
/// option; --coef-sound goes through the reader (c0 below the fluid's speed is the reader's
/// error, at the file's line).
TEST_F(Cli, FormulationDiffusionAndSoundSpeedFromTheCommandLine) {
    write("small.xml", small_case);
    for (const char* args :
         {"--formulation riemann --coef-sound 10", "--diffusion antuono --shifting fickian",
          "--formulation riemann --diffusion fourtakas"}) {
        const Result r = sluice(
            std::string("run small.xml --out f --backend cpu --end-time 0.01 ") + args, dir_);
        ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.output;
        expect_complete_series(dir_ / "f", "small");
    }
    for (const char* args :
         {"run small.xml --formulation godunov", "run small.xml --diffusion lind",
          "run small.xml --coef-sound 0", "bench small.xml --coef-sound -1"}) {
        const Result r = sluice(args, dir_);
        EXPECT_EQ(r.exit_code, 2) << "sluice " << args << "\n" << r.output;
    }
    EXPECT_TRUE(
        contains(sluice("run small.xml --formulation godunov", dir_).output, "--formulation"));
}

TEST_F(Cli, TuneRanksModulesAndAutoRunsWithTheFastest) {
    write("small.xml", small_case);
    const Result r = sluice("tune small.xml --backend cpu --steps 2 "
                            "--modules counting-sort/strips/1,radix-sort/moore/0.5,"
                            "counting-sort/hybrid/1,linked-list/modular/1",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "| rank | module | ms/step |")) << r.output;
    for (const char* module : {"counting-sort/strips/1", "radix-sort/moore/0.5",
                               "counting-sort/hybrid/1", "linked-list/modular/1/index"})
        EXPECT_TRUE(contains(r.output, module)) << module << " missing in:\n" << r.output;
    EXPECT_TRUE(contains(r.output, "put it in the case: <neighbours construction=\"")) << r.output;
    EXPECT_EQ(sluice("tune small.xml --modules bucket/strips/1", dir_).exit_code, 2);
    const Result invalid = sluice("tune small.xml --modules linked-list/strips/1", dir_);
    EXPECT_EQ(invalid.exit_code, 2);
    EXPECT_TRUE(contains(invalid.output, "moore or modular")) << invalid.output;

    const Result run = sluice("run small.xml --out auto --backend cpu --neighbours auto", dir_);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "choosing the neighbour module (auto): 76 modules"))
        << run.output;
    const std::string json = read_file(dir_ / "auto" / "summary.json");
    EXPECT_TRUE(contains(json, R"("neighbour_tuning": {)")) << json;
    EXPECT_TRUE(contains(json, R"("chosen": ")")) << json;
    EXPECT_TRUE(contains(json, R"("neighbour_tuning": )")) << json;
    // The module the run used is the one chosen.
    const auto chosen_at = json.find(R"("chosen": ")") + 11;
    const std::string chosen = json.substr(chosen_at, json.find('"', chosen_at) - chosen_at);
    EXPECT_TRUE(contains(json, R"("neighbour_module": ")" + chosen + "\"")) << json;
}

TEST_F(Cli, BenchMeasuresWhatGaugesCost) {
    write("small.xml", small_case);
    EXPECT_EQ(sluice("bench small.xml --backend cpu --steps 2 --gauges", dir_).exit_code, 2)
        << "a case without gauges has nothing to sample";
    std::string gauged = small_case;
    gauged.replace(gauged.find("</sluice>"), 9,
                   R"(<gauges interval="0.01"><height name="H" x="0.2"/>
                      <probe name="P" point="0.2 0.1" fields="pressure"/></gauges></sluice>)");
    write("gauged.xml", gauged);
    const Result r = sluice("bench gauged.xml --backend cpu --steps 4 --csv g.csv --gauges "
                            "--modules counting-sort/strips/1",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "| ms/step without / with gauges | | gauge cost |")) << r.output;
    EXPECT_TRUE(contains(r.output, "the case's 2 gauge(s)")) << r.output;
    const std::string csv = read_file(dir_ / "g.csv");
    EXPECT_TRUE(contains(csv, ",gauged_ms_per_step,corrector_list_share\n")) << csv;
    // The last two columns: the gauged time, a positive number, and the share of correctors
    // over neighbour lists (CUDA only: 0 on the CPU).
    const std::string last_line = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    const std::size_t last_comma = last_line.rfind(',');
    const std::size_t comma_before = last_line.rfind(',', last_comma - 1);
    EXPECT_GT(std::stod(last_line.substr(comma_before + 1, last_comma - comma_before - 1)), 0.0)
        << csv;
    EXPECT_EQ(std::stod(last_line.substr(last_comma + 1)), 0.0) << csv;
}

TEST_F(Cli, BenchTimesADevelopedFlowWithOutputOn) {
    write("small.xml", small_case);
    const Result r = sluice("bench small.xml --backend cpu --steps 20 --csv b.csv "
                            "--modules counting-sort/strips/1 --end-time 0.02 "
                            "--output-interval 0.001 --out kept",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "developing the flow to t = 0.02 s")) << r.output;
    EXPECT_TRUE(contains(r.output, "timed steps from t = 0.02")) << r.output;
    EXPECT_TRUE(contains(r.output, "| output wait | snapshots |")) << r.output;
    const std::string csv = read_file(dir_ / "b.csv");
    EXPECT_TRUE(contains(csv, "start_time_s,output_interval_s,output_wait_ms,snapshots")) << csv;
    // The snapshots were kept where --out said, as a run writes them.
    expect_complete_series(dir_ / "kept", "small");
    EXPECT_TRUE(fs::exists(dir_ / "kept" / "small_0000.vtp"));

    // From a run's checkpoint.
    ASSERT_EQ(
        sluice("run small.xml --out ck --backend cpu --checkpoint-interval 0.02", dir_).exit_code,
        0);
    const Result from = sluice("bench small.xml --backend cpu --steps 5 --csv c.csv "
                               "--modules counting-sort/strips/1 --from-state ck",
                               dir_);
    ASSERT_EQ(from.exit_code, 0) << from.output;
    EXPECT_TRUE(contains(from.output, "timed steps from the checkpoint")) << from.output;
    EXPECT_TRUE(contains(from.output, "(t = 0.05")) << from.output;
}

TEST_F(Cli, RunWritesSeriesAndSummary) {
    write("small.xml", small_case);
    const Result r =
        sluice("run small.xml --out results --neighbours radix-sort/moore/0.5 --backend cpu", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const fs::path out = dir_ / "results";
    expect_complete_series(out, "small");
    // t = 0, 0.01 … 0.05: six snapshots.
    EXPECT_TRUE(fs::exists(out / "small_0005.vtp"));
    const std::string json = read_file(out / "summary.json");
    EXPECT_TRUE(contains(json, R"("status": "completed")")) << json;
    EXPECT_TRUE(contains(json, R"("neighbour_module": "radix-sort/moore/0.5")")) << json;
    EXPECT_TRUE(contains(json, R"("snapshots": 6)")) << json;
    EXPECT_TRUE(contains(json, R"("interaction")")) << json;
}

TEST_F(Cli, DpOverrideChangesTheLatticeAndIsChecked) {
    write("small.xml", small_case);
    const Result fine = sluice("check small.xml --dp 0.025", dir_);
    EXPECT_EQ(fine.exit_code, 0) << fine.output;
    EXPECT_TRUE(contains(fine.output, "400 fluid")) << fine.output; // 20 × 20 instead of 10 × 10
    const Result coarse = sluice("check small.xml --dp 2", dir_);
    EXPECT_EQ(coarse.exit_code, 2) << coarse.output;
    EXPECT_TRUE(contains(coarse.output, "thinner than dp")) << coarse.output;
}

TEST_F(Cli, BenchComparesModulesOnTheSameCase) {
    write("small.xml", small_case);
    const Result r = sluice("bench small.xml --backend cpu --steps 3 --csv bench.csv "
                            "--modules counting-sort/strips/1,radix-sort/moore/0.5",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "| counting-sort/strips/1 |")) << r.output;
    EXPECT_TRUE(contains(r.output, "| radix-sort/moore/0.5 |")) << r.output;
    EXPECT_TRUE(contains(r.output, "all agree")) << r.output;
    const std::string csv = read_file(dir_ / "bench.csv");
    EXPECT_TRUE(contains(csv, "radix-sort/moore/0.5")) << csv;
    EXPECT_EQ(sluice("bench small.xml --modules counting-sort/spiral/1", dir_).exit_code, 2);
    EXPECT_EQ(sluice("bench small.xml --steps 2.5", dir_).exit_code, 2);
}

TEST_F(Cli, CaseTooLargeForTheMachineIsRefusedAtOnce) {
    // 10^9 particles: about 350 GB of host memory. Refused from the geometry alone, before a
    // particle is generated (it used to work for 29 s and die with std::bad_alloc, exit 1).
    write("huge.xml", R"(<sluice name="huge" dimension="3">
  <geometry dp="0.001">
    <fluid min="0 0 0" max="1 1 1"/>
  </geometry>
  <run output="huge_out"/>
</sluice>
)");
    for (const char* command : {"check", "run", "bench"}) {
        const auto start = std::chrono::steady_clock::now();
        const Result r = sluice(std::string(command) + " huge.xml --backend cpu", dir_);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
        EXPECT_LT(seconds, 1.0) << command;
        for (const char* part : {"does not fit", "1000000000 particles", "GiB of host memory",
                                 "are available", "larger dp"})
            EXPECT_TRUE(contains(r.output, part)) << command << ": " << part << "\n" << r.output;
    }
    EXPECT_FALSE(fs::exists(dir_ / "huge_out")) << "a refused run must not write anything";
    // 8·10^9 particles: more than 32-bit ids can number.
    write("huger.xml", R"(<sluice name="huger" dimension="3">
  <geometry dp="0.0005"><fluid min="0 0 0" max="1 1 1"/></geometry>
</sluice>
)");
    const Result r = sluice("check huger.xml --backend cpu", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "32-bit particle ids")) << r.output;
}

TEST_F(Cli, UnstableRunExits3AndLeavesOnlyCompleteFiles) {
    // c0 = 0.5·sqrt(g·H): far below the flow speed, so the density runs away.
    write("unstable.xml", R"(<sluice name="unstable" dimension="2">
  <constants coefSound="0.5"/>
  <geometry dp="0.04">
    <fluid min="0 0" max="1 2"/>
    <tank min="0 0" max="4 3" faces="bottom left right"/>
  </geometry>
  <run endTime="5" outputInterval="0.05" output="unstable_out"/>
</sluice>
)");
    const Result r = sluice("run unstable.xml", dir_);
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_TRUE(contains(r.output, "failed at step ")) << r.output;
    EXPECT_TRUE(contains(r.output, "id ")) << r.output;
    const fs::path out = dir_ / "unstable_out";
    expect_complete_series(out, "unstable");
    EXPECT_TRUE(fs::exists(out / "unstable_failed.vtp"));
    const std::string json = read_file(out / "summary.json");
    EXPECT_TRUE(contains(json, R"("status": "failed")")) << json;

    // With checkpoints on, the failing run leaves one at its last good output time.
    const Result again = sluice("run unstable.xml --checkpoint-interval 100 --out again", dir_);
    EXPECT_EQ(again.exit_code, 3) << again.output;
    EXPECT_TRUE(contains(again.output, "checkpoint (last output before the failure)"))
        << again.output;
    EXPECT_TRUE(contains(again.output, "--restart again")) << again.output;
    bool found = false;
    for (const auto& entry : fs::directory_iterator(dir_ / "again"))
        found = found || entry.path().extension() == ".chk";
    EXPECT_TRUE(found);
}

} // namespace

TEST_F(Cli, BenchTakesADpThatRunRefusesForTheTanksLattice) {
    // A tank 4 m inside is 4/0.09 = 44.4 spacings at dp = 0.09: `run` refuses it (its walls
    // would leave a gap at the corners, case_reader's check_tank_lattice); `bench`, whose
    // refined series take any --dp, times it (the scaling series refines the 10^6 case so).
    write("lattice.xml", R"(<sluice name="lattice" dimension="2">
  <geometry dp="0.04">
    <fluid min="0 0" max="1 2"/>
    <tank min="0 0" max="4 3" faces="bottom left right"/>
  </geometry>
</sluice>
)");
    const Result run = sluice("run lattice.xml --dp 0.09 --backend cpu --end-time 0.001", dir_);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "whole number of spacings")) << run.output;
    const Result bench = sluice("bench lattice.xml --dp 0.09 --backend cpu --steps 2 --warmup 0 "
                                "--modules counting-sort/strips/1 --csv bench_lattice.csv",
                                dir_);
    EXPECT_EQ(bench.exit_code, 0) << bench.output;
    EXPECT_TRUE(contains(bench.output, "dp = 0.09 m")) << bench.output;
}
