// traintwin diff BASE.json NEW.json: compare two reports; exit 1 when a figure regresses beyond the tolerance or a
// check goes from pass to fail, 2 when a report cannot be read.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "reports/diff.hpp"

namespace tt::cli {
namespace {

struct DiffArgs {
  std::string base;
  std::string now;
  std::string tolerance = "5%";
  std::vector<std::string> metrics;
};

int diff(const DiffArgs& a) {
  std::optional<double> tolerance = parse_tolerance(a.tolerance);
  if (!tolerance) {
    std::fprintf(stderr, "error: --tolerance %s: expected a percentage (5%%) or a fraction (0.05)\n",
                 a.tolerance.c_str());
    return kExitBadInput;
  }
  return diff_report_files(a.base, a.now, DiffOptions{*tolerance, a.metrics}, std::cout, std::cerr);
}

}  // namespace

Registered add_diff(CLI::App& app) {
  auto a = std::make_shared<DiffArgs>();
  auto* sub = app.add_subcommand(
      "diff", "Compare two report.json files; exit 1 on a regression beyond the tolerance, 2 on an unreadable report");
  sub->add_option("base", a->base, "the reference report.json")->required();
  sub->add_option("new", a->now, "the report.json to judge")->required();
  sub->add_option("--tolerance", a->tolerance, "allowed change in the bad direction: 5% or 0.05")
      ->capture_default_str();
  std::string names;
  for (const auto& m : diff_metric_names()) names += (names.empty() ? "" : ", ") + m;
  sub->add_option("--metric", a->metrics, "compare only these metrics (repeatable): " + names);
  return {sub, [a] { return diff(*a); }};
}

}  // namespace tt::cli
