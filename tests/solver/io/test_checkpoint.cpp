// Checkpoint files: exact round trip, damage detected, the newest usable one chosen, the last
// two kept, interrupted writes harmless.

#include "io/checkpoint.h"

#include "case/state_conversion.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sluice {
namespace {

namespace fs = std::filesystem;

class CheckpointTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("sluice_checkpoint_" + std::string(info->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

/// A checkpoint with distinct, non-trivial values everywhere (Verlet: with step n−1).
Checkpoint sample(std::uint64_t step, std::size_t n = 7) {
    Checkpoint c;
    c.case_name = "tank";
    c.dp = 0.01;
    c.integrator = "verlet";
    c.next_output = 12;
    c.output_times = {0.0, 0.05, 0.1000000001};
    c.next_checkpoint_time = 0.3;
    SimulationState& s = c.state;
    s.dimension = 3;
    s.time = 0.123456789012345;
    s.last_dt = 1.0 / 3.0 * 1e-4;
    s.steps = step;
    s.fluid_height = 0.55;
    for (std::size_t k = 0; k < n; ++k) {
        s.id.push_back(static_cast<std::uint32_t>((k * 3) % n)); // a permutation (n = 7)
        s.type.push_back(k % 2 ? ParticleType::fluid : ParticleType::boundary);
        s.position.push_back({0.1f * k, -0.2f * k, 1e-7f * k});
        s.velocity.push_back({1.5f + k, 0.0f, -3.25f * k});
        s.density.push_back(1000.0f + 0.001f * k);
        s.previous_velocity.push_back({2.0f * k, 1.0f, 0.5f});
        s.previous_density.push_back(999.0f - k);
    }
    s.excluded = {3, 5};
    return c;
}

void expect_equal(const Checkpoint& a, const Checkpoint& b) {
    EXPECT_EQ(a.case_name, b.case_name);
    EXPECT_EQ(a.dp, b.dp);
    EXPECT_EQ(a.integrator, b.integrator);
    EXPECT_EQ(a.next_output, b.next_output);
    EXPECT_EQ(a.output_times, b.output_times);
    EXPECT_EQ(a.next_checkpoint_time, b.next_checkpoint_time);
    const SimulationState &s = a.state, &t = b.state;
    EXPECT_EQ(s.dimension, t.dimension);
    EXPECT_EQ(s.time, t.time);
    EXPECT_EQ(s.last_dt, t.last_dt);
    EXPECT_EQ(s.steps, t.steps);
    EXPECT_EQ(s.fluid_height, t.fluid_height);
    EXPECT_EQ(s.id, t.id);
    EXPECT_EQ(s.type, t.type);
    EXPECT_EQ(s.position, t.position);
    EXPECT_EQ(s.velocity, t.velocity);
    EXPECT_EQ(s.density, t.density);
    EXPECT_EQ(s.previous_velocity, t.previous_velocity);
    EXPECT_EQ(s.previous_density, t.previous_density);
    EXPECT_EQ(s.excluded, t.excluded);
}

TEST_F(CheckpointTest, RoundTripIsExact) {
    const Checkpoint c = sample(42);
    const fs::path path = write_checkpoint(dir_, c);
    EXPECT_EQ(path.filename(), "tank_checkpoint_000000000042.chk");
    const Checkpoint back = read_checkpoint(path);
    expect_equal(c, back);
    EXPECT_EQ(back.source, path);
    // Symplectic: no step n−1 arrays.
    Checkpoint symplectic = sample(43);
    symplectic.integrator = "symplectic";
    symplectic.state.previous_velocity.clear();
    symplectic.state.previous_density.clear();
    expect_equal(symplectic, read_checkpoint(write_checkpoint(dir_, symplectic)));
}

TEST(SimulationState, InIdOrderPermutesEveryArrayTogether) {
    const SimulationState s = sample(1).state;
    const SimulationState t = in_id_order(s);
    ASSERT_EQ(t.size(), s.size());
    for (std::size_t k = 0; k < t.size(); ++k) {
        ASSERT_EQ(t.id[k], k);
        const std::size_t from = static_cast<std::size_t>(
            std::find(s.id.begin(), s.id.end(), static_cast<std::uint32_t>(k)) - s.id.begin());
        EXPECT_EQ(t.type[k], s.type[from]);
        EXPECT_EQ(t.position[k], s.position[from]);
        EXPECT_EQ(t.velocity[k], s.velocity[from]);
        EXPECT_EQ(t.density[k], s.density[from]);
        EXPECT_EQ(t.previous_velocity[k], s.previous_velocity[from]);
        EXPECT_EQ(t.previous_density[k], s.previous_density[from]);
    }
    EXPECT_EQ(t.excluded, s.excluded);
    EXPECT_EQ(t.time, s.time);
}

TEST_F(CheckpointTest, DamageIsDetected) {
    const fs::path path = write_checkpoint(dir_, sample(1));
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto expect_error = [&](const std::string& content, const std::string& words) {
        const fs::path bad = dir_ / "bad.chk";
        std::ofstream(bad, std::ios::binary) << content;
        try {
            read_checkpoint(bad);
            ADD_FAILURE() << "no error for " << words;
        } catch (const CheckpointError& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("bad.chk"), std::string::npos) << e.what();
        }
    };
    std::string flipped = bytes;
    flipped[bytes.size() / 2] ^= 0x10;
    expect_error(flipped, "checksum mismatch");
    expect_error(bytes.substr(0, bytes.size() / 3), "checksum"); // truncated: sum is wrong too
    expect_error("hello, world: not a checkpoint at all", "not a sluice checkpoint");
    expect_error("", "not a sluice checkpoint");
}

TEST_F(CheckpointTest, KeepsTheNewestTwoAndFallsBackPastDamage) {
    for (std::uint64_t step : {10, 20, 30})
        write_checkpoint(dir_, sample(step));
    std::vector<fs::path> all = list_checkpoints(dir_, "tank");
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].filename(), "tank_checkpoint_000000000020.chk");
    EXPECT_EQ(all[1].filename(), "tank_checkpoint_000000000030.chk");

