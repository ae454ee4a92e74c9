// What one training iteration of a placed job does, as a driver executes it: compute on every GPU, then
// communication steps in order; the groups of one step run concurrently. Built by core/plan/perf_model.hpp, whose
// groups the CommPlanner (core/plan/comm_planner.hpp) plans.
#pragma once

#include <string>
#include <vector>

#include "core/model/comm.hpp"
#include "core/model/units.hpp"

namespace tt {

// One point-to-point transfer of a planned collective: `share` bytes for each byte of its group's `bytes` (protocol
// and link-efficiency overheads included), from GPU `from` to GPU `to` (global indices).
struct Transfer {
  int from = 0;
  int to = 0;
  double share = 0;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};
// Transfers that run concurrently. A group's phases run one after another (a hierarchical all-reduce has three).
using CommPhase = std::vector<Transfer>;

struct CommGroup {
  Collective collective = Collective::AllReduce;
  std::vector<int> gpus;  // members in rank order (global GPU indices); for SendRecv the chain of sends {from, to}
  Bytes bytes;            // per rank, summed over the calls of one iteration (nccl-tests' "size" of each call)
  int calls = 1;          // collective calls these bytes are spread over (each pays the per-call latency)
  int root = 0;           // index into gpus: the root of a broadcast or reduce

  // Filled by the CommPlanner (core/plan/comm_planner.hpp): drivers execute the phases and the cost model reads
  // `predicted`, nothing else. No phases means the group moves nothing (fewer than two distinct GPUs); any other
  // group without phases is refused by both (require_planned()).
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  std::vector<CommPhase> phases{};
  Seconds latency{};    // per call, from the cost model; the sim adds calls x latency after the flows
  Seconds predicted{};  // the closed form: all calls, uncontended
};

// Fewer than two distinct GPUs: nothing to move, no phases, zero time.
bool moves_nothing(const CommGroup& g);
// Throws std::logic_error naming the group (describe()) when it has no phases yet moves something: every group a
// driver executes or the cost model costs comes from CommPlanner::plan().
void require_planned(const CommGroup& g);
// "all_reduce of 1e+09 bytes on GPUs 0, 8, 16", for error messages.
std::string describe(const CommGroup& g);

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
