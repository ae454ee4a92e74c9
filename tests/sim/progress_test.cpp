// sim::run's progress reports: at most one per interval of wall time, in order, and without changing the run.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;
using tt::testing::llama8b;
using tt::testing::sim_scenario;

namespace {

// Runs `s` in a child process with `interval` between reports; returns the reports and the run's figures.
nlohmann::json simulate_with_progress(const Scenario& s, double interval) {
  return nlohmann::json::parse(sim::run_isolated([&] {
    Controller controller(s);
    nlohmann::json reports = nlohmann::json::array();
    sim::RunOptions options;
    options.progress_interval_s = interval;
    options.on_progress = [&](const sim::Progress& p) {
      reports.push_back({p.now.value, p.horizon.value, p.controller_events, p.wall_seconds});
    };
    sim::RunStats stats = sim::run(s, controller, options);
    nlohmann::json decisions = nlohmann::json::array();
    for (const Decision& d : controller.record().decisions) decisions.push_back(d.kind + " " + d.job + " " + d.reason);
    return nlohmann::json{{"reports", reports},
                          {"events", stats.controller_events},
                          {"end", controller.record().end_time.value},
                          {"decisions", decisions}}
        .dump();
  }));
}

}  // namespace

TEST_CASE("sim: progress reports come in order, at most once per interval, and leave the run unchanged", "[sim]") {
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("a", Parallelism{8, 1, 1}, 200, 50),
                                                                   llama8b("b", Parallelism{8, 1, 1}, 100, 0, 600)});
  s.sim.horizon = Seconds(86400);
  auto every = simulate_with_progress(s, 0);  // no wait: a report with every controller event
  const auto& reports = every["reports"];
  REQUIRE(reports.size() == every["events"].get<std::size_t>());
  REQUIRE(reports.size() > 10);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    INFO("report " << i << ": " << reports[i].dump());
    CHECK(reports[i][1].get<double>() == 86400);
    CHECK(reports[i][2].get<long long>() == static_cast<long long>(i) + 1);
    CHECK(reports[i][0].get<double>() <= every["end"].get<double>());
    if (i > 0) {
      CHECK(reports[i][0].get<double>() >= reports[i - 1][0].get<double>());
      CHECK(reports[i][3].get<double>() >= reports[i - 1][3].get<double>());
    }
  }

  auto none = simulate_with_progress(s, 1e6);  // ctest stops a test after 600 s: the first report is never due
  CHECK(none["reports"].empty());
  CHECK(none["decisions"] == every["decisions"]);
  CHECK(none["end"] == every["end"]);
}
