// What one training iteration of a placed job does, as a driver executes it: compute on every GPU, then
// communication steps in order; the groups of one step run concurrently. Built by core/plan/perf_model.hpp.
#pragma once

#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

enum class Collective { AllReduce, SendRecv };
const char* to_string(Collective c);

struct CommGroup {
  Collective collective = Collective::AllReduce;
  std::vector<int> gpus;  // global GPU indices; for AllReduce the ring order, for SendRecv {from, to}
  Bytes bytes;            // per rank, summed over the calls of one iteration
  int calls = 1;          // collective calls these bytes are spread over (each pays the per-step latency)
};

struct CommStep {
  std::string label;  // "tp", "pp", "dp"
  std::vector<CommGroup> groups;
};

struct IterationPlan {
  Seconds compute;  // per GPU, including the pipeline bubble
  std::vector<CommStep> steps;
  std::vector<int> checkpoint_writers;  // GPUs that write a checkpoint shard (data-parallel replica 0)
  Bytes checkpoint_bytes_per_writer;
  Seconds predicted_iteration;          // the closed-form estimate (compute + uncontended communication)
};

}  // namespace tt
