// Alerts and telemetry through the Controller with hand-written events: exact firing times, actions, the record,
// the alert checks, network samples and the sampling deadline.
#include <catch2/catch.hpp>

#include "core/control/checks.hpp"
#include "core/control/controller.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::job;
using tt::testing::rail_cluster;
using tt::testing::scenario;

namespace {

AlertSpec alert(const std::string& name, AlertCondition c, double for_s, const std::string& severity = "critical") {
  AlertSpec a;
  a.name = name;
  a.condition = std::move(c);
  a.for_duration = Seconds(for_s);
  a.severity = severity;
  a.labels = {{"team", "infra"}};
  a.summary = name + " summary";
  return a;
}

CheckSpec check(const std::string& metric, const std::string& alert_name, CheckOp op, double value) {
  CheckSpec c;
  c.name = metric + " " + alert_name;
  c.metric = metric;
  c.alert = alert_name;
  c.op = op;
  c.value = value;
  return c;
}

template <class T>
std::vector<T> of(const std::vector<Action>& actions) {
  std::vector<T> out;
  for (const auto& a : actions)
    if (auto* x = std::get_if<T>(&a)) out.push_back(*x);
  return out;
}

struct Run {
  Scenario s;
  std::unique_ptr<Controller> c;
  std::vector<std::pair<Seconds, Action>> log;

  void feed(const Event& e, Seconds t) {
    for (auto& a : c->handle(e, t)) log.emplace_back(t, a);
  }
  // Timers up to and including `until`.
  void until(Seconds until) {
    while (auto d = c->next_deadline()) {
      if (*d > until) break;
      feed(Timer{}, *d);
    }
  }
  template <class T>
  std::vector<std::pair<Seconds, T>> actions() const {
    std::vector<std::pair<Seconds, T>> out;
    for (const auto& [t, a] : log)
      if (auto* x = std::get_if<T>(&a)) out.emplace_back(t, *x);
    return out;
  }
};

Run node_crash_run() {
  Run r;
  r.s = scenario(rail_cluster(2), {{"q", 16}}, {job("train", "q", 8, 0, 0, 1000000)});
  r.s.recovery.detection_timeout = Seconds(60);
  r.s.telemetry.interval = Seconds(45);
  r.s.alerts = {alert("NodeDown", {std::string(metric::kNodesDown), {}, Aggregation::None, CompareOp::Gt, 0}, 30),
                alert("TrainDead",
                      {std::string(metric::kJobAlive), {{"job_name", true, "train"}}, Aggregation::None,
                       CompareOp::Eq, 0},
                      0, "warning"),
                alert("NeverFires", {std::string(metric::kNodesUp), {}, Aggregation::Sum, CompareOp::Lt, 0}, 0)};
  r.s.checks = {check("alert.time_to_fire", "NodeDown", CheckOp::Eq, 30),
                check("alert.max_time_to_fire", "TrainDead", CheckOp::Eq, 0),
                check("alert.firings", "NeverFires", CheckOp::Eq, 0),
                check("alert.firings", "NodeDown", CheckOp::Eq, 1)};
  r.c = std::make_unique<Controller>(r.s);
  return r;
}

}  // namespace

