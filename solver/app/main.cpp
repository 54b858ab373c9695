/// \file main.cpp
/// `sluice`: dispatches a command (command_line.h) and maps what it throws to an exit code.
/// Started by mpirun, every process runs this; errors in the input, which every process meets
/// alike, are printed once and end each process normally; any other error ends the whole job
/// (MpiSession::abort), so that no process waits for one that has gone.

#include "app/command_line.h"
#include "app/preflight.h"
#include "case/case_reader.h"
#include "io/checkpoint.h"
#include "io/series_reader.h"
#include "parallel/communicator.h"

#include <iostream>
#include <string>

using namespace sluice;

namespace {

int run(int argc, char** argv, const MpiSession& mpi) {
    const bool several = mpi.size() > 1;
    const bool speaks = mpi.rank() == 0;
    const std::string prefix =
        several ? "sluice[process " + std::to_string(mpi.rank()) + "]: " : "sluice: ";
    try {
        const Options o = parse_options(argc, argv);
        if (o.processes && (*o.processes > 1 || mpi.active()))
            spawn_processes(o, argc, argv, mpi.active());
        if (several && o.command != "run" && o.command != "bench")
            throw UsageError("'sluice " + o.command +
                                 "' runs in one process; start it without mpirun (only 'sluice "
                                 "run' and 'sluice bench' are spread over several)",
                             o.command);
        if (o.command == "bench")
            return bench_command(o);
        if (o.command == "tune")
            return tune_command(o);
        if (o.command == "surface")
            return surface_command(o);
        if (o.command == "measure")
            return measure_command(o);
        return o.command == "run" ? run_command(o) : check_command(o);
    } catch (const HelpShown& help) {
        if (speaks)
            std::cout << help.text;
        return exit_ok;
    } catch (const UsageError& e) {
        if (speaks)
            std::cerr << "sluice: " << e.what() << "\n(run 'sluice " << e.command
                      << (e.command.empty() ? "" : " ") << "--help' for usage)\n";
        return exit_bad_input;
    } catch (const CaseError& e) {
        if (speaks)
            std::cerr << e.what() << "\n";
        return exit_bad_input;
    } catch (const SeriesError& e) {
        if (speaks)
            std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const CheckpointError& e) {
        if (speaks)
            std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const ResourceError& e) {
        if (speaks)
            std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const BackendUnavailable& e) {
        if (speaks)
            std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const std::invalid_argument& e) {
        // Set-up errors of a run over several processes (too many slabs for the domain, a
        // particle outside it) are found by every process together.
        if (several) {
            if (speaks)
                std::cerr << "sluice: error: " << e.what() << "\n";
            return exit_bad_input;
        }
        std::cerr << "sluice: error: " << e.what() << "\n";
        return exit_internal;
    } catch (const std::exception& e) {
        std::cerr << prefix << "error: " << e.what() << "\n";
        if (several)
            mpi.abort(exit_internal);
        return exit_internal;
    }
}

} // namespace

int main(int argc, char** argv) {
    MpiSession mpi(argc, argv);
    return run(argc, argv, mpi);
}
