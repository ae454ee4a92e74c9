#include "reports/trace.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "reports/timeline.hpp"
#include "tests/reports/record_fixture.hpp"

using nlohmann::json;

namespace {

std::map<int, std::string> tracks(const json& trace, int pid) {
  std::map<int, std::string> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == pid) out[e["tid"]] = e["args"]["name"];
  return out;
}

std::vector<json> events(const json& trace, const std::string& ph, int pid) {
  std::vector<json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == ph && e["pid"] == pid) out.push_back(e);
  return out;
}

// Slices on one track must not overlap (Perfetto drops overlapping, non-nested slices).
bool no_overlap(const json& trace) {
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> by_track;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X")
      by_track[{e["pid"], e["tid"]}].push_back({e["ts"], e["ts"].get<std::int64_t>() + e["dur"].get<std::int64_t>()});
  for (auto& [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      if (spans[i].first < spans[i - 1].second) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("trace: parses, names processes and has a track per node and per job", "[reports]") {
  json trace = json::parse(tt::trace_json(tt::testing::sample_record()).dump());
  REQUIRE(trace["traceEvents"].is_array());
  std::map<int, std::string> processes;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  CHECK(processes == std::map<int, std::string>{{tt::kTraceNodesPid, "nodes"}, {tt::kTraceJobsPid, "jobs"}});

  auto nodes = tracks(trace, tt::kTraceNodesPid);
  auto jobs = tracks(trace, tt::kTraceJobsPid);
  CHECK(nodes == std::map<int, std::string>{{1, "n1"}, {2, "n2"}});
  CHECK(jobs == std::map<int, std::string>{{3, "train-a"}, {4, "eval-b"}});

  auto node_slices = events(trace, "X", tt::kTraceNodesPid);
  REQUIRE(node_slices.size() == 3);  // train-a on n1, eval-b on n2, train-a again on n2
  CHECK(node_slices[0]["name"] == "train-a");
  CHECK(node_slices[0]["tid"] == 1);
  CHECK(node_slices[0]["ts"] == 0);
  CHECK(node_slices[0]["dur"] == 2460000000LL);  // microseconds of simulated time
  CHECK(node_slices[0]["args"]["outcome"] == "failed");
  CHECK(node_slices[2]["args"]["attempt"] == 1);
  CHECK(no_overlap(trace));
}

TEST_CASE("trace: job tracks hold queued, running and failed intervals and instants", "[reports]") {
  json trace = tt::trace_json(tt::testing::sample_record());
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> train;
  for (const auto& e : events(trace, "X", tt::kTraceJobsPid))
    if (e["tid"] == 3) train.emplace_back(e["name"], e["ts"], e["dur"]);
  using S = std::tuple<std::string, std::int64_t, std::int64_t>;
  CHECK(train == std::vector<S>{S{"running", 0, 2400000000LL}, S{"failed", 2400000000LL, 60000000LL},
                                S{"queued", 2460000000LL, 180000000LL}, S{"running", 2640000000LL, 3360000000LL}});
  std::multiset<std::string> instants;
  for (const auto& e : events(trace, "i", tt::kTraceJobsPid)) {
    instants.insert(e["name"].get<std::string>());
    CHECK(e["s"] == "t");
  }
  CHECK(instants.count("checkpoint") == 3);
  CHECK(instants.count("fault") == 1);
  CHECK(instants.count("detected") == 1);
  CHECK(trace.dump() == tt::trace_json(tt::testing::sample_record()).dump());
}

TEST_CASE("trace: jobs sharing a node at once get a second track for that node", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  r.jobs[1].segments[0].nodes = {"n1"};  // eval-b now shares n1 with train-a from 600 s
  json trace = tt::trace_json(r);
  auto nodes = tracks(trace, tt::kTraceNodesPid);
  CHECK(nodes == std::map<int, std::string>{{1, "n1"}, {2, "n1 #2"}, {3, "n2"}});
  CHECK(no_overlap(trace));
}

TEST_CASE("timeline: natural node order", "[reports]") {
  CHECK(tt::natural_less("n2", "n10"));
  CHECK_FALSE(tt::natural_less("n10", "n2"));
  CHECK(tt::natural_less("gpu-node-9", "gpu-node-10"));
  CHECK(tt::natural_less("a", "b"));
  CHECK_FALSE(tt::natural_less("n2", "n2"));
  CHECK(tt::natural_less("n02", "n2") != tt::natural_less("n2", "n02"));  // a strict order, even with zeros
}
