// The closed form and the uncontended SimGrid execution of the same planned all-reduce agree on every bundled
// topology (ISSUE 25, "the planner and the simulator must agree, on every fabric").
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/io/scenario_reader.hpp"
#include "core/plan/comm_sweep.hpp"
#include "sim/comm_sweep.hpp"

using namespace tt;

TEST_CASE("sim: closed form and uncontended simulation within 2% on every bundled topology", "[sim]") {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TT_SOURCE_DIR) + "/topologies")) {
    const Topology topo = read_topology_file(entry.path().string());
    if (topo.total_gpus() > 1024) continue;  // rail-512x8: the same generator as rail-16x8, at a scale too slow here
    const int k = topo.gpus_per_node();
    for (int gpus : {2, k, 2 * k, 4 * k}) {
      if (gpus > topo.total_gpus() || gpus < 2) continue;
      INFO(topo.name() << ", " << gpus << " GPUs");
      const CommPlanner planner(topo, comm_constants(topo.gpu()));
      Sweep s = plan_sweep(planner, Collective::AllReduce, pick_gpus(topo, gpus, 0),
                           {Bytes(1 << 20), Bytes(1 << 30)});
      std::string error;
      REQUIRE(sim::measure_sweep(topo, s, &error) == 0);
      for (const SweepRow& r : s.rows) {
        REQUIRE(r.measured);
        CHECK(r.measured->value == Approx(r.group.predicted.value).epsilon(0.02));
      }
      ++cases;
    }
  }
  CHECK(cases >= 12);
}