    // A write killed before its rename leaves only a hidden temporary: ignored.
    std::ofstream(dir_ / ".tank_checkpoint_000000000040.chk.tmp") << "half a checkpoint";
    std::vector<std::string> warnings;
    EXPECT_EQ(read_latest_checkpoint(dir_, "tank", warnings).state.steps, 30u);
    EXPECT_TRUE(warnings.empty());

    // The newest damaged (a bad disk): the previous one is used, with a warning.
    std::ofstream(all[1], std::ios::binary | std::ios::trunc) << "SLUICECK garbage";
    EXPECT_EQ(read_latest_checkpoint(dir_, "tank", warnings).state.steps, 20u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("000000000030.chk"), std::string::npos) << warnings[0];

    // Other cases' checkpoints are not this case's; none at all is an error naming the folder.
    EXPECT_TRUE(list_checkpoints(dir_, "other").empty());
    try {
        read_latest_checkpoint(dir_, "other", warnings);
        ADD_FAILURE();
    } catch (const CheckpointError& e) {
        EXPECT_NE(std::string(e.what()).find("no checkpoint of case 'other'"), std::string::npos);
    }
}

/// The pieces of `whole` (a sample) as processes `processes` would write them at `step`: particle
/// k to process k % processes, each piece its owner's exclusions.
void write_pieces(const fs::path& dir, const Checkpoint& whole, std::uint32_t processes) {
    for (std::uint32_t p = 0; p < processes; ++p) {
        Checkpoint piece = whole;
        piece.process = p;
        piece.processes = processes;
        piece.total_particles = whole.state.size();
        piece.slab_faces.clear();
        for (std::uint32_t f = 0; f <= processes; ++f)
            piece.slab_faces.push_back(0.5 * f);
        const SimulationState& w = whole.state;
        piece.state = select_particles(w, [&](std::size_t k) { return k % processes == p; });
        for (const std::uint32_t id : piece.state.id)
            if (std::find(w.excluded.begin(), w.excluded.end(), id) != w.excluded.end())
                piece.state.excluded.push_back(id);
        write_checkpoint(dir, piece);
    }
}

/// A restart under another number of processes reads every piece of the newest step and merges
/// them into the whole run in id order; a newer single file wins, a step with a piece missing or
/// damaged is skipped for an older one, and newest_checkpoint_processes says who wrote the newest
/// from the file names.
TEST_F(CheckpointTest, PiecesMergeIntoTheWholeRun) {
    EXPECT_EQ(newest_checkpoint_processes(dir_, "tank"), 0u);
    const Checkpoint whole = sample(40);
    write_pieces(dir_, whole, 3);
    EXPECT_EQ(newest_checkpoint_processes(dir_, "tank"), 3u);
    std::vector<std::string> warnings;
    const Checkpoint merged = read_latest_whole_checkpoint(dir_, "tank", warnings);
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(merged.processes, 3u);
    EXPECT_EQ(merged.total_particles, whole.state.size());
    Checkpoint expected = whole;
    expected.state = in_id_order(whole.state);
    expect_equal(merged, expected);

    // One piece of a newer step missing (a process died before writing it): the older step.
    Checkpoint newer = sample(50);
    write_pieces(dir_, newer, 2);
    fs::remove(checkpoint_path(dir_, "tank", 50, 1));
    EXPECT_EQ(newest_checkpoint_processes(dir_, "tank"), 1u); // as the names say
    EXPECT_EQ(read_latest_whole_checkpoint(dir_, "tank", warnings).state.steps, 40u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("_000000000050_1.chk"), std::string::npos) << warnings[0];

    // A newer single file (a run in one process since): as it is, its own order kept.
    write_checkpoint(dir_, sample(60));
    EXPECT_EQ(newest_checkpoint_processes(dir_, "tank"), 1u);
    warnings.clear();
    const Checkpoint single = read_latest_whole_checkpoint(dir_, "tank", warnings);
    EXPECT_EQ(single.processes, 1u);
    expect_equal(single, sample(60));

    // Pieces of different steps are not one state.
    std::vector<SimulationState> mixed = {sample(40).state, sample(50).state};
    EXPECT_THROW(merge_pieces(mixed), CheckpointError);
}

} // namespace
} // namespace sluice
