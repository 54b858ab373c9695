#include "io/checkpoint.h"

#include "io/atomic_file.h"
#include "io/file_names.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <system_error>

namespace sluice {
namespace fs = std::filesystem;

namespace {

constexpr char magic[8] = {'S', 'L', 'U', 'I', 'C', 'E', 'C', 'K'};
/// 2 added the decomposition (process, processes, total particles, slab axis and faces) after
/// the exclusions; 3 the floating bodies' states after it; versions 1 and 2 still read.
constexpr std::uint32_t version = 3;
static_assert(sizeof(ParticleType) == 1, "types are stored as bytes");

/// FNV-1a, 64 bit: detects a file damaged after it was written (truncation is caught by sizes).
std::uint64_t fnv1a(const char* data, std::size_t size) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i) {
        h ^= static_cast<unsigned char>(data[i]);
        h *= 1099511628211ull;
    }
    return h;
}

class Writer {
public:
    template <class T>
    void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void text(const std::string& s) {
        value(static_cast<std::uint64_t>(s.size()));
        bytes_ += s;
    }
    template <class T>
    void array(const std::vector<T>& a) {
        value(static_cast<std::uint64_t>(a.size()));
        if (!a.empty())
            bytes_.append(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(T));
    }
    std::string finish() {
        value(fnv1a(bytes_.data(), bytes_.size()));
        return std::move(bytes_);
    }
    std::string bytes_;
};

class Reader {
public:
    Reader(const std::string& bytes, const fs::path& path) : bytes_(bytes), path_(path) {}

    [[noreturn]] void fail(const std::string& why) const {
        throw CheckpointError("checkpoint " + quoted(path_) + ": " + why);
    }
    void need(std::uint64_t size) const {
        if (size > bytes_.size() - pos_)
            fail("truncated (" + std::to_string(bytes_.size()) + " bytes)");
    }
    template <class T>
    T value() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    std::string text() {
        const auto size = value<std::uint64_t>();
        need(size);
        std::string s = bytes_.substr(pos_, size);
        pos_ += size;
        return s;
    }
    /// An array written by Writer::array; `expected` (if given) is its length.
    template <class T>
    std::vector<T> array(std::optional<std::uint64_t> expected = std::nullopt) {
        const auto size = value<std::uint64_t>();
        if (expected && size != *expected)
            fail("an array holds " + std::to_string(size) + " values, expected " +
                 std::to_string(*expected));
        need(size * sizeof(T));
        std::vector<T> a(size);
        if (size)
            std::memcpy(a.data(), bytes_.data() + pos_, size * sizeof(T));
        pos_ += size * sizeof(T);
        return a;
    }
    std::size_t position() const { return pos_; }

private:
    const std::string& bytes_;
    fs::path path_;
    std::size_t pos_ = 0;
};

/// The error of a restart from a folder without a checkpoint of the case.
CheckpointError no_checkpoint(const fs::path& dir, const std::string& name) {
    return CheckpointError("no checkpoint of case '" + name + "' in " + quoted(dir) + " (files " +
                           name +
                           "_checkpoint_*.chk; a run writes them with --checkpoint-interval "
                           "or <run checkpointInterval>, and on Ctrl-C)");
}

/// The checkpoint files of case `name` in `dir`, by step: a single file, or the processes whose
/// piece of the step is there (ascending).
struct CheckpointFiles {
    std::map<std::uint64_t, fs::path> singles;
    std::map<std::uint64_t, std::vector<std::uint32_t>> pieces;
};

CheckpointFiles checkpoint_files(const fs::path& dir, const std::string& name) {
    CheckpointFiles files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (const auto step = checkpoint_step(file, name))
            files.singles[*step] = it->path();
        else if (const auto piece = process_checkpoint(file, name))
            files.pieces[piece->first].push_back(static_cast<std::uint32_t>(piece->second));
    }
    for (auto& [step, processes] : files.pieces)
        std::sort(processes.begin(), processes.end());
    return files;
}

} // namespace

