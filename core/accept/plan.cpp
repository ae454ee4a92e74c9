#include "core/accept/plan.hpp"

#include <algorithm>

#include "core/io/json_reader.hpp"

namespace tt::accept {

double AcceptPlan::false_failure_any() const {
  std::vector<double> rates;
  for (const auto& c : comm) rates.push_back(c.false_failure);
  for (const auto& t : times) rates.push_back(t.false_failure);
  return any_fails(rates.data(), static_cast<int>(rates.size()));
}

namespace {

nlohmann::json noise_json(const Noise& n) { return {{"sigma", n.sigma}, {"source", n.source}}; }

Noise read_noise(JsonObject o) {
  Noise n;
  n.sigma = o.number("sigma", 1e-6, 5);
  n.source = o.str("source");
  o.finish();
  return n;
}

}  // namespace

nlohmann::json plan_json(const AcceptPlan& p) {
  nlohmann::json j = {{"kind", "traintwin acceptance plan"},
                      {"version", 1},
                      {"topology", p.topology},
                      {"ranks", p.ranks},
                      {"nodes", p.nodes},
                      {"collective", p.collective},
                      {"model", p.model},
                      {"target_false_failure", p.target_false_failure},
                      {"comm_noise", noise_json(p.comm_noise)},
                      {"time_noise", noise_json(p.time_noise)},
                      {"false_failure_any", p.false_failure_any()},
                      {"comm", nlohmann::json::array()},
                      {"times", nlohmann::json::array()}};
  for (const auto& c : p.comm)
    j["comm"].push_back({{"size_bytes", static_cast<long long>(c.size.value)},
                         {"busbw_gbps", c.busbw.value / 1e9},
                         {"threshold_gbps", c.threshold.value / 1e9},
                         {"false_failure", c.false_failure}});
  for (const auto& t : p.times)
    j["times"].push_back({{"item", t.item},
                          {"metric", t.metric},
                          {"expected_s", t.expected.value},
                          {"threshold_s", t.threshold.value},
                          {"false_failure", t.false_failure},
                          {"source", t.source}});
  return j;
}

AcceptPlan read_plan(const nlohmann::json& doc, const std::string& file) {
  JsonObject o(doc, file, "");
  if (o.str("kind") != "traintwin acceptance plan")
    o.fail("kind", "\"traintwin acceptance plan\" (written by traintwin accept --write-plan)");
  if (o.integer("version", 1) != 1) o.fail("version", "1");
  AcceptPlan p;
  p.topology = o.str("topology");
  p.ranks = static_cast<int>(o.integer("ranks", 1));
  p.nodes = static_cast<int>(o.integer("nodes", 1));
  p.collective = o.str("collective");
  if (p.collective != "all_reduce") o.fail("collective", "all_reduce (the only collective plans cover so far)");
  p.model = o.str("model");
  p.target_false_failure = o.number("target_false_failure", 1e-12, 0.5);
  p.comm_noise = read_noise(o.object("comm_noise"));
  p.time_noise = read_noise(o.object("time_noise"));
  o.opt_number("false_failure_any", 0, 1);  // derived; recomputed
  for (const auto& [v, ptr] : o.array("comm", true)) {
    JsonObject c(*v, file, ptr);
    CommExpectation e;
    e.size = Bytes(static_cast<double>(c.integer("size_bytes", 1)));
    e.busbw = BytesPerSecond(c.number("busbw_gbps", 1e-9, 1e7) * 1e9);
    e.threshold = BytesPerSecond(c.number("threshold_gbps", 0, 1e7) * 1e9);
    e.false_failure = c.number("false_failure", 0, 1);
    c.finish();
    if (!p.comm.empty() && e.size <= p.comm.back().size)
      JsonObject(*v, file, ptr).fail("size_bytes", "sizes in ascending order, each once");
    if (e.threshold > e.busbw) JsonObject(*v, file, ptr).fail("threshold_gbps", "a threshold at most busbw_gbps");
    p.comm.push_back(e);
  }
  for (const auto& [v, ptr] : o.array("times", true)) {
    JsonObject t(*v, file, ptr);
    TimeExpectation e;
    e.item = t.str("item");
    e.metric = t.str("metric");
    e.expected = Seconds(t.number("expected_s", 0, 1e9));
    e.threshold = Seconds(t.number("threshold_s", 0, 1e9));
    e.false_failure = t.number("false_failure", 0, 1);
    e.source = t.str("source");
    t.finish();
    p.times.push_back(e);
  }
  o.finish();
  return p;
}

AcceptPlan read_plan_file(const std::string& path) { return read_plan(load_json_file(path), path); }

void set_comm_thresholds(AcceptPlan& p) {
  for (auto& c : p.comm) {
    c.threshold = BytesPerSecond(lower_threshold(c.busbw.value, p.comm_noise.sigma, p.target_false_failure));
    c.false_failure = false_failure_below(c.busbw.value, c.threshold.value, p.comm_noise.sigma);
  }
}

TimeExpectation time_expectation(std::string item, std::string metric, Seconds expected, const Noise& noise,
                                 double false_failure, std::string source) {
  TimeExpectation t;
  t.item = std::move(item);
  t.metric = std::move(metric);
  t.expected = expected;
  t.threshold = Seconds(upper_threshold(expected.value, noise.sigma, false_failure));
  t.false_failure = expected.value > 0 ? false_failure_above(expected.value, t.threshold.value, noise.sigma) : 0;
  t.source = std::move(source);
  return t;
}

}  // namespace tt::accept