TEST_CASE("alerts: a node crash fires NodeDown exactly at fault + for and resolves at the repair", "[unit][control]") {
  Run r = node_crash_run();
  r.feed(Timer{}, Seconds(0));
  auto launches = r.actions<Launch>();
  REQUIRE(launches.size() == 1);
  const int node = launches[0].second.gpus.front() / 8;

  r.until(Seconds(1000));  // steady running: sampling deadlines every 45 s, no alert
  CHECK(r.actions<FireAlert>().empty());
  r.feed(NodeDown{node, FaultKind::NodeCrash}, Seconds(1000.5));
  r.until(Seconds(1100));
  auto fired = r.actions<FireAlert>();
  REQUIRE(fired.size() == 2);
  CHECK(fired[0].first == Seconds(1000.5));  // for 0: the heartbeat stops with the crash
  CHECK(fired[0].second.name == "TrainDead");
  CHECK(fired[0].second.severity == "warning");
  CHECK(fired[0].second.labels.at("job_name") == "train");
  CHECK(fired[0].second.labels.at("team") == "infra");
  CHECK(fired[0].second.value == 0);
  CHECK(fired[1].first == Seconds(1030.5));  // exactly fault + for, not at the next sample
  CHECK(fired[1].second.name == "NodeDown");
  CHECK(fired[1].second.value == 1);
  CHECK(fired[1].second.summary == "NodeDown summary");
  auto resolved = r.actions<ResolveAlert>();
  REQUIRE(resolved.size() == 1);  // the job is declared failed at 1060.5 and killed: its liveness series goes away
  CHECK(resolved[0].first == Seconds(1060.5));
  CHECK(resolved[0].second.name == "TrainDead");

  r.feed(NodeUp{node}, Seconds(5000));
  resolved = r.actions<ResolveAlert>();
  REQUIRE(resolved.size() == 2);
  CHECK(resolved[1].second.name == "NodeDown");
  CHECK(resolved[1].first == Seconds(5000));

  r.c->finish(Seconds(6000));
  const RunRecord& rec = r.c->record();
  REQUIRE(rec.alerts.size() == 2);
  CHECK(rec.alerts[1].name == "NodeDown");
  CHECK(rec.alerts[1].active_since == Seconds(1000.5));
  CHECK(rec.alerts[1].fired_at == Seconds(1030.5));
  CHECK(rec.alerts[1].resolved_at == Seconds(5000));
  CHECK(rec.alerts[0].resolved_at == Seconds(1060.5));
  CHECK(rec.fault_times == std::vector<Seconds>{Seconds(1000.5)});
  REQUIRE(rec.alert_rules.size() == 3);
  CHECK(rec.alert_rules[1].expr == "traintwin_job_alive{job_name=\"train\"} == 0");
  CHECK(rec.alert_rules[2].expr == "sum(traintwin_nodes_up) < 0");
  for (const auto& c : rec.checks) {
    INFO(c.name << ": " << c.message);
    CHECK(c.passed);
  }
  int firing = 0, resolved_log = 0;
  for (const auto& d : rec.decisions) {
    firing += d.kind == "alert_firing";
    resolved_log += d.kind == "alert_resolved";
  }
  CHECK(firing == 2);
  CHECK(resolved_log == 2);
}

TEST_CASE("alerts: checks on an alert that never fired after the fault are not measured", "[unit][control]") {
  RunRecord rec;
  rec.fault_times = {Seconds(100), Seconds(500)};
  rec.alerts.push_back({"A", "warning", {}, 1, Seconds(90), Seconds(120), std::nullopt});
  CHECK(measure_metric(rec, "alert.time_to_fire", "", "A") == 20.0);
  CHECK_FALSE(measure_metric(rec, "alert.max_time_to_fire", "", "A"));  // nothing fired after the fault at 500
  rec.alerts.push_back({"A", "warning", {}, 1, Seconds(500), Seconds(530), std::nullopt});
  CHECK(measure_metric(rec, "alert.max_time_to_fire", "", "A") == 30.0);
  CHECK(measure_metric(rec, "alert.firings", "", "A") == 2.0);
  CHECK(measure_metric(rec, "alert.firings", "", "B") == 0.0);
  CHECK_FALSE(measure_metric(RunRecord{}, "alert.time_to_fire", "", "A"));  // no fault at all
  auto results = evaluate_checks({check("alert.time_to_fire", "B", CheckOp::Le, 60)}, rec);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].passed);
  CHECK_THAT(results[0].message, Catch::Contains("alert B did not fire after every fault"));
}

