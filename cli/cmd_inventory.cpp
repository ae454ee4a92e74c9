// traintwin inventory [-o FILE] [--host NAME] [--quiet]: collects this machine's inventory (real/inventory_probe.hpp)
// and writes it as JSON (docs/preflight.md), to FILE or stdout; where each value came from goes to stderr.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "real/inventory_probe.hpp"

namespace tt::cli {
namespace {

struct InventoryArgs {
  std::string out;
  std::string host;
  bool quiet = false;
};

int inventory(const InventoryArgs& a) {
  auto probe = real::probe_inventory();
  if (!a.host.empty()) probe.inventory.host = a.host;
  const std::string text = preflight::to_json(probe.inventory).dump(2) + "\n";
  if (!a.quiet)
    for (const auto& n : probe.notes) std::fprintf(stderr, "inventory: %s\n", n.c_str());
  if (a.out.empty()) {
    std::cout << text;
    return 0;
  }
  std::ofstream f(a.out);
  f << text;
  if (!f.flush()) throw InputError(a.out, "", "a writable file for the inventory");
  return 0;
}

}  // namespace

Registered add_inventory(CLI::App& app) {
  auto a = std::make_shared<InventoryArgs>();
  auto* sub = app.add_subcommand("inventory",
                                 "Collect this machine's inventory (GPU, driver, CUDA, NCCL, kernel parameters, limits, "
                                 "/dev/shm, clock, network) as JSON for preflight");
  sub->add_option("-o,--output", a->out, "write the inventory here (default: stdout)");
  sub->add_option("--host", a->host, "the host name to record (default: this machine's)");
  sub->add_flag("--quiet", a->quiet, "do not print where each value came from");
  return {sub, [a] { return inventory(*a); }};
}

}  // namespace tt::cli