fs::path checkpoint_path(const fs::path& dir, const std::string& name, std::uint64_t step) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%012llu", static_cast<unsigned long long>(step));
    return dir / (name + "_checkpoint_" + digits + ".chk");
}

fs::path checkpoint_path(const fs::path& dir, const std::string& name, std::uint64_t step,
                         std::uint32_t process) {
    fs::path p = checkpoint_path(dir, name, step);
    p.replace_extension();
    return p.string() + "_" + std::to_string(process) + ".chk";
}

std::vector<std::uint64_t> list_process_checkpoints(const fs::path& dir, const std::string& name,
                                                    std::uint32_t process) {
    std::vector<std::uint64_t> steps;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (const auto found = process_checkpoint(it->path().filename().string(), name))
            if (found->second == process)
                steps.push_back(found->first);
    std::sort(steps.begin(), steps.end());
    return steps;
}

std::vector<fs::path> list_checkpoints(const fs::path& dir, const std::string& name) {
    std::vector<std::pair<std::uint64_t, fs::path>> found;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (const auto step = checkpoint_step(it->path().filename().string(), name))
            found.emplace_back(*step, it->path());
    std::sort(found.begin(), found.end());
    std::vector<fs::path> out;
    for (auto& f : found)
        out.push_back(std::move(f.second));
    return out;
}

fs::path write_checkpoint(const fs::path& dir, const Checkpoint& c, int keep) {
    const SimulationState& s = c.state;
    Writer w;
    w.bytes_.append(magic, sizeof magic);
    w.value(version);
    w.text(c.case_name);
    w.value(c.dp);
    w.text(c.integrator);
    w.value(static_cast<std::int32_t>(s.dimension));
    w.value(s.time);
    w.value(s.last_dt);
    w.value(s.steps);
    w.value(s.fluid_height);
    w.value(c.next_output);
    w.value(c.next_checkpoint_time);
    w.array(c.output_times);
    w.value(static_cast<std::uint64_t>(s.size()));
    w.array(s.id);
    w.array(s.type);
    w.array(s.position);
    w.array(s.velocity);
    w.array(s.density);
    w.value(static_cast<std::uint8_t>(s.previous_velocity.empty() ? 0 : 1));
    if (!s.previous_velocity.empty()) {
        w.array(s.previous_velocity);
        w.array(s.previous_density);
    }
    w.array(s.excluded);
    w.value(c.process);
    w.value(c.processes);
    w.value(c.processes > 1 ? c.total_particles : static_cast<std::uint64_t>(s.size()));
    w.value(c.slab_axis);
    w.array(c.slab_faces);
    w.array(s.body_states);
    const bool piece = c.processes > 1;
    const fs::path path = piece ? checkpoint_path(dir, c.case_name, s.steps, c.process)
                                : checkpoint_path(dir, c.case_name, s.steps);
    write_file_atomically(path, w.finish(), /*sync=*/true);

    std::vector<fs::path> all;
    if (piece)
        for (const std::uint64_t step : list_process_checkpoints(dir, c.case_name, c.process))
            all.push_back(checkpoint_path(dir, c.case_name, step, c.process));
    else
        all = list_checkpoints(dir, c.case_name);
    std::error_code ec;
    for (std::size_t k = 0; k + static_cast<std::size_t>(keep) < all.size(); ++k)
        fs::remove(all[k], ec); // best effort: an old checkpoint left behind is harmless
    return path;
}

