// Subcommands of the traintwin CLI. Each file cli/cmd_*.cpp adds one subcommand to the app and returns the function
// to run when it is chosen; main() runs it and maps errors to exit codes (input errors: 2).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tt::cli {

inline constexpr int kExitChecksFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitNoDevice = 4;  // a device the command needs is absent (e.g. no CUDA GPU)

using Command = std::function<int()>;
struct Registered {
  CLI::App* sub;
  Command run;
};

Registered add_run(CLI::App& app);
Registered add_validate(CLI::App& app);
Registered add_topo(CLI::App& app);
Registered add_diff(CLI::App& app);
Registered add_logs(CLI::App& app);
Registered add_real(CLI::App& app);
Registered add_worker(CLI::App& app);  // hidden: one rank of a real run
Registered add_comm(CLI::App& app);
Registered add_plan(CLI::App& app);
Registered add_kernelcheck(CLI::App& app);
Registered add_commtest(CLI::App& app);
Registered add_replay(CLI::App& app);
Registered add_calibrate(CLI::App& app);
Registered add_inventory(CLI::App& app);
Registered add_preflight(CLI::App& app);
Registered add_accept(CLI::App& app);
Registered add_doctor(CLI::App& app);
Registered add_sweep(CLI::App& app);
Registered add_sweep_point(CLI::App& app);  // hidden: one run of a sweep
Registered add_size(CLI::App& app);
Registered add_import(CLI::App& app);
Registered add_rehearse(CLI::App& app);

}  // namespace tt::cli
