// `sluice run` on a case that loses fluid through an open side of its domain: the console names
// the first five particles and then counts the rest per output interval, the end says how many
// were lost and what share, and a run over --max-loss / <run maxLoss> exits 4 with
// summary.json's status "lost_particles"; one under it completes.

#include "app/cli.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

using namespace cli_test;
namespace fs = std::filesystem;

namespace {

/// The runs here are of a few hundred particles: one OpenMP thread each, so that a loaded
/// machine does not make their threads wait on each other (tens of times slower).
class LossCli : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        if (const char* threads = std::getenv("OMP_NUM_THREADS"))
            saved_threads_ = threads;
        setenv("OMP_NUM_THREADS", "1", 1);
    }
    void TearDown() override {
        if (saved_threads_)
            setenv("OMP_NUM_THREADS", saved_threads_->c_str(), 1);
        else
            unsetenv("OMP_NUM_THREADS");
        Cli::TearDown();
    }

private:
    std::optional<std::string> saved_threads_;
};

// A block of water thrown at 2.5 m/s towards the right, where the tank has no wall: the default
// domain ends 10 % of the tank's extent beyond it (x ≈ 0.56 m), so the fluid that starts right
// of x ≈ 0.26 m (about a third of it) has left by t = 0.12 s; the first leaves at t ≈ 0.05 s.
const std::string leaking_case = R"(<sluice name="leaking" dimension="2">
  <geometry dp="0.02">
    <fluid min="0 0" max="0.4 0.2" velocity="2.5 0"/>
    <tank min="0 0" max="0.5 0.5" faces="bottom left"/>
  </geometry>
  <run endTime="0.12" outputInterval="0.02"/>
</sluice>
)";

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

nlohmann::json read_summary(const fs::path& dir) {
    std::ifstream in(dir / "summary.json");
    return nlohmann::json::parse(in);
}

/// The totals the per-interval lines give, in order.
std::vector<std::uint64_t> interval_totals(const std::string& output) {
    static const std::regex line(R"(more fluid particles? excluded \(total (\d+), )");
    std::vector<std::uint64_t> totals;
    for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
         it != std::sregex_iterator(); ++it)
        totals.push_back(std::stoull((*it)[1]));
    return totals;
}

/// What every run of the leaking case shows, whatever its limit: five named particles, then
/// counts per interval that add up to the total, and the total with its share at the end.
void expect_losses_reported(const Result& r, const nlohmann::json& summary) {
    const nlohmann::json& lost = summary["lost_particles"];
    const std::uint64_t fluid_lost = lost["fluid"].get<std::uint64_t>();
    const std::uint64_t fluid = lost["fluid_at_start"].get<std::uint64_t>();
    EXPECT_EQ(fluid, summary["particles"]["initial"]["fluid"].get<std::uint64_t>());
    EXPECT_EQ(fluid_lost, summary["particles"]["final"]["excluded"].get<std::uint64_t>());
    EXPECT_EQ(fluid_lost + summary["particles"]["final"]["fluid"].get<std::uint64_t>(), fluid);
    EXPECT_EQ(lost["boundary"], 0);
    EXPECT_GT(fluid_lost, fluid / 4) << r.output;
    EXPECT_NEAR(lost["fluid_percent"].get<double>(), 100.0 * double(fluid_lost) / double(fluid),
                1e-9);

    EXPECT_EQ(count_of(r.output, "left the domain at ("), 5u) << r.output;
    EXPECT_EQ(count_of(r.output, "further ones are counted at each output time"), 1u) << r.output;
    const std::vector<std::uint64_t> totals = interval_totals(r.output);
    ASSERT_GE(totals.size(), 2u) << r.output;
    EXPECT_EQ(totals.back(), fluid_lost) << r.output;
    for (std::size_t k = 1; k < totals.size(); ++k)
        EXPECT_GT(totals[k], totals[k - 1]);
    // At most one count line per output interval (6 of them) and the end.
    EXPECT_LE(totals.size(), 7u) << r.output;
    std::ostringstream end_line;
    end_line << fluid_lost << " of " << fluid << " fluid particles (";
    EXPECT_TRUE(contains(r.output, end_line.str())) << r.output;
    EXPECT_TRUE(contains(r.output, "%) left the domain and were excluded")) << r.output;
}

TEST_F(LossCli, RunThatLosesMoreFluidThanAllowedExits4WithItsOutputComplete) {
    write("leaking.xml", leaking_case);
    const Result r = sluice("run leaking.xml --backend cpu --out lost", dir_);
    EXPECT_EQ(r.exit_code, 4) << r.output;
    const fs::path out = dir_ / "lost";
    expect_complete_series(out, "leaking");
    EXPECT_EQ(pvd_entries(out / "leaking.pvd"), 7u); // t = 0, 0.02 … 0.12: the run went on
    const nlohmann::json summary = read_summary(out);
    EXPECT_EQ(summary["status"], "lost_particles");
    EXPECT_NEAR(summary["simulated_time_s"].get<double>(), 0.12, 1e-3);
    const nlohmann::json& lost = summary["lost_particles"];
    EXPECT_TRUE(lost["exceeded"].get<bool>());
    EXPECT_EQ(lost["max_fluid_percent"], 1.0); // the default
    const std::string failure = summary["failure"];
    EXPECT_TRUE(contains(failure, std::to_string(lost["fluid"].get<std::uint64_t>()) + " of " +
                                      std::to_string(lost["fluid_at_start"].get<std::uint64_t>()) +
                                      " fluid particles"))
        << failure;
    EXPECT_TRUE(contains(failure, "more than the 1 % a run may lose")) << failure;
    EXPECT_TRUE(contains(r.output, "sluice: error: " + failure)) << r.output;
    EXPECT_TRUE(contains(r.output, "exit code 4")) << r.output;
    expect_losses_reported(r, summary);
}

