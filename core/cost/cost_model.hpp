// The cost model: what a run cost, from what it held and wrote. A pure function of billed capacity intervals and job
// usage (built from a RunRecord by core/cost/billing.hpp); it knows nothing of the Controller or a backend.
// GB are 1e9 bytes; a month is 730 hours (the cloud billing convention). Every figure is in Prices::currency.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/prices.hpp"
#include "core/model/units.hpp"

namespace tt::cost {

// Capacity billed from start to end whether used or not: a node of the topology (or of a pool) at one price.
struct BilledCapacity {
  std::string node;
  std::string site;
  PriceKind kind = PriceKind::OnDemand;
  double per_gpu_hour = 0;
  int gpus = 0;
  Seconds start, end;
};

struct HeldGpus {  // a job held `gpus` GPUs of `node` from start to end
  std::string node;
  int gpus = 0;
  Seconds start, end;
};

struct CheckpointWrite {
  Seconds t;         // completed
  std::string site;  // the storage it was written to
};

struct JobUsage {
  std::string name, queue;
  std::vector<HeldGpus> held;
  double productive_gpu_hours = 0;  // useful training time x GPUs (JobRecord::productive_seconds)
  Bytes checkpoint_bytes;           // one checkpoint
  std::vector<CheckpointWrite> checkpoints;  // in time order
  int keep_last = 0;                // the job's own retention (0: all); the stricter of it and Prices' applies
  std::optional<Seconds> ended;     // completed or abandoned; absent while it runs or waits
  Bytes inter_site_bytes;           // checkpoints moved between sites
};

struct CostInput {
  Seconds end;  // the run's end: storage is billed up to it
  std::vector<std::string> sites;
  std::vector<BilledCapacity> capacity;
  std::vector<JobUsage> jobs;
};

struct JobCost {
  std::string name, queue;
  double gpu_hours = 0, storage_gb_months = 0, traffic_gb = 0;
  double gpu = 0, storage = 0, traffic = 0, total = 0;
};

struct SiteCost {
  std::string site;
  double billed_gpu_hours = 0, used_gpu_hours = 0, idle_gpu_hours = 0;
  double gpu = 0;      // all billed capacity
  double idle = 0;     // billed capacity no job held
  double storage = 0;  // checkpoints kept on its storage
  double traffic = 0;  // checkpoint writes to its storage
  double total = 0;    // gpu + storage + traffic
};

struct CostReport {
  std::string currency;
  std::vector<JobCost> jobs;             // in input order
  std::map<std::string, double> queues;  // the totals of their jobs
  std::vector<SiteCost> sites;
  double gpu = 0, idle = 0, storage = 0, traffic = 0, inter_site_traffic = 0;
  double total = 0;                     // gpu + storage + traffic (= the jobs' totals + idle)
  double productive_gpu_hours = 0;
  std::optional<double> per_useful_gpu_hour;  // total / productive GPU-hours; absent when nothing was productive
};

// The GB-months a checkpoint written at `writes[k].t` is kept, under the retention (Retention's rules).
double kept_gb_months(const std::vector<CheckpointWrite>& writes, std::size_t k, Bytes size, int keep_last,
                      const std::optional<Seconds>& expire_after, const std::optional<Seconds>& job_end, Seconds end);

CostReport compute_costs(const Prices& prices, const CostInput& input);

}  // namespace tt::cost
