// Reads and validates a scenario's "workload" section (docs/scenario-format.md, Workload) and expands it into jobs.
// read_workload() checks what needs no cluster (shapes, references to queues, classes and presets); expand() checks
// every size against the topology and the queues, then appends the generated JobSpecs. Bad input throws InputError.
#pragma once

#include <optional>
#include <vector>

#include "core/io/json_reader.hpp"
#include "core/model/workload.hpp"

namespace tt {

struct WorkloadSection {
  WorkloadSpec spec;
  std::string file;
  std::string pointer;  // "/workload"
};

std::optional<WorkloadSection> read_workload(JsonObject& root, const std::vector<QueueSpec>& queues,
                                             const std::vector<PriorityClass>& classes);
// `queue_capacity`: GPUs each queue can ever hold (quota plus what it may borrow). Appends to s.jobs.
void expand_workload(const WorkloadSection& w, Scenario& s, const std::vector<int>& queue_capacity);

}  // namespace tt
