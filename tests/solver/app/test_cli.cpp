// The `sluice` command line as a user meets it: exit codes, messages, and the files a run
// leaves (complete ones only, also when it fails).

#include <gtest/gtest.h>
#include <tinyxml2.h>

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

namespace fs = std::filesystem;

namespace {

struct Result {
    int exit_code = -1;
    std::string output; ///< stdout and stderr together
};

/// Runs `sluice ARGS` in `dir` and captures its output and exit code.
Result sluice(const std::string& args, const fs::path& dir = fs::temp_directory_path()) {
    const std::string command =
        "cd '" + dir.string() + "' && '" SLUICE_BINARY_DIR "/bin/sluice' " + args + " 2>&1";
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return r;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe))
        r.output += buffer;
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// A fresh folder per test, removed afterwards.
class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("sluice_cli_" + std::string(info->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir_ / name) << text;
        return dir_ / name;
    }

    /// Checks that `out` holds a complete series: the .pvd parses, lists `expected` files that
    /// all exist, and no temporary file is left behind.
    void expect_complete_series(const fs::path& out, const std::string& name) {
        tinyxml2::XMLDocument pvd;
        ASSERT_EQ(pvd.LoadFile((out / (name + ".pvd")).c_str()), tinyxml2::XML_SUCCESS);
        const auto* collection = pvd.FirstChildElement("VTKFile")->FirstChildElement("Collection");
        ASSERT_NE(collection, nullptr);
        int listed = 0;
        for (const auto* e = collection->FirstChildElement("DataSet"); e;
             e = e->NextSiblingElement("DataSet")) {
            EXPECT_TRUE(fs::exists(out / e->Attribute("file"))) << e->Attribute("file");
            ++listed;
        }
        EXPECT_GE(listed, 1);
        for (const auto& entry : fs::directory_iterator(out))
            EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp"))
                << "temporary file left: " << entry.path();
    }

    fs::path dir_;
};

const std::string small_case = R"(<sluice name="small" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.05" outputInterval="0.01"/>
</sluice>
)";

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
    for (const char* part : {"--steps", "=100", "--warmup", "=5", "--modules", "--csv",
                             "--interaction", "--corrector", "--end-time", "--from-state",
                             "--output-interval", "--compressor", "--balance-interval", "--gpus"})
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
    EXPECT_TRUE(contains(sluice("frobnicate small.xml", dir_).output,
                         "unknown command 'frobnicate' (valid: run, check, bench, tune)"));
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
    EXPECT_TRUE(contains(run.output, "choosing the neighbour module (auto): 66 modules"))
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

std::size_t pvd_entries(const fs::path& pvd, std::vector<double>* times = nullptr) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(pvd.c_str()) != tinyxml2::XML_SUCCESS)
        return 0;
    std::size_t n = 0;
    for (const auto* e = doc.FirstChildElement("VTKFile")
                             ->FirstChildElement("Collection")
                             ->FirstChildElement("DataSet");
         e; e = e->NextSiblingElement("DataSet"), ++n)
        if (times)
            times->push_back(e->DoubleAttribute("timestep"));
    return n;
}

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