Checkpoint read_checkpoint(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw CheckpointError("checkpoint " + quoted(path) +
                              ": cannot open: " + std::strerror(errno));
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    Reader r(bytes, path);
    if (bytes.size() < sizeof magic + sizeof(std::uint64_t) ||
        std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        r.fail("not a sluice checkpoint");
    std::uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - sizeof stored, sizeof stored);
    if (fnv1a(bytes.data(), bytes.size() - sizeof stored) != stored)
        r.fail("checksum mismatch: the file is damaged");
    for (std::size_t k = 0; k < sizeof magic; ++k)
        r.value<char>();
    const auto file_version = r.value<std::uint32_t>();
    if (file_version > version || file_version < 1)
        r.fail("format version " + std::to_string(file_version) + ", this sluice reads " +
               std::to_string(version));
    Checkpoint c;
    c.source = path;
    c.case_name = r.text();
    c.dp = r.value<double>();
    c.integrator = r.text();
    SimulationState& s = c.state;
    s.dimension = r.value<std::int32_t>();
    if (s.dimension != 2 && s.dimension != 3)
        r.fail("dimension " + std::to_string(s.dimension));
    s.time = r.value<double>();
    s.last_dt = r.value<double>();
    s.steps = r.value<std::uint64_t>();
    s.fluid_height = r.value<double>();
    c.next_output = r.value<std::uint64_t>();
    c.next_checkpoint_time = r.value<double>();
    c.output_times = r.array<double>();
    const auto n = r.value<std::uint64_t>();
    s.id = r.array<std::uint32_t>(n);
    s.type = r.array<ParticleType>(n);
    s.position = r.array<std::array<float, 3>>(n);
    s.velocity = r.array<std::array<float, 3>>(n);
    s.density = r.array<float>(n);
    if (r.value<std::uint8_t>() != 0) {
        s.previous_velocity = r.array<std::array<float, 3>>(n);
        s.previous_density = r.array<float>(n);
    }
    s.excluded = r.array<std::uint32_t>();
    c.total_particles = n;
    if (file_version >= 2) {
        c.process = r.value<std::uint32_t>();
        c.processes = r.value<std::uint32_t>();
        c.total_particles = r.value<std::uint64_t>();
        c.slab_axis = r.value<std::int32_t>();
        c.slab_faces = r.array<double>();
        if (c.processes == 0 || c.process >= c.processes ||
            (c.processes > 1 && c.slab_faces.size() != c.processes + 1) || c.slab_axis < 0 ||
            c.slab_axis >= s.dimension || c.total_particles < n)
            r.fail("inconsistent decomposition (process " + std::to_string(c.process) + " of " +
                   std::to_string(c.processes) + ")");
    }
    if (file_version >= 3)
        s.body_states = r.array<double>();
    if (r.position() + sizeof(std::uint64_t) != bytes.size())
        r.fail("trailing bytes after the state");
    for (const std::uint32_t id : s.id)
        if (id >= c.total_particles)
            r.fail("particle id " + std::to_string(id) + " out of range");
    return c;
}

Checkpoint read_latest_checkpoint(const fs::path& dir, const std::string& name,
                                  std::vector<std::string>& warnings) {
    const std::vector<fs::path> all = list_checkpoints(dir, name);
    if (all.empty())
        throw no_checkpoint(dir, name);
    std::string last_error;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        try {
            return read_checkpoint(*it);
        } catch (const CheckpointError& e) {
            warnings.push_back(std::string(e.what()) + "; trying an older one");
            last_error = e.what();
        }
    }
    throw CheckpointError("no usable checkpoint in " + quoted(dir) +
                          " (newest error: " + last_error + ")");
}

std::uint32_t newest_checkpoint_processes(const fs::path& dir, const std::string& name) {
    const CheckpointFiles files = checkpoint_files(dir, name);
    const bool single = !files.singles.empty();
    if (!files.pieces.empty() &&
        (!single || files.pieces.rbegin()->first > files.singles.rbegin()->first))
        return static_cast<std::uint32_t>(files.pieces.rbegin()->second.size());
    return single ? 1 : 0;
}

