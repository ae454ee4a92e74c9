// `traintwin run` on a variant of a rollout fixture in tests/data: its text with one string replaced, its matrix path
// made absolute, in a scratch directory of its own.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e/cli_support.hpp"

namespace tt::testing {

struct VariantRun {
  int exit_code = 0;
  std::string output, decisions;
  nlohmann::json report;  // and decisions: only when the run exited 0
};

// `fixture` under tests/data; `from` (when not empty) replaced by `to`; `name` tells the scratch directory apart.
inline VariantRun run_fixture_variant(const std::string& fixture, const std::string& name, const std::string& from,
                                      const std::string& to) {
  const auto dir = scratch_dir(fixture + "-" + name);
  std::string text = read_file(std::string(TT_SOURCE_DIR) + "/tests/data/" + fixture + ".json");
  if (!from.empty()) text.replace(text.find(from), from.size(), to);
  const std::string matrix = "../../matrices/";
  text.replace(text.find(matrix), matrix.size(), std::string(TT_SOURCE_DIR) + "/matrices/");
  std::ofstream(dir / "s.json") << text;
  const auto r = run_cli("run " + (dir / "s.json").string() + " --quiet --out " + dir.string());
  VariantRun o;
  o.exit_code = r.exit_code;
  o.output = r.output;
  if (r.exit_code == 0) {
    o.decisions = read_file(dir / "decisions.txt");
    o.report = nlohmann::json::parse(read_file(dir / "report.json"));
  }
  return o;
}

}  // namespace tt::testing