TEST_F(LossCli, RunUnderItsLossLimitCompletes) {
    // The same losses under a limit of 60 %, from the command line and from the case.
    write("leaking.xml", leaking_case);
    const Result r = sluice("run leaking.xml --backend cpu --out allowed --max-loss 60", dir_);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    expect_complete_series(dir_ / "allowed", "leaking");
    const nlohmann::json summary = read_summary(dir_ / "allowed");
    EXPECT_EQ(summary["status"], "completed");
    EXPECT_EQ(summary["failure"], "");
    EXPECT_FALSE(summary["lost_particles"]["exceeded"].get<bool>());
    EXPECT_EQ(summary["lost_particles"]["max_fluid_percent"], 60.0);
    EXPECT_TRUE(contains(r.output, "sluice: done,")) << r.output;
    EXPECT_FALSE(contains(r.output, "error")) << r.output;
    expect_losses_reported(r, summary);

    std::string in_case = leaking_case;
    in_case.replace(in_case.find("<run "), 5, R"(<run maxLoss="60" )");
    write("allowed.xml", in_case);
    const Result from_case = sluice("run allowed.xml --backend cpu --out from_case", dir_);
    EXPECT_EQ(from_case.exit_code, 0) << from_case.output;
    EXPECT_EQ(read_summary(dir_ / "from_case")["lost_particles"]["max_fluid_percent"], 60.0);
    // The command line wins over the case.
    const Result stricter =
        sluice("run allowed.xml --backend cpu --out stricter --max-loss 0.5", dir_);
    EXPECT_EQ(stricter.exit_code, 4) << stricter.output;
}

TEST_F(LossCli, RunWithoutLossesSaysNothingOfThem) {
    write("small.xml", small_case);
    const Result r = sluice("run small.xml --backend cpu --out results --max-loss 0", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(contains(r.output, "left the domain")) << r.output;
    const nlohmann::json summary = read_summary(dir_ / "results");
    EXPECT_EQ(summary["status"], "completed");
    EXPECT_EQ(summary["lost_particles"]["fluid"], 0);
    EXPECT_EQ(summary["lost_particles"]["fluid_percent"], 0.0);
    EXPECT_FALSE(summary["lost_particles"]["exceeded"].get<bool>());
}

TEST_F(LossCli, ARestartedRunCountsTheLossesBeforeIt) {
    write("leaking.xml", leaking_case);
    const Result first = sluice(
        "run leaking.xml --backend cpu --out run --end-time 0.08 --checkpoint-interval 1", dir_);
    ASSERT_EQ(first.exit_code, 4) << first.output;
    const nlohmann::json before = read_summary(dir_ / "run");
    const std::uint64_t lost_before = before["lost_particles"]["fluid"].get<std::uint64_t>();
    ASSERT_GT(lost_before, 5u);

    const Result second = sluice("run leaking.xml --backend cpu --restart run", dir_);
    EXPECT_EQ(second.exit_code, 4) << second.output;
    const nlohmann::json after = read_summary(dir_ / "run");
    const nlohmann::json& lost = after["lost_particles"];
    // The share is of the fluid at t = 0, and the losses count from there.
    EXPECT_EQ(lost["fluid_at_start"], before["particles"]["initial"]["fluid"]);
    EXPECT_EQ(lost["fluid"], after["particles"]["final"]["excluded"]);
    EXPECT_GT(lost["fluid"].get<std::uint64_t>(), lost_before);
    EXPECT_EQ(lost["fluid"].get<std::uint64_t>() +
                  after["particles"]["final"]["fluid"].get<std::uint64_t>(),
              lost["fluid_at_start"].get<std::uint64_t>());
    // The restarted run names its own first five, counting on from the earlier ones.
    EXPECT_EQ(count_of(second.output, "left the domain at ("), 5u) << second.output;
    EXPECT_TRUE(contains(second.output, "(" + std::to_string(lost_before + 1) + " in all)"))
        << second.output;
}

TEST_F(LossCli, HelpNamesTheLossLimitAndItsExitCode) {
    const Result run = sluice("run --help");
    EXPECT_EQ(run.exit_code, 0);
    for (const char* part :
         {"--max-loss PERCENT", "exits with code 4", "default 1", "overrides <run maxLoss>"})
        EXPECT_TRUE(contains(run.output, part)) << part << " missing in:\n" << run.output;
    const Result help = sluice("--help");
    EXPECT_TRUE(contains(help.output, "4 more fluid left the domain than --max-loss allows"))
        << help.output;
}

TEST_F(LossCli, LossLimitOutsideItsRangeIsBadInput) {
    write("leaking.xml", leaking_case);
    const Result cli = sluice("run leaking.xml --backend cpu --max-loss 150", dir_);
    EXPECT_EQ(cli.exit_code, 2) << cli.output;
    EXPECT_TRUE(contains(cli.output, "--max-loss")) << cli.output;
    EXPECT_TRUE(contains(cli.output, "percentage in [0, 100]")) << cli.output;

    std::string in_case = leaking_case;
    in_case.replace(in_case.find("<run "), 5, R"(<run maxLoss="-1" )");
    write("bad.xml", in_case);
    const Result reader = sluice("run bad.xml --backend cpu", dir_);
    EXPECT_EQ(reader.exit_code, 2) << reader.output;
    EXPECT_TRUE(contains(reader.output, "bad.xml:6:")) << reader.output;
    EXPECT_TRUE(contains(reader.output, "maxLoss")) << reader.output;
    EXPECT_TRUE(contains(reader.output, "[0, 100]")) << reader.output;
}

} // namespace
