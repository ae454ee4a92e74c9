// traintwin: the command line. Exit codes: 0 every check passed, 1 a check failed, 2 bad input, 3 internal error,
// 4 a device the command needs is absent.
#include <cstdio>
#include <vector>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"

int main(int argc, char** argv) {
  using namespace tt::cli;
  CLI::App app{"traintwin: a digital twin and test harness for large-model training infrastructure"};
  app.require_subcommand(1);
  std::vector<Registered> commands = {add_run(app),    add_validate(app),    add_topo(app),    add_diff(app),
                                      add_logs(app),   add_comm(app),        add_plan(app),    add_real(app),
                                      add_replay(app), add_calibrate(app),   add_worker(app),  add_kernelcheck(app),
                                      add_commtest(app), add_inventory(app), add_preflight(app),
                                      add_rehearse(app)};
  commands.push_back(add_accept(app));
  commands.push_back(add_doctor(app));
  commands.push_back(add_sweep(app));
  commands.push_back(add_sweep_point(app));
  commands.push_back(add_size(app));
  commands.push_back(add_import(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  try {
    for (const auto& c : commands)
      if (c.sub->parsed()) return c.run();
  } catch (const tt::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitInternal;
}
