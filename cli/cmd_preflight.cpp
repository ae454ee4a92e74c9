// traintwin preflight FLEET... [--matrix M] [--junit F] [--json]: one verdict for a fleet of node inventories
// (core/preflight/verdict.hpp). Exit 0 no blocking difference, 1 a blocking one, 2 an unreadable inventory or matrix.
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "core/io/inventory_reader.hpp"
#include "reports/preflight.hpp"

namespace tt::cli {
namespace {

struct PreflightArgs {
  std::vector<std::string> fleet;
  std::string matrix;
  std::string junit;
  bool json = false;
};

int preflight_fleet(const PreflightArgs& a) {
  const auto fleet = read_fleet(a.fleet);
  std::optional<preflight::Matrix> matrix;
  if (!a.matrix.empty()) matrix = read_matrix_file(a.matrix);
  const auto verdict = preflight::judge_fleet(fleet, matrix ? &*matrix : nullptr);
  if (!a.junit.empty()) {
    std::ofstream f(a.junit);
    f << junit_suite_xml(preflight_junit(verdict));
    if (!f.flush()) throw InputError(a.junit, "", "a writable file for the JUnit report");
  }
  if (a.json) std::cout << preflight_json(verdict).dump(2) << "\n";
  else std::cout << preflight_text(verdict);
  return verdict.blocking() ? kExitChecksFailed : 0;
}

}  // namespace

Registered add_preflight(CLI::App& app) {
  auto a = std::make_shared<PreflightArgs>();
  auto* sub = app.add_subcommand("preflight",
                                 "Judge a fleet's node inventories against each other or a version matrix; exit 1 on a "
                                 "blocking difference, 2 on unreadable input");
  sub->add_option("fleet", a->fleet, "inventory files, or directories of them (one file per host)")->required();
  sub->add_option("--matrix", a->matrix, "the pinned version matrix (docs/preflight.md); default: the majority");
  sub->add_option("--junit", a->junit, "also write the verdict as JUnit XML here");
  sub->add_flag("--json", a->json, "print the verdict as JSON instead of text");
  return {sub, [a] { return preflight_fleet(*a); }};
}

}  // namespace tt::cli
