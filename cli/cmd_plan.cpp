// traintwin plan SCENARIO --job J: the job's placement as the scheduler would give it at submit on an empty cluster,
// its communication groups with the algorithm and protocol chosen for each and their predicted times, and the NCCL
// settings a real run would use (environment; the NCCL_TOPO_FILE XML with --topo-file).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <tuple>

#include "cli/commands.hpp"
#include "core/calib/tuner_config.hpp"
#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/plan/collective.hpp"
#include "core/plan/nccl_settings.hpp"
#include "core/plan/perf_model.hpp"
#include "core/sched/scheduler.hpp"

namespace tt::cli {
namespace {

struct PlanArgs {
  std::string scenario;
  std::string job;
  std::string topo_file;
  std::string tuner_csv;
  bool json = false;
};

std::string node_list(const Topology& topo, const std::vector<int>& gpus) {
  std::string out;
  int last = -1;
  for (int g : gpus) {
    int node = g / topo.gpus_per_node();
    if (node == last) continue;
    out += (out.empty() ? "" : " ") + topo.nodes()[node].name;
    last = node;
  }
  return out;
}

int run(const PlanArgs& a) {
  Scenario sc = read_scenario_file(a.scenario);
  const JobSpec* job = nullptr;
  std::string names;
  for (const JobSpec& j : sc.jobs) {
    if (j.name == a.job) job = &j;
    names += (names.empty() ? "" : ", ") + j.name;
  }
  if (!job) throw InputError("command line", "--job", "a job of " + a.scenario + " (" + names + ")");
  const Topology& topo = sc.topology;
  // The scheduler's own decision for this job alone, submitted at time 0 to the empty cluster.
  std::vector<SchedJob> jobs(1);
  for (std::size_t q = 0; q < sc.queues.size(); ++q)
    if (sc.queues[q].name == job->queue) jobs[0].queue = static_cast<int>(q);
  jobs[0].priority = job->priority;
  jobs[0].gpus = job->gpus;
  jobs[0].topology = job->topology;
  Scheduler scheduler(sc.queues, sc.scheduler, jobs);
  ClusterState cluster(topo);
  scheduler.enqueue(0, Seconds(0), Seconds(3600));
  ScheduleResult result = scheduler.schedule(Seconds(0), cluster);
  if (result.starts.empty())
    throw InputError(a.scenario, "", "a job the scheduler starts on the empty cluster; " + job->name + " waits");
  const std::vector<int> placed = result.starts[0].gpus;
  const IterationPlan plan = plan_iteration(*job, topo, placed, sc.perf);
  const CommConstants k = comm_constants(topo.gpu(), sc.perf.comm);
  const auto env = nccl_env(topo, placed, plan.steps, k, a.topo_file);
  if (!a.topo_file.empty()) {
    std::ofstream out(a.topo_file);
    out << nccl_topo_xml(topo, placed[0] / topo.gpus_per_node());
    if (!out) throw std::runtime_error("cannot write " + a.topo_file);
  }
  const Seconds timeout = ib_comm_timeout(k);
  if (!a.tuner_csv.empty()) {
    std::vector<std::pair<Collective, std::vector<int>>> communicators;
    for (const CommStep& s : plan.steps)
      for (const CommGroup& g : s.groups) communicators.emplace_back(g.collective, g.gpus);
    std::ofstream out(a.tuner_csv);
    out << tuner_config_csv(CommPlanner(topo, k), communicators);
    if (!out) throw InputError("command line", "--tuner-csv", "a file that can be written, " + a.tuner_csv);
  }

  if (a.json) {
    nlohmann::json j;
    j["job"] = job->name;
    j["gpus"] = placed;
    j["nodes"] = node_list(topo, placed);
    j["compute_s"] = plan.compute.value;
    j["predicted_iteration_s"] = plan.predicted_iteration.value;
    for (const CommStep& s : plan.steps)
      for (const CommGroup& g : s.groups)
        j["groups"].push_back({{"step", s.label},
                               {"collective", to_string(g.collective)},
                               {"gpus", g.gpus},
                               {"bytes_per_call", g.calls ? g.bytes.value / g.calls : 0},
                               {"calls", g.calls},
                               {"algorithm", to_string(g.algorithm)},
                               {"protocol", to_string(g.protocol)},
                               {"latency_us", g.latency.value * 1e6},
                               {"predicted_s", g.predicted.value}});
    for (const auto& [key, value] : env) j["nccl_env"][key] = value;
    j["ib_comm_timeout_s"] = timeout.value;
    j["constants"] = k.source;
    std::cout << j.dump(2) << "\n";
    return 0;
  }

  const Parallelism& p = job->parallel;
  std::printf("job %s: %s, %d GPUs (tp %d x pp %d x dp %d)\n", job->name.c_str(), job->model.name.c_str(), job->gpus,
              p.tp, p.pp, p.dp);
  std::printf("placement (%s, the scheduler's choice at submit on an empty cluster): %s\n",
              scheduler.placement().name(), node_list(topo, placed).c_str());
  std::printf("iteration: compute %s, predicted %s (steps run one after another, each as long as its slowest group)\n",
              format_seconds(plan.compute).c_str(), format_seconds(plan.predicted_iteration).c_str());
  std::printf("\n%-4s %6s %-11s %5s %12s %7s %-13s %-7s %10s %12s %9s\n", "step", "groups", "collective", "ranks",
              "bytes/call", "calls", "algorithm", "proto", "call (us)", "busbw (GB/s)", "total");
  for (const CommStep& s : plan.steps) {
    // Groups of a step with the same shape and choice print once, with their count and the slowest one's time.
    std::map<std::tuple<int, int, int, std::size_t>, std::pair<int, const CommGroup*>> kinds;
    for (const CommGroup& g : s.groups) {
      auto key = std::make_tuple(static_cast<int>(g.collective), static_cast<int>(g.algorithm),
                                 static_cast<int>(g.protocol), g.gpus.size());
      auto& [count, slowest] = kinds[key];
      ++count;
      if (!slowest || g.predicted > slowest->predicted) slowest = &g;
    }
    for (const auto& [key, entry] : kinds) {
      const CommGroup& g = *entry.second;
      const int ranks = static_cast<int>(g.gpus.size());
      const Bytes per_call(g.calls ? g.bytes.value / g.calls : 0);
      const Seconds call = g.calls ? g.predicted / g.calls : Seconds(0);
      std::printf("%-4s %6d %-11s %5d %12s %7d %-13s %-7s %10.1f %12.1f %9s\n", s.label.c_str(), entry.first,
                  to_string(g.collective), ranks, format_bytes(per_call).c_str(), g.calls, to_string(g.algorithm),
                  to_string(g.protocol), call.value * 1e6,
                  bandwidth(g.collective, ranks, per_call, call).busbw.value / 1e9,
                  format_seconds(g.predicted).c_str());
    }
  }
  std::printf("\nNCCL settings (%s):\n", k.source.c_str());
  for (const auto& [key, value] : env) std::printf("  export %s=%s\n", key.c_str(), value.c_str());
  if (!a.topo_file.empty()) std::printf("  (topology XML of one node written to %s)\n", a.topo_file.c_str());
  if (!a.tuner_csv.empty())
    std::printf("  export NCCL_TUNER_CONFIG_FILE=%s  (with NCCL's example tuner plugin: pins the planned algorithms)\n",
                a.tuner_csv.c_str());
  std::printf(
      "communication timeout: %s (4.096 us x 2^%d per try, %d tries): a link outage longer than this fails "
      "the job; a shorter one only slows it\n",
      format_seconds(timeout).c_str(), k.ib_timeout, k.ib_retry_cnt + 1);
  return 0;
}

}  // namespace

Registered add_plan(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  auto* sub = app.add_subcommand("plan", "Print a job's placement, communication plan and NCCL settings");
  sub->add_option("scenario", a->scenario, "scenario JSON file")->required();
  sub->add_option("--job", a->job, "the job's name")->required();
  sub->add_option("--topo-file", a->topo_file, "write the NCCL_TOPO_FILE XML of the job's first node here");
  sub->add_option("--tuner-csv", a->tuner_csv,
                  "write NCCL's tuner-plugin configuration (ext-tuner/example CSV) that pins the planned algorithms");
  sub->add_flag("--json", a->json, "print JSON");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
