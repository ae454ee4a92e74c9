// Hand-built scenarios for controller and scheduler tests: no files, no backend.
#pragma once

#include "core/model/gpu.hpp"
#include "core/model/scenario.hpp"
#include "core/topo/generators.hpp"

namespace tt::testing {

// 8 x H100 per node, 400 Gb/s NICs, 200 GB/s storage; the fabric shape as given.
inline FabricParams fabric(int nodes, int per_group, int spines, double oversubscription = 1.0) {
  FabricParams p;
  p.name = "test";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.gpus_per_node = 8;
  p.nic_bandwidth = *parse_bandwidth("400Gbps");
  p.nodes_per_group = per_group;
  p.spines = spines;
  p.oversubscription = oversubscription;
  p.storage_bandwidth = *parse_bandwidth("200GB/s");
  return p;
}

inline Topology rail_cluster(int nodes, int nodes_per_group = 8) {
  FabricParams p;
  p.name = "test-rail";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.gpus_per_node = 8;
  p.nic_bandwidth = BytesPerSecond(50e9);
  p.nodes_per_group = nodes_per_group;
  p.storage_bandwidth = BytesPerSecond(100e9);
  return make_rail_optimized(p);
}

inline JobSpec job(const std::string& name, const std::string& queue, int gpus, int priority = 0,
                   double submit_s = 0, std::int64_t iterations = 1000) {
  JobSpec j;
  j.name = name;
  j.queue = queue;
  j.gpus = gpus;
  j.priority = priority;
  j.submit = Seconds(submit_s);
  j.model = *find_model_preset("llama3-8b");
  j.parallel = Parallelism{std::min(gpus, 8), 1, std::max(1, gpus / 8)};
  j.iterations = iterations;
  j.global_batch = 64;
  j.seq_len = 4096;
  j.checkpoint_every = 100;
  return j;
}

inline Scenario scenario(Topology topo, std::vector<QueueSpec> queues, std::vector<JobSpec> jobs) {
  Scenario s;
  s.name = "test";
  s.topology = std::move(topo);
  s.queues = std::move(queues);
  s.jobs = std::move(jobs);
  s.recovery.detection_timeout = Seconds(60);
  s.recovery.restart_overhead = Seconds(120);
  return s;
}

}  // namespace tt::testing
