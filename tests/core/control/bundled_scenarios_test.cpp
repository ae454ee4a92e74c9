// The bundled scheduling scenarios, run with the SyntheticDriver (jobs take their planned time): their checks pass.
// They also run under the simulator in the e2e suite.
#include <catch2/catch.hpp>

#include "core/control/controller.hpp"
#include "core/control/synthetic_driver.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;

TEST_CASE("bundled scheduling scenarios pass their checks with the synthetic driver", "[unit][sched][control]") {
  for (const char* name : {"quota-contention", "fragmentation"}) {
    DYNAMIC_SECTION(name) {
      Scenario s = read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/" + name + ".json");
      Controller c(s);
      SyntheticDriver d(s, c);
      d.run(s.sim.horizon);
      for (const auto& check : c.record().checks) {
        INFO(check.name << ": " << check.message);
        CHECK(check.passed);
      }
      for (const auto& dec : c.record().decisions)
        if (dec.kind == "pending" || dec.kind == "preempt")
          UNSCOPED_INFO(dec.t.value << " " << dec.kind << " " << dec.job << ": " << dec.reason);
      CHECK(!c.record().checks.empty());
    }
  }
}
