/// summary.json (io/summary.h): written, parsed back with nlohmann/json, every value in place;
/// the automatic neighbour choice, throughput and the stages' wall shares.

#include "io/summary.h"

#include "support/temp_folder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

namespace fs = std::filesystem;
using namespace sluice;
using test::read_file;

namespace {

using Json = nlohmann::ordered_json;

/// A fresh directory per test under the system temp dir, removed afterwards.
class SummaryTest : public test::TempFolderTest {
protected:
    SummaryTest() : TempFolderTest("sluice_test_summary_") {}
};

TEST_F(SummaryTest, SummaryJsonParsesAndHoldsEveryValue) {
    RunSummary s;
    s.case_name = "dam_break";
    s.case_file = "cases/dam break.xml";
    s.backend = "cpu";
    s.neighbour_module = "counting-sort/strips/0.5";
    s.status = "failed";
    s.failure = "step 12: density \"NaN\" at C:\\particles\nid 7\t(fluid)\x01";
    s.initial = {1000, 200, 0};
    s.final_counts = {990, 200, 10};
    s.losses = {10, 1000, 1.0, 0, 0.5, true};
    s.steps = 123456789012ull;
    s.simulated_time = 0.1;
    s.end_time = 1.0 / 3.0;
    s.wall_time = std::numeric_limits<double>::quiet_NaN();
    s.stages = {{"construction", 1.5e-3},
                {"interaction", 2.25},
                {"odd \"name\"", 1e300},
                {"checks", std::numeric_limits<double>::infinity()}};
    s.snapshots = 17;
    s.smoothing_length = 0.0130;
    s.speed_of_sound = 44.29;
    s.dp = 0.005;
    s.version = "1.2.3";
    s.command_line = {"sluice", "run", "cases/dam break.xml", "--dp", "0.01"};

    const fs::path path = root_ / "summary.json";
    write_summary_json(path, s);
    const Json j = Json::parse(read_file(path)); // throws on malformed JSON

    ASSERT_TRUE(j.is_object());
    std::vector<std::string> keys;
    for (const auto& m : j.items())
        keys.push_back(m.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"case",
                                              "case_file",
                                              "backend",
                                              "neighbour_module",
                                              "status",
                                              "failure",
                                              "particles",
                                              "lost_particles",
                                              "steps",
                                              "simulated_time_s",
                                              "end_time_s",
                                              "wall_time_s",
                                              "stages_s",
                                              "snapshots",
                                              "h_m",
                                              "c0_m_per_s",
                                              "dp_m",
                                              "checkpoints",
                                              "restart",
                                              "output",
                                              "neighbour_tuning",
                                              "kept_lists",
                                              "performance",
                                              "decomposition",
                                              "version",
                                              "command_line"}));
    EXPECT_TRUE(j["decomposition"].is_null()); // one process
    EXPECT_EQ(j["version"], "1.2.3");
    EXPECT_EQ(j["command_line"], Json(s.command_line)); // the argument with a space stays one
    EXPECT_EQ(j["case"], s.case_name);
    EXPECT_EQ(j["case_file"], s.case_file);
    EXPECT_EQ(j["backend"], s.backend);
    EXPECT_EQ(j["neighbour_module"], s.neighbour_module);
    EXPECT_EQ(j["status"], s.status);
    ASSERT_TRUE(j["failure"].is_string());
    EXPECT_EQ(j["failure"], s.failure); // quote, backslash, control chars round-trip

    const Json& initial = j["particles"]["initial"];
    EXPECT_EQ(initial["fluid"], 1000);
    EXPECT_EQ(initial["boundary"], 200);
    EXPECT_EQ(initial["excluded"], 0);
    const Json& final_counts = j["particles"]["final"];
    EXPECT_EQ(final_counts["fluid"], 990);
    EXPECT_EQ(final_counts["boundary"], 200);
    EXPECT_EQ(final_counts["excluded"], 10);
    const Json& lost = j["lost_particles"];
    EXPECT_EQ(lost["fluid"], 10);
    EXPECT_EQ(lost["fluid_at_start"], 1000);
    EXPECT_EQ(lost["fluid_percent"].get<double>(), 1.0);
    EXPECT_EQ(lost["boundary"], 0);
    EXPECT_EQ(lost["max_fluid_percent"].get<double>(), 0.5);
    EXPECT_EQ(lost["exceeded"], true);
    ASSERT_TRUE(j["steps"].is_number_unsigned());
    EXPECT_EQ(j["steps"].get<std::uint64_t>(), 123456789012ull); // exact, not via a double
    EXPECT_EQ(j["snapshots"], 17);

    EXPECT_EQ(j["simulated_time_s"].get<double>(), 0.1);
    EXPECT_EQ(j["end_time_s"].get<double>(), 1.0 / 3.0); // full double precision
    EXPECT_TRUE(j["wall_time_s"].is_null());
    EXPECT_EQ(j["h_m"].get<double>(), 0.0130);
    EXPECT_EQ(j["c0_m_per_s"].get<double>(), 44.29);
    EXPECT_EQ(j["dp_m"].get<double>(), 0.005);

    const Json& stages = j["stages_s"];
    ASSERT_EQ(stages.size(), 4u);
    std::vector<std::string> stage_names;
    for (const auto& m : stages.items())
        stage_names.push_back(m.key());
    EXPECT_EQ(stage_names,
              (std::vector<std::string>{"construction", "interaction", "odd \"name\"", "checks"}));
    EXPECT_EQ(stages["construction"].get<double>(), 1.5e-3);
    EXPECT_EQ(stages["interaction"].get<double>(), 2.25);
    EXPECT_EQ(stages["odd \"name\""].get<double>(), 1e300);
    EXPECT_TRUE(stages["checks"].is_null());
    EXPECT_TRUE(j["restart"].is_null());
    EXPECT_EQ(j["output"]["compressor"], "lz4");
    EXPECT_TRUE(j["neighbour_tuning"].is_null());
    EXPECT_TRUE(j["kept_lists"].is_null());
    EXPECT_TRUE(j["performance"]["million_particle_steps_per_s"].is_null()); // wall time NaN
}

