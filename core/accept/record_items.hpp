// The checklist items a run's RunRecord can answer, judged the same way for a real run on this machine and for a
// simulated run of a planned cluster: the scheduler's job states (job_states.hpp), node failures detected and
// recovered within the plan's times, restarts per job, and alerts firing within the plan's latency. Each returns an
// ItemResult with the measured value, the expectation and the evidence (decisions, failures, alerts).
#pragma once

#include <map>
#include <string>

#include "core/accept/checklist.hpp"
#include "core/accept/plan.hpp"
#include "core/control/run_record.hpp"

namespace tt::accept {

ItemResult judge_scheduler(const RunRecord& rec);
// Every node crash detected and training resumed, every job hit by one completed, detection and recovery within the
// plan's node_failure thresholds (when the plan has them).
ItemResult judge_node_failure(const RunRecord& rec, const AcceptPlan& plan);
// No job restarted more than `max_restarts` times. `restarts` is what the health endpoint reported (or the record).
std::string restart_problem(const std::map<std::string, int>& restarts, int max_restarts);
std::map<std::string, int> record_restarts(const RunRecord& rec);
// The first alert firing after a fault, and its latency against the plan's alert_latency threshold; "" when fine,
// else the problem. `evidence` gets one line.
std::string alert_problem(const RunRecord& rec, const AcceptPlan& plan, std::string& evidence);

const TimeExpectation* find_time(const AcceptPlan& plan, const std::string& metric);

}  // namespace tt::accept
