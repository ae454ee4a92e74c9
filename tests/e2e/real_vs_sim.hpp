// A bundled scenario run under the simulator and under `traintwin real`, and the test of "identical policies" between
// them: both logs take the same decisions (kind, job, nodes), and those of the scenario's golden log.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/e2e/cli_support.hpp"

namespace tt::testing {

struct SimAndReal {
  std::filesystem::path sim_dir, real_dir;  // their --out directories
  CliResult sim, real;
};

// Runs scenarios/<scenario>.json under both drivers (`real_options`: --devices, --time-scale, ...) into scratch
// directories <name>-sim and <name>-real; each must exit 0.
inline SimAndReal run_sim_and_real(const std::string& scenario, const std::string& name,
                                   const std::string& real_options) {
  const std::string file = std::string(TT_SOURCE_DIR) + "/scenarios/" + scenario + ".json";
  SimAndReal r{scratch_dir(name + "-sim"), scratch_dir(name + "-real"), {}, {}};
  r.sim = run_cli("run " + file + " --out " + r.sim_dir.string());
  INFO("traintwin run:\n" << r.sim.output);
  REQUIRE(r.sim.exit_code == 0);
  r.real = run_cli("real " + file + " " + real_options + " --out " + r.real_dir.string());
  INFO("traintwin real:\n" << r.real.output);
  REQUIRE(r.real.exit_code == 0);
  return r;
}

// The real run took the simulator's decisions, and both those of tests/golden/<scenario>.decisions.txt.
inline void check_same_decisions(const SimAndReal& r, const std::string& scenario) {
  const auto sim = decision_columns(read_file(r.sim_dir / "decisions.txt"));
  CHECK(decision_columns(read_file(r.real_dir / "decisions.txt")) == sim);
  const auto golden = std::filesystem::path(TT_SOURCE_DIR) / "tests/golden" / (scenario + ".decisions.txt");
  CHECK(sim == decision_columns(read_file(golden)));
}

}  // namespace tt::testing
