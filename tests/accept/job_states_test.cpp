// The allowed job state graph: the decisions of every bundled scenario walk it; a skipped transition is named. Each
// simulation runs in a forked child (SimGrid allows one engine per process); the child answers with what it found.
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/accept/job_states.hpp"
#include "core/accept/record_items.hpp"
#include "core/control/controller.hpp"
#include "core/io/scenario_reader.hpp"
#include "sim/driver.hpp"
#include "sim/isolated.hpp"

using namespace tt;

namespace {

// "" when every job walks the graph (and ends, when `must_finish`), else "job: detail" of the first violation;
// `edit` may change the record first.
template <class Edit>
std::string violations(const std::string& name, bool must_finish, Edit edit) {
  return sim::run_isolated([&] {
    const Scenario sc = read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/" + name + ".json");
    Controller ctl(sc);
    sim::run(sc, ctl);
    RunRecord rec = ctl.record();
    edit(rec);
    const auto check = accept::check_job_states(rec, must_finish);
    const auto item = accept::judge_scheduler(rec);
    if (check.passed() != (item.verdict == accept::Verdict::Passed)) return std::string("judge_scheduler disagrees");
    if (check.passed()) return std::string(check.transitions >= 12 || !must_finish ? "" : "too few transitions");
    return check.violations[0].job + ": " + check.violations[0].detail + " | " + item.failure;
  });
}

}  // namespace

TEST_CASE("accept job states: accept-local walks the graph and every job ends", "[sim]") {
  CHECK(violations("accept-local", true, [](RunRecord&) {}) == "");
}

TEST_CASE("accept job states: a skipped launch is a transition outside the graph, named", "[sim]") {
  const std::string found = violations("accept-local", true, [](RunRecord& rec) {
    auto it = std::find_if(rec.decisions.begin(), rec.decisions.end(),
                           [](const Decision& d) { return d.kind == "launch" && d.job == "eval-tp"; });
    if (it != rec.decisions.end()) rec.decisions.erase(it);
  });
  CHECK_THAT(found, Catch::StartsWith("eval-tp: ") && Catch::Contains("complete while queued") &&
                        Catch::Contains("(allowed from queued: ") && Catch::Contains("| eval-tp: "));
}

TEST_CASE("accept job states: the decisions of the failure, quota and preemption drills all walk the graph", "[sim]") {
  for (const char* name : {"quickstart", "drill-node-failure", "kueue-reclaim", "quota-contention",
                           "drill-partial-upgrade-ungated", "drill-link-flap-timeout", "accept-2x8-h100"}) {
    INFO(name);
    CHECK(violations(name, false, [](RunRecord&) {}) == "");
  }
}