TEST_CASE("telemetry: gauges follow the controller, network samples come from the driver, samples are bounded",
          "[unit][control]") {
  Run r = node_crash_run();
  const MetricRegistry& m = r.c->record().metrics;
  auto value = [&](std::string_view metric, const LabelSet& labels) -> std::optional<double> {
    for (const auto& s : m.family(metric)->series)
      if (s.labels == labels && s.present) return s.value;
    return std::nullopt;
  };
  const LabelSet train = {{"job_name", "train"}, {"queue", "q"}};
  CHECK(value(metric::kGpusUp, {}) == 16.0);  // set before the first event, for a live endpoint
  CHECK_FALSE(value(metric::kJobAlive, train));
  CHECK(r.c->network_sample_due(Seconds(0)));
  r.feed(Timer{}, Seconds(0));
  CHECK_FALSE(r.c->network_sample_due(Seconds(44)));
  CHECK(r.c->network_sample_due(Seconds(45)));
  CHECK(r.c->next_deadline() == Seconds(45));  // the sampling tick while a job runs
  CHECK(value(metric::kGpusAllocated, {}) == 8.0);
  CHECK(value(metric::kGpusBusy, {}) == 8.0);
  CHECK(value(metric::kGpuBusyRatio, {}) == 0.5);
  CHECK(value(metric::kJobAlive, train) == 1.0);
  CHECK(*value(metric::kJobGpuMemory, train) > 1e9);
  CHECK(value(metric::kJobState, {{"job_name", "train"}, {"queue", "q"}, {"state", "running"}}) == 1.0);
  r.feed(NetworkSample{{3e9, 5e9}}, Seconds(45));
  CHECK(value(metric::kNodeNetwork, {{"node", r.s.topology.nodes()[1].name}}) == 5e9);
  CHECK(value(metric::kClusterNetwork, {}) == 8e9);
  r.until(Seconds(45 * 100));
  r.c->finish(Seconds(45 * 100));
  const TelemetrySeries& t = r.c->record().telemetry;
  CHECK(t.times.size() == 101);  // one per tick and the end
  CHECK(t.times[1] == Seconds(45));
  const auto col = std::find(t.columns.begin(), t.columns.end(), "traintwin_cluster_network_bytes_per_second");
  REQUIRE(col != t.columns.end());
  CHECK(t.rows[1][col - t.columns.begin()] == 8e9);
  CHECK(std::find(t.columns.begin(), t.columns.end(), "traintwin_node_network_bytes_per_second{node=\"" +
                                                          r.s.topology.nodes()[0].name + "\"}") == t.columns.end());
}

TEST_CASE("telemetry: no sampling deadline while no job holds GPUs", "[unit][control]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("late", "q", 8, 0, 3600)});
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  CHECK(c.next_deadline() == Seconds(3600));  // the submission, not a sample every minute before it
}

TEST_CASE("telemetry: job_series off records no per-job column, yet alerts still see the per-job metrics",
          "[unit][control]") {
  auto has_job_column = [](const TelemetrySeries& t) {
    return std::any_of(t.columns.begin(), t.columns.end(),
                       [](const std::string& c) { return c.find("job_name=") != std::string::npos; });
  };
  for (bool job_series : {true, false}) {
    Run r = node_crash_run();
    r.s.telemetry.job_series = job_series;
    r.c = std::make_unique<Controller>(r.s);
    r.feed(Timer{}, Seconds(0));
    const int node = r.actions<Launch>().at(0).second.gpus.front() / 8;
    r.until(Seconds(450));
    r.feed(NodeDown{node, FaultKind::NodeCrash}, Seconds(450));
    r.until(Seconds(900));
    r.c->finish(Seconds(900));
    INFO("job_series " << job_series);
    CHECK(has_job_column(r.c->record().telemetry) == job_series);
    CHECK_FALSE(r.c->record().telemetry.columns.empty());  // the cluster series are recorded either way
    // TrainDead watches traintwin_job_alive{job_name="train"}: it fires whether or not that series is recorded.
    auto fired = r.actions<FireAlert>();
    CHECK(std::any_of(fired.begin(), fired.end(), [](const auto& f) { return f.second.name == "TrainDead"; }));
  }
}
