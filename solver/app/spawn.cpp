// `sluice run|bench CASE.xml --processes N` / `--gpus N`: the same program started N times by
// Open MPI's mpirun on this host (command_line.h, spawn_processes).

#include "app/command_line.h"

#include "backends/backend_options.h"
#include "backends/simulation.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace sluice {

namespace {

/// This program's own path (what mpirun starts N times): /proc/self/exe on Linux, else argv[0].
std::string own_path(const char* argv0) {
    std::vector<char> buffer(4096);
    const ssize_t length = readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    if (length > 0)
        return std::string(buffer.data(), static_cast<std::size_t>(length));
    return argv0;
}

/// Whether `arg` is the option `name` with its value attached ("--gpus=2").
bool is_attached(const std::string& arg, const char* name) {
    return arg.rfind(std::string(name) + "=", 0) == 0;
}

} // namespace

void spawn_processes(const Options& o, int argc, char** argv, bool under_mpirun) {
    const int processes = *o.processes;
    const char* option = o.gpus ? "--gpus" : "--processes";
    if (under_mpirun)
        throw UsageError(std::string(option) +
                             " starts the processes itself: give it without mpirun (or use "
                             "mpirun -np N without it)",
                         o.command);
    if (o.gpus) {
        if (o.backend != Backend::cuda)
            throw UsageError("--gpus runs on the GPUs: leave out --backend cpu (or use "
                             "--processes N --backend cpu)",
                             o.command);
        const int devices = cuda_device_count();
        if (devices < processes)
            throw BackendUnavailable("--gpus " + std::to_string(processes) + ": this host has " +
                                     std::to_string(devices) +
                                     " GPU(s); one process runs on each, so ask for at most that "
                                     "many (or use --processes N --backend cpu)");
    }
    // mpirun -np N --bind-to none <this program> <the same arguments without --gpus/--processes>
    // (no binding: each process's OpenMP threads and writer pool use the host's cores freely).
    std::vector<std::string> args = {"mpirun",    "-np",  std::to_string(processes),
                                     "--bind-to", "none", own_path(argv[0])};
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--gpus" || arg == "--processes") {
            ++k; // its value
            continue;
        }
        if (is_attached(arg, "--gpus") || is_attached(arg, "--processes"))
            continue;
        args.push_back(arg);
    }
    if (o.gpus)
        args.insert(args.end(), {"--backend", "cuda"});
    // Each process's OpenMP threads: its share of the host's cores, unless the user chose.
    if (std::getenv("OMP_NUM_THREADS") == nullptr) {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const unsigned share = std::max(1u, cores / static_cast<unsigned>(processes));
        setenv("OMP_NUM_THREADS", std::to_string(share).c_str(), 0);
    }
    std::vector<char*> pointers;
    for (std::string& a : args)
        pointers.push_back(a.data());
    pointers.push_back(nullptr);
    execvp("mpirun", pointers.data());
    // Only reached when mpirun could not be started.
    throw BackendUnavailable(std::string(option) + " starts " + std::to_string(processes) +
                             " processes with Open MPI's mpirun, which could not be run (" +
                             std::strerror(errno) +
                             "); install it (Debian: openmpi-bin) or "
                             "start them yourself with mpirun -np " +
                             std::to_string(processes));
}

} // namespace sluice
