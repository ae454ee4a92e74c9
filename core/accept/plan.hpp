// An acceptance plan: for one cluster (a topology, its ranks and nodes), the expected value and the pass threshold of
// every measured item, with the false-failure rate each threshold implies under the stated noise model
// (core/accept/noise.hpp). Written by `traintwin accept --write-plan` (from the twin, or from calibration runs of this
// machine) and read back to judge a real run or an nccl-tests log. The JSON is the contract: read_plan() rejects
// anything else with the file and JSON pointer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/accept/noise.hpp"
#include "core/model/units.hpp"

namespace tt::accept {

struct CommExpectation {  // one all-reduce size, nccl-tests' busbw (GB/s in the JSON)
  Bytes size;
  BytesPerSecond busbw;      // expected
  BytesPerSecond threshold;  // a size passes at or above it
  double false_failure = 0;  // P(a healthy run measures below the threshold)
};

struct TimeExpectation {  // a duration that must stay at or below its threshold
  std::string item;       // the checklist item it belongs to (item_id)
  std::string metric;     // detect, recover, alert_latency, checkpoint_write, checkpoint_restore
  Seconds expected;
  Seconds threshold;
  double false_failure = 0;  // P(a healthy run takes longer than the threshold)
  std::string source;        // where the expected value comes from
};

struct AcceptPlan {
  std::string topology;  // the name of the topology it was planned for
  int ranks = 0;
  int nodes = 0;
  std::string collective = "all_reduce";
  std::string model;             // what gave the expected busbw
  double target_false_failure = 0;  // per threshold, as asked when the plan was made
  Noise comm_noise;
  Noise time_noise;
  std::vector<CommExpectation> comm;  // by ascending size
  std::vector<TimeExpectation> times;

  double false_failure_any() const;  // the chance a healthy cluster fails at least one threshold
};

nlohmann::json plan_json(const AcceptPlan& plan);
// Throws InputError naming the file and the JSON pointer of the first bad value.
AcceptPlan read_plan(const nlohmann::json& doc, const std::string& file);
AcceptPlan read_plan_file(const std::string& path);

// A threshold per size from the expected busbw: lower_threshold() at the target rate under comm_noise.
void set_comm_thresholds(AcceptPlan& plan);
TimeExpectation time_expectation(std::string item, std::string metric, Seconds expected, const Noise& noise,
                                 double false_failure, std::string source);

}  // namespace tt::accept