TEST_F(SummaryTest, SummaryRecordsHowTheKeptListsServed) {
    RunSummary s;
    s.kept_lists = KeptListsSummary{1234, 5};
    const fs::path path = root_ / "summary.json";
    write_summary_json(path, s);
    const Json j = Json::parse(read_file(path))["kept_lists"];
    EXPECT_EQ(j["kept_steps"], 1234);
    EXPECT_EQ(j["walked_steps"], 5);
}

TEST_F(SummaryTest, SummaryRecordsAnAutomaticNeighbourChoice) {
    RunSummary s;
    TuningSummary t;
    t.ranking = {{"counting-sort/strips/0.5", 1.25}, {"radix-sort/moore/1", 2.5}};
    t.not_timed = {"radix-sort/modular/1"};
    t.steps = 5;
    t.seconds = 3.5;
    s.tuning = t;
    const fs::path path = root_ / "summary.json";
    write_summary_json(path, s);
    const Json j = Json::parse(read_file(path))["neighbour_tuning"];
    EXPECT_EQ(j["chosen"], "counting-sort/strips/0.5");
    EXPECT_EQ(j["seconds"].get<double>(), 3.5);
    EXPECT_EQ(j["steps"], 5);
    ASSERT_EQ(j["ranking"].size(), 2u);
    EXPECT_EQ(j["ranking"][1]["module"], "radix-sort/moore/1");
    EXPECT_EQ(j["ranking"][1]["ms_per_step"].get<double>(), 2.5);
    EXPECT_EQ(j["not_timed"][0], "radix-sort/modular/1");
}

TEST_F(SummaryTest, SummaryReportsThroughputAndWallShares) {
    RunSummary s;
    s.wall_time = 10.0;
    s.particle_steps = 2.0e9;
    s.stages = {{"construction", 1.0}, {"interaction", 3.0}, {"gauges", 0.5}, {"output", 0.5}};
    s.output.compressor = "zlib";
    s.output.level = 3;
    s.output.fields = "velocity";
    s.output.boundary = "first";
    s.output.writers = 4;
    s.output.bytes = 123456789012ull;
    s.output.writer_thread_seconds = 7.5;
    const fs::path path = root_ / "summary.json";
    write_summary_json(path, s);
    const Json j = Json::parse(read_file(path));
    const Json& p = j["performance"];
    EXPECT_DOUBLE_EQ(p["particle_steps"].get<double>(), 2.0e9);
    EXPECT_DOUBLE_EQ(p["million_particle_steps_per_s"].get<double>(), 200.0);
    EXPECT_DOUBLE_EQ(p["step_million_particle_steps_per_s"].get<double>(), 500.0); // 4 s of step
    EXPECT_DOUBLE_EQ(p["wall_share"]["interaction"].get<double>(), 0.3);
    EXPECT_DOUBLE_EQ(p["wall_share"]["other"].get<double>(), 0.5);
    const Json& o = j["output"];
    EXPECT_EQ(o["compressor"], "zlib");
    EXPECT_EQ(o["level"], 3);
    EXPECT_EQ(o["fields"], "velocity");
    EXPECT_EQ(o["boundary"], "first");
    EXPECT_EQ(o["writers"], 4);
    EXPECT_EQ(o["bytes"].get<std::uint64_t>(), 123456789012ull);
    EXPECT_EQ(o["writer_thread_s"].get<double>(), 7.5);
    const std::string lines = performance_lines(s);
    EXPECT_NE(lines.find("2000 M particle-steps in 10 s wall: 200.0 M particle-steps/s (the step "
                         "alone: 500.0 M/s)"),
              std::string::npos)
        << lines;
    EXPECT_NE(lines.find("interaction 30.0 %, gauges 5.0 %, output wait 5.0 %, other 50.0 %"),
              std::string::npos)
        << lines;
}

TEST_F(SummaryTest, SummaryJsonOfDefaultSummaryHasEmptyStagesObject) {
    const fs::path path = root_ / "summary.json";
    write_summary_json(path, RunSummary{});
    const Json j = Json::parse(read_file(path));
    ASSERT_TRUE(j["stages_s"].is_object());
    EXPECT_TRUE(j["stages_s"].empty());
    EXPECT_EQ(j["failure"], "");
    EXPECT_EQ(j["steps"], 0);
}

} // namespace
