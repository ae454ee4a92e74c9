// Topologies and small helpers shared by the SimGrid driver tests. Every simulation runs in its own process
// (sim/isolated.hpp); results come back as JSON text.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/model/gpu.hpp"
#include "core/plan/comm_planner.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/generators.hpp"

namespace tt::testing {

inline FabricParams fabric(int nodes, int gpus_per_node, int nodes_per_group) {
  FabricParams p;
  p.name = "sim-test";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  p.nic_bandwidth = BytesPerSecond(50e9);  // 400 Gb/s
  p.nodes_per_group = nodes_per_group;
  p.link_latency = Seconds(1e-6);
  p.nvlink_latency = Seconds(0.5e-6);
  p.storage_bandwidth = BytesPerSecond(100e9);
  return p;
}

// `calls` ring all-reduces (Ring/Simple, forced) of `bytes` each over `gpus`, as the planner lays them out.
inline CommGroup ring_all_reduce(const CommPlanner& planner, std::vector<int> gpus, double bytes, int calls = 1) {
  return planner.plan(Collective::AllReduce, std::move(gpus), Bytes(bytes), calls, 0,
                      std::make_pair(Algorithm::Ring, Protocol::Simple));
}

inline nlohmann::json seconds_json(const std::vector<Seconds>& v) {
  auto out = nlohmann::json::array();
  for (Seconds s : v) out.push_back(s.value);
  return out;
}

}  // namespace tt::testing

#include "core/control/controller.hpp"
#include "core/model/model_spec.hpp"
#include "core/model/scenario.hpp"
#include "sim/driver.hpp"
#include "sim/isolated.hpp"

namespace tt::testing {

inline JobSpec llama8b(const std::string& name, Parallelism par, std::int64_t iterations, std::int64_t ckpt_every,
                       double submit_s = 0, int global_batch = 48) {
  JobSpec j;
  j.name = name;
  j.queue = std::string(1, 'q');  // (a literal here trips a false -Wrestrict in GCC 12)
  j.submit = Seconds(submit_s);
  j.model = *find_model_preset("llama3-8b");
  j.parallel = par;
  j.gpus = par.world();
  j.iterations = iterations;
  j.global_batch = global_batch;
  j.seq_len = 4096;
  if (ckpt_every > 0) j.checkpoint_every = ckpt_every;
  return j;
}

inline Scenario sim_scenario(Topology topo, std::vector<JobSpec> jobs, std::vector<FaultSpec> faults = {}) {
  Scenario s;
  s.name = "sim-test";
  s.topology = std::move(topo);
  s.queues = {QueueSpec{"q", s.topology.total_gpus()}};
  s.jobs = std::move(jobs);
  s.faults = std::move(faults);
  s.recovery.detection_timeout = Seconds(60);
  s.recovery.restart_overhead = Seconds(120);
  s.recovery.max_restarts = 5;
  return s;
}

inline FaultSpec fault(FaultKind kind, double at_s, std::string target, double repair_s = 0) {
  FaultSpec f;
  f.kind = kind;
  f.at = Seconds(at_s);
  f.target = std::move(target);
  f.repair = Seconds(repair_s);
  return f;
}

// Runs the scenario with the real Controller in a child process; returns the figures the tests look at.
inline nlohmann::json simulate(const Scenario& s) {
  return nlohmann::json::parse(sim::run_isolated([&] {
    Controller controller(s);
    sim::RunStats stats = sim::run(s, controller);
    const RunRecord& rec = controller.record();
    nlohmann::json j;
    j["end_time"] = rec.end_time.value;
    j["events"] = stats.controller_events;
    j["activities"] = stats.simgrid_activities;
    j["fast_forwards"] = stats.fast_forwards;
    j["measurements"] = stats.measurements;
    j["pace_reuses"] = stats.pace_reuses;
    j["shared_pace_reuses"] = stats.shared_pace_reuses;
    j["remeasurements"] = stats.remeasurements;
    j["step_reuses"] = stats.step_reuses;
    j["peak_flows"] = stats.peak_flows;
    j["routes"] = stats.routes;
    j["route_index_bytes"] = stats.route_index_bytes;
    j["driver"] = rec.driver;
    j["driver_info"] = rec.driver_info;
    for (const JobRecord& jr : rec.jobs) {
      nlohmann::json job{{"name", jr.name},
                         {"state", tt::to_string(jr.state)},
                         {"end", jr.end ? jr.end->value : -1.0},
                         {"restarts", jr.restarts},
                         {"checkpoints", jr.checkpoints},
                         {"iterations_done", jr.iterations_done},
                         {"measured", jr.measured_iteration.value},
                         {"predicted", jr.predicted_iteration.value},
                         {"flaps_survived", jr.flaps_survived},
                         {"checkpoint_time", jr.checkpoint_time.value},
                         {"failures", nlohmann::json::array()}};
      for (const FailureRecord& f : jr.failures)
        job["failures"].push_back({{"cause", f.cause},
                                   {"at", f.fault_time.value},
                                   {"kind", f.kind},
                                   {"detect", f.detect_time.value},
                                   {"lost_gpu_hours", f.lost_gpu_hours}});
      for (Seconds w : jr.checkpoint_write_times) job["writes"].push_back(w.value);
      j["jobs"].push_back(job);
    }
    for (const Decision& d : rec.decisions) j["decisions"].push_back(d.kind + " " + d.job + " " + d.reason);
    return j.dump();
  }));
}

}  // namespace tt::testing
