/// \file main.cpp
/// `sluice`: dispatches a command (command_line.h) and maps what it throws to an exit code.

#include "app/command_line.h"
#include "app/preflight.h"
#include "case/case_reader.h"
#include "io/checkpoint.h"

#include <iostream>
#include <string>

using namespace sluice;

int main(int argc, char** argv) {
    try {
        const Options o = parse_options(argc, argv);
        if (o.command == "bench")
            return bench_command(o);
        if (o.command == "tune")
            return tune_command(o);
        return o.command == "run" ? run_command(o) : check_command(o);
    } catch (const HelpShown& help) {
        std::cout << help.text;
        return exit_ok;
    } catch (const UsageError& e) {
        std::cerr << "sluice: " << e.what() << "\n(run 'sluice " << e.command
                  << (e.command.empty() ? "" : " ") << "--help' for usage)\n";
        return exit_bad_input;
    } catch (const CaseError& e) {
        std::cerr << e.what() << "\n";
        return exit_bad_input;
    } catch (const CheckpointError& e) {
        std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const ResourceError& e) {
        std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const BackendUnavailable& e) {
        std::cerr << "sluice: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const std::exception& e) {
        std::cerr << "sluice: error: " << e.what() << "\n";
        return exit_internal;
    }
}