SimulationState merge_pieces(const std::vector<SimulationState>& pieces) {
    if (pieces.empty())
        throw CheckpointError("merge_pieces: no pieces");
    SimulationState whole = pieces.front();
    const bool verlet = !whole.previous_velocity.empty();
    for (std::size_t k = 1; k < pieces.size(); ++k) {
        const SimulationState& p = pieces[k];
        if (p.dimension != whole.dimension || p.time != whole.time || p.steps != whole.steps)
            throw CheckpointError("the pieces of one checkpoint disagree: step " +
                                  std::to_string(whole.steps) + " and " + std::to_string(p.steps));
        auto append = [](auto& to, const auto& from) {
            to.insert(to.end(), from.begin(), from.end());
        };
        append(whole.id, p.id);
        append(whole.type, p.type);
        append(whole.position, p.position);
        append(whole.velocity, p.velocity);
        append(whole.density, p.density);
        if (verlet) {
            append(whole.previous_velocity, p.previous_velocity);
            append(whole.previous_density, p.previous_density);
        }
        append(whole.excluded, p.excluded);
        if (p.body_states != whole.body_states) // every process integrates the same bodies
            throw CheckpointError("the pieces of one checkpoint disagree on the floating "
                                  "bodies' states at step " +
                                  std::to_string(whole.steps));
    }
    std::sort(whole.excluded.begin(), whole.excluded.end());
    whole.excluded.erase(std::unique(whole.excluded.begin(), whole.excluded.end()),
                         whole.excluded.end());
    return in_id_order(std::move(whole));
}

Checkpoint read_latest_whole_checkpoint(const fs::path& dir, const std::string& name,
                                        std::vector<std::string>& warnings) {
    const CheckpointFiles files = checkpoint_files(dir, name);
    std::set<std::uint64_t> steps;
    for (const auto& s : files.singles)
        steps.insert(s.first);
    for (const auto& p : files.pieces)
        steps.insert(p.first);
    if (steps.empty())
        throw no_checkpoint(dir, name);
    std::string last_error;
    for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
        try {
            if (const auto single = files.singles.find(*step); single != files.singles.end())
                return read_checkpoint(single->second);
            const std::vector<std::uint32_t>& found = files.pieces.at(*step);
            std::vector<Checkpoint> read;
            read.push_back(read_checkpoint(checkpoint_path(dir, name, *step, 0)));
            const std::uint32_t processes = read.front().processes;
            for (std::uint32_t p = 1; p < processes; ++p) {
                const fs::path path = checkpoint_path(dir, name, *step, p);
                if (!std::binary_search(found.begin(), found.end(), p))
                    throw CheckpointError("checkpoint " + quoted(path) +
                                          " is missing: its step was written by " +
                                          std::to_string(processes) + " processes");
                read.push_back(read_checkpoint(path));
                if (read.back().processes != processes)
                    throw CheckpointError("checkpoint " + quoted(path) + " is of a run over " +
                                          std::to_string(read.back().processes) +
                                          " processes, not " + std::to_string(processes));
            }
            std::vector<SimulationState> states;
            for (Checkpoint& k : read)
                states.push_back(std::move(k.state));
            Checkpoint whole = std::move(read.front()); // its output bookkeeping
            whole.state = merge_pieces(states);
            if (whole.state.size() != whole.total_particles)
                throw CheckpointError("the pieces of step " + std::to_string(*step) + " in " +
                                      quoted(dir) + " hold " + std::to_string(whole.state.size()) +
                                      " particles, not the " +
                                      std::to_string(whole.total_particles) + " of the run");
            whole.process = 0;
            return whole;
        } catch (const CheckpointError& e) {
            warnings.push_back(std::string(e.what()) + "; trying an older one");
            last_error = e.what();
        }
    }
    throw CheckpointError("no usable checkpoint in " + quoted(dir) +
                          " (newest error: " + last_error + ")");
}

SimulationState in_id_order(SimulationState state) {
    std::vector<std::uint32_t> order(state.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return state.id[a] < state.id[b]; });
    auto permute = [&](auto& values) {
        if (values.empty())
            return;
        auto copy = values;
        for (std::size_t k = 0; k < order.size(); ++k)
            values[k] = copy[order[k]];
    };
    permute(state.id);
    permute(state.type);
    permute(state.position);
    permute(state.velocity);
    permute(state.density);
    permute(state.previous_velocity);
    permute(state.previous_density);
    return state;
}

} // namespace sluice
