#include <catch2/catch.hpp>

#include "../plan/comm_fixture.hpp"
#include "core/calib/text_support.hpp"
#include "core/calib/tuner_config.hpp"

using namespace tt;

TEST_CASE("Tuner configuration: ranges cover every size once and pin the planner's choice [unit]") {
  for (int nodes : {1, 2}) {
    INFO(nodes << " node(s)");
    const Topology topo = testing::h100_nodes(nodes == 1 ? 1 : 2);
    const CommPlanner planner(topo, comm_constants(topo.gpu()));
    const auto gpus = testing::first_gpus(8 * nodes);
    const std::string csv = tuner_config_csv(
        planner, {{Collective::AllReduce, gpus}, {Collective::AllReduce, gpus}, {Collective::AllToAll, gpus}});
    CHECK(csv.find("options as NCCL's figures pick them") != std::string::npos);  // how the plan picked
    double next = 0;
    int rows = 0;
    bool p2p_comment = false;
    for (const std::string& line : calib::split_lines(csv)) {
      if (line.find("alltoall") != std::string::npos) p2p_comment = true;
      if (line.rfind("# allreduce,", 0) == 0) {  // a range the plan runs with an algorithm NCCL cannot be told
        const auto f = calib::split_csv(line.substr(2, line.find(':') - 2));
        CHECK(std::stod(f[1]) == next);
        next = std::stod(f[2]) + 1;
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      const auto f = calib::split_csv(line);
      REQUIRE(f.size() == 10);
      CHECK(f[0] == "allreduce");
      const double lo = std::stod(f[1]), hi = std::stod(f[2]);
      CHECK(lo == next);  // contiguous, from 0, each size once (the repeated communicator adds no rows)
      CHECK(hi >= lo);
      next = hi + 1;
      CHECK(f[6] == std::to_string(nodes));
      CHECK(f[7] == std::to_string(8 * nodes));
      // The range's choice is the planner's at the powers of two inside it.
      for (double size = 1; size <= hi; size *= 2)
        if (size >= lo) {
          const CommGroup g = planner.plan(Collective::AllReduce, gpus, Bytes(size));
          CHECK(f[3] == to_string(g.algorithm));
          CHECK(f[4] == (g.protocol == Protocol::Simple ? "simple" : g.protocol == Protocol::LL ? "ll" : "ll128"));
        }
      ++rows;
    }
    CHECK(rows >= 1);
    CHECK(next == 4294967296.0);
    CHECK(p2p_comment);
  }
}
