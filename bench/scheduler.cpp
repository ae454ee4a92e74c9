// bench_scheduler: the scheduler at fleet scale, driven through the Controller with synthetic events (no SimGrid:
// jobs complete at their declared run time). Default: 10,000 nodes x 8 GPUs on a rail-optimized fabric (32 nodes per
// leaf group), 100,000 jobs with a heavy-tailed size mix, 8 queues in 2 cohorts with borrowing and reclaim,
// three priority classes with within-queue preemption, EASY backfill, pack placement with topology constraints on a
// third of the multi-node jobs. A "decision" is one Controller::handle() call: an event in, its actions out (a full
// scheduling pass when anything changed). Telemetry as in a real scenario: a sample every minute and six alert rules
// (cluster, per-queue and per-job series, with and without `for`; --no-alerts drops them). Prints decisions/s and the
// time per decision (median, p99, max), and the work counters bench/regress compares (registry updates per decision);
// --json prints one JSON object instead. Never fails on time.
//
//   bench_scheduler [--nodes N] [--jobs N] [--load X] [--seed S] [--no-backfill] [--no-topology] [--exempt SECONDS]
//                   [--no-alerts] [--json]
#include <algorithm>
#include <nlohmann/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/control/controller.hpp"
#include "core/control/synthetic_driver.hpp"
#include "core/model/gpu.hpp"
#include "core/model/random.hpp"
#include "core/telemetry/alert_expr.hpp"
#include "core/topo/generators.hpp"

using namespace tt;

