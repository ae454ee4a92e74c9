// A sweep of one collective over message sizes, as nccl-tests runs it (-b, -e, -f): the plan and closed-form time of
// each size, an optional measured time per size (filled by a driver, e.g. sim/comm_sweep.hpp), and the result in
// nccl-tests' table layout or as JSON. Pure functions: formatting returns text, nothing is printed here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/plan/collective.hpp"
#include "core/plan/comm_planner.hpp"

namespace tt {

struct SweepRow {
  Bytes size;  // nccl-tests' size: count x 4 (float elements)
  long long count = 0;
  CommGroup group;      // one call, planned
  Bandwidth predicted;  // from group.predicted
  std::optional<Seconds> measured;
  Bandwidth measured_bw;
};

struct Sweep {
  Collective collective = Collective::AllReduce;
  std::vector<int> gpus;
  int nodes = 1;
  int root = 0;
  std::vector<SweepRow> rows;
};

// begin, begin x factor, ... up to end (inclusive); sizes are rounded down to whole float elements (whole
// elements per rank for all_gather, reduce_scatter and alltoall), and those that round to nothing are dropped.
std::vector<Bytes> sweep_sizes(Bytes begin, Bytes end, double factor);

// The first `nodes` nodes, GPUs 0 .. gpus/nodes - 1 of each, in rank order. Throws std::invalid_argument with a message
// for a user when they do not fit the topology.
std::vector<int> pick_gpus(const Topology& topo, int gpus, int nodes);

Sweep plan_sweep(const CommPlanner& planner, Collective c, const std::vector<int>& gpus,
                 const std::vector<Bytes>& sizes, int root = 0,
                 std::optional<std::pair<Algorithm, Protocol>> force = std::nullopt);
void set_measured(Sweep& s, std::size_t row, Seconds t);

double average_busbw(const Sweep& s, bool measured);  // bytes per second, over the rows (measured: those measured)

// nccl-tests' layout: "#"-prefixed header, one line per size (size, count, type, redop, root, time(us), algbw, busbw,
// algorithm, protocol, and the measured time, algbw, busbw when any row has one), then the footer: errors with OK or
// FAILED, and the average bus bandwidth. `errors` counts sizes that could not be measured.
std::string sweep_table(const Sweep& s, const std::string& title, int errors = 0);
nlohmann::json sweep_json(const Sweep& s, int errors = 0);

}  // namespace tt
