#include "reports/decision_log.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/reports/record_fixture.hpp"

using tt::testing::decision;

TEST_CASE("decision log: a header, then one line per decision in record order", "[reports]") {
  const std::string text = tt::decision_log_text(tt::testing::sample_record());
  CHECK_THAT(text, Catch::StartsWith("# traintwin decision log: scenario mini, seed 7, 11 decisions\n"
                                     "# time (h:mm:ss.mmm)  kind  job  nodes  reason\n"
                                     " 0:00:00.000  submit  train-a  -  queue pretrain, priority 10, 8 GPUs\n"
                                     " 0:00:00.000  launch  train-a  n1  8 GPUs on 1 node\n"));
  CHECK_THAT(text, Catch::EndsWith(" 1:40:00.000  complete  train-a  n2  500 iterations\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 2 + 11);
}

TEST_CASE("decision log: cluster decisions, empty nodes and several nodes", "[reports]") {
  CHECK(tt::decision_line(decision(5400, "node_down", "", {"n3"}, "node n3 crash")) ==
        " 1:30:00.000  node_down  -  n3  node n3 crash\n");
  CHECK(tt::decision_line(decision(2460, "requeue", "train-a", {}, "at the head")) ==
        " 0:41:00.000  requeue  train-a  -  at the head\n");
  CHECK(tt::decision_line(decision(0, "launch", "j", {"a0", "a1", "b7"}, "3 nodes")) ==
        " 0:00:00.000  launch  j  a0,a1,b7  3 nodes\n");
  CHECK(tt::decision_line(decision(1, "tick", "", {}, "")) == " 0:00:01.000  tick  -  -\n");  // no trailing spaces
}

TEST_CASE("decision log: times round to the millisecond and keep a fixed width", "[reports]") {
  CHECK(tt::decision_line(decision(12.3456, "k", "j", {}, "r")) == " 0:00:12.346  k  j  -  r\n");
  // Noise far below a millisecond does not move a byte.
  CHECK(tt::decision_line(decision(7200.0000000004, "k", "j", {}, "r")) ==
        tt::decision_line(decision(7199.9999999996, "k", "j", {}, "r")));
  CHECK(tt::decision_line(decision(30 * 86400 + 0.5, "k", "j", {}, "r")) == "720:00:00.500  k  j  -  r\n");
}

TEST_CASE("decision log: a line break in a reason stays on its decision's line", "[reports]") {
  CHECK(tt::decision_line(decision(0, "log", "j", {"n0"}, "first\nsecond\r")) ==
        " 0:00:00.000  log  j  n0  first second \n");
}

TEST_CASE("decision log: the same record gives the same bytes", "[reports]") {
  CHECK(tt::decision_log_text(tt::testing::sample_record()) == tt::decision_log_text(tt::testing::sample_record()));
  tt::RunRecord empty;
  empty.scenario = "none";
  CHECK(
      tt::decision_log_text(empty) ==
      "# traintwin decision log: scenario none, seed 0, 0 decisions\n# time (h:mm:ss.mmm)  kind  job  nodes  reason\n");
}