namespace {

struct Options {
  int nodes = 10000;
  int jobs = 100000;
  double load = 0.95;  // offered GPU-time / capacity over the submission span
  std::uint64_t seed = 1;
  bool backfill = true;
  bool topology = true;
  double exempt_s = 0;  // preemption exempt time (Slurm PreemptExemptTime), --exempt
  bool alerts = true;
  bool json = false;
};

// A cheap stand-in for the iteration planner: the benchmark measures scheduling, not communication planning.
IterationPlan stub_plan(const JobSpec&, const Topology&, const std::vector<int>&, const PerfConstants&) {
  IterationPlan p;
  p.predicted_iteration = Seconds(1);
  return p;
}

Scenario make_scenario(const Options& o) {
  FabricParams p;
  p.name = "bench-rail";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = o.nodes;
  p.gpus_per_node = 8;
  p.nic_bandwidth = BytesPerSecond(50e9);
  p.nodes_per_group = 32;
  p.storage_bandwidth = BytesPerSecond(1e12);
  Scenario s;
  s.name = "bench-scheduler";
  s.seed = o.seed;
  s.topology = make_rail_optimized(p);
  const int total = o.nodes * 8;

  // Two cohorts of four teams; quotas split the cluster 30/20/15/10 and 10/5/5/5 percent.
  const double share[8] = {0.30, 0.20, 0.15, 0.10, 0.10, 0.05, 0.05, 0.05};
  for (int q = 0; q < 8; ++q) {
    QueueSpec qs;
    qs.name = "team" + std::to_string(q);
    qs.gpu_quota = std::max(8, static_cast<int>(share[q] * total));
    qs.cohort = q < 4 ? "research" : "product";
    if (q % 4 == 3) qs.borrowing_limit = qs.gpu_quota / 2;
    if (q % 4 == 2) qs.lending_limit = qs.gpu_quota / 2;
    qs.within_queue = WithinQueuePreemption::LowerPriority;
    qs.reclaim = q % 2 == 0 ? ReclaimPreemption::Any : ReclaimPreemption::Never;
    s.queues.push_back(qs);
  }
  s.scheduler.backfill = o.backfill;
  if (o.alerts) {
    // The rules an operator of such a fleet runs: node loss, idle GPUs, a queue backlog, a job's heartbeat, a day-long
    // wait, and an aggregation over the per-job family.
    const std::pair<const char*, const char*> rules[] = {
        {"NodeDown", "traintwin_nodes_down > 0"},
        {"GpuBusyLow", "traintwin_gpu_busy_ratio < 0.5"},
        {"QueueBacklog", "traintwin_queue_length > 200"},
        {"JobHeartbeatLost", "traintwin_job_alive == 0"},
        {"WaitOverADay", "traintwin_job_wait_seconds > 86400"},
        {"ManyRestarts", "sum(traintwin_job_restarts_total) > 1000"},
    };
    const double for_s[] = {30, 900, 600, 0, 0, 0};
    for (std::size_t i = 0; i < std::size(rules); ++i) {
      std::string error;
      AlertSpec a;
      a.name = rules[i].first;
      a.condition = *parse_alert_expr(rules[i].second, error);
      a.for_duration = Seconds(for_s[i]);
      a.severity = "warning";
      s.alerts.push_back(std::move(a));
    }
  }
  s.scheduler.preemption_exempt_time = Seconds(o.exempt_s);

  // Size mix (GPUs, weight): many small jobs, a heavy tail of large ones (by GPU-time the large ones dominate).
  const std::pair<int, double> sizes[] = {{1, 0.30},  {2, 0.08},    {4, 0.10},   {8, 0.25},    {16, 0.10},   {32, 0.08},
                                          {64, 0.05}, {128, 0.025}, {256, 0.01}, {512, 0.004}, {1024, 0.001}};
  Random rng(o.seed);
  auto draw_size = [&] {
    double u = rng.uniform(), acc = 0, sum = 0;
    for (const auto& [g, w] : sizes) sum += w;
    for (const auto& [g, w] : sizes) {
      acc += w / sum;
      if (u < acc) return g;
    }
    return sizes[0].first;
  };
  auto draw_runtime = [&] {  // log-normal around 1 h, from 5 min to 3 days
    return std::clamp(std::exp(rng.normal(std::log(3600.0), 1.2)), 300.0, 3 * 86400.0);
  };
  std::vector<JobSpec> jobs;
  double gpu_seconds = 0;
  const ModelSpec model = *find_model_preset("llama3-8b");
  for (int i = 0; i < o.jobs; ++i) {
    JobSpec j;
    j.name = "j" + std::to_string(i);
    int q = rng.uniform_int(0, 99);
    int qi = q < 30 ? 0 : q < 50 ? 1 : q < 65 ? 2 : q < 75 ? 3 : q < 85 ? 4 : q < 90 ? 5 : q < 95 ? 6 : 7;
    j.queue = s.queues[qi].name;
    j.gpus = std::min(draw_size(), s.queues[qi].gpu_quota);
    double pr = rng.uniform();
    j.priority = pr < 0.70 ? 0 : pr < 0.95 ? 100 : 1000;
    j.model = model;
    j.parallel = Parallelism{std::min(j.gpus, 8), 1, std::max(1, j.gpus / 8)};
    j.iterations = 1000;
    j.global_batch = 1024;
    j.seq_len = 4096;
    j.checkpoint_every = 100;
    j.estimated_runtime = Seconds(draw_runtime());
    if (o.topology && j.gpus > 8 && rng.uniform() < 0.33) {
      int nodes = j.gpus / 8;
      j.topology.max_leaf_groups = (nodes + 31) / 32;
      j.topology.required = rng.uniform() < 0.5;
      if (j.topology.required) j.topology.max_wait = Seconds(1800);
    }
    gpu_seconds += j.gpus * j.estimated_runtime->value;
    jobs.push_back(std::move(j));
  }
  // Poisson arrivals at the rate that offers `load` of the cluster.
  const double mean_gap = gpu_seconds / o.jobs / (o.load * total);
  double t = 0;
  for (auto& j : jobs) {
    j.submit = Seconds(t);
    t += rng.exponential(mean_gap);
  }
  s.jobs = std::move(jobs);
  return s;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::size_t k = static_cast<std::size_t>(p * (v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--nodes"))
      o.nodes = std::atoi(argv[++i]);
    else if (arg("--jobs"))
      o.jobs = std::atoi(argv[++i]);
    else if (arg("--load"))
      o.load = std::atof(argv[++i]);
    else if (arg("--seed"))
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg("--exempt"))
      o.exempt_s = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-backfill"))
      o.backfill = false;
    else if (!std::strcmp(argv[i], "--no-topology"))
      o.topology = false;
    else if (!std::strcmp(argv[i], "--no-alerts"))
      o.alerts = false;
    else if (!std::strcmp(argv[i], "--json"))
      o.json = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_scheduler [--nodes N] [--jobs N] [--load X] [--seed S] [--no-backfill] "
                   "[--no-topology] [--exempt SECONDS] [--no-alerts] [--json]\n");
      return 2;
    }
  }
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  Scenario sc = make_scenario(o);
  double setup_s = std::chrono::duration<double>(clock::now() - t0).count();

  Controller c(sc, stub_plan);
  SyntheticDriver d(sc, c);
  std::vector<double> per;  // seconds per decision
  per.reserve(static_cast<std::size_t>(o.jobs) * 3);
  std::size_t max_pending = 0;
  double busy = 0;
  auto run0 = clock::now();
  while (true) {
    auto a = clock::now();
    if (!d.step()) break;
    double dt = std::chrono::duration<double>(clock::now() - a).count();
    per.push_back(dt);
    busy += dt;
  }
  double wall = std::chrono::duration<double>(clock::now() - run0).count();
  c.finish(d.now());
  const RunRecord& r = c.record();
  std::size_t launches = 0, preempts = 0, pendings = 0;
  for (const auto& dec : r.decisions) {
    launches += dec.kind == "launch";
    preempts += dec.kind == "preempt";
    pendings += dec.kind == "pending";
  }
  for (const auto& s : r.series) max_pending = std::max<std::size_t>(max_pending, s.jobs_pending);
  int preempted_jobs = 0, max_preempted = 0;
  for (const auto& j : r.jobs) {
    preempted_jobs += j.preemptions > 0;
    max_preempted = std::max(max_preempted, j.preemptions);
  }
  double mean_wait = 0, max_frag = 0;
  for (const auto& j : r.jobs) mean_wait += j.wait.value / r.jobs.size();
  for (const auto& s : r.series) max_frag = std::max(max_frag, s.fragmentation);
  const double rate = per.size() / busy;
  const double med = percentile(per, 0.5), p99 = percentile(per, 0.99), mx = percentile(per, 1.0);

  const double updates_per_decision = static_cast<double>(r.metrics.updates()) / static_cast<double>(per.size());
  std::size_t alert_firings = r.alerts.size();
  const int unfinished = static_cast<int>(
      std::count_if(r.jobs.begin(), r.jobs.end(), [](const JobRecord& j) { return j.state != JobStatus::Completed; }));
  if (o.json) {
    nlohmann::json out = {{"nodes", o.nodes}, {"gpus", o.nodes * 8}, {"jobs", o.jobs}, {"load", o.load},
                          {"seed", o.seed}, {"backfill", o.backfill}, {"topology_constraints", o.topology},
                          {"preemption_exempt_s", o.exempt_s}, {"decisions", per.size()},
                          {"decisions_per_s", rate}, {"ratio_to_goal_20000", rate / 20000},
                          {"ratio_to_slurm_500", rate / 500}, {"median_us", med * 1e6}, {"p99_us", p99 * 1e6},
                          {"max_us", mx * 1e6}, {"wall_s", wall}, {"setup_s", setup_s}, {"launches", launches},
                          {"preemptions", preempts}, {"jobs_preempted", preempted_jobs},
                          {"max_preemptions_of_one_job", max_preempted}, {"pending_reason_changes", pendings},
                          {"max_pending", max_pending}, {"mean_wait_s", mean_wait},
                          {"gpu_utilization", r.gpu_utilization}, {"max_fragmentation", max_frag},
                          {"simulated_s", d.now().value}, {"unfinished", unfinished},
                          {"alert_rules", sc.alerts.size()}, {"alert_firings", alert_firings},
                          {"registry_updates", r.metrics.updates()},
                          {"registry_updates_per_decision", updates_per_decision},
                          {"scheduler_passes", c.scheduler_passes()},
                          {"scheduler_examinations", c.scheduler_examinations()},
                          {"scheduler_reason_changes", c.scheduler_reason_changes()},
                          {"scheduler_passed_over", c.scheduler_passed_over()},
                          {"preemption_searches", c.preemption_searches()}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf(
      "bench_scheduler: %d nodes (%d GPUs, rail-optimized, 32 nodes/leaf group), %d jobs, load %.2f, seed %llu\n",
      o.nodes, o.nodes * 8, o.jobs, o.load, static_cast<unsigned long long>(o.seed));
  std::printf(
      "  policies: 8 queues / 2 cohorts (borrowing, lending limits, reclaim), 3 priorities (preemption), "
      "backfill %s, pack placement, topology constraints %s\n",
      o.backfill ? "EASY" : "off", o.topology ? "on" : "off");
  std::printf("  %-28s %12zu\n", "decisions (handle calls)", per.size());
  std::printf("  %-28s %12.0f\n", "decisions/s (one core)", rate);
  std::printf("  %-28s %12.1f us\n", "time/decision median", med * 1e6);
  std::printf("  %-28s %12.1f us\n", "time/decision p99", p99 * 1e6);
  std::printf("  %-28s %12.1f us\n", "time/decision max", mx * 1e6);
  std::printf("  %-28s %12.2f s (setup %.2f s)\n", "wall", wall, setup_s);
  std::printf("  %-28s %12zu\n", "launches", launches);
  std::printf("  %-28s %12zu\n", "preemptions", preempts);
  std::printf("  %-28s %12d (at most %d times one job)\n", "jobs preempted", preempted_jobs, max_preempted);
  std::printf("  %-28s %12zu\n", "pending reason changes", pendings);
  std::printf("  %-28s %12zu\n", "max jobs pending", max_pending);
  std::printf("  %-28s %12.0f s\n", "mean wait", mean_wait);
  std::printf("  %-28s %12.3f\n", "GPU utilization", r.gpu_utilization);
  std::printf("  %-28s %12.3f\n", "max fragmentation", max_frag);
  std::printf("  %-28s %12.2f x goal (20,000/s), %.1f x Slurm's documented 500 jobs/s\n", "ratio", rate / 20000,
              rate / 500);
  std::printf("  %-28s %12.0f s\n", "preemption exempt time", o.exempt_s);
  std::printf("  %-28s %12zu (%zu firings)\n", "alert rules", sc.alerts.size(), alert_firings);
  std::printf("  %-28s %12.1f\n", "registry updates/decision", updates_per_decision);
  std::printf("  %-28s %12llu passes, %llu pending jobs examined (+ %llu reasons changed on the counts alone), %llu "
              "passed over, %llu preemption searches\n",
              "scheduler work", static_cast<unsigned long long>(c.scheduler_passes()),
              static_cast<unsigned long long>(c.scheduler_examinations()),
              static_cast<unsigned long long>(c.scheduler_reason_changes()),
              static_cast<unsigned long long>(c.scheduler_passed_over()),
              static_cast<unsigned long long>(c.preemption_searches()));
  return 0;
}
