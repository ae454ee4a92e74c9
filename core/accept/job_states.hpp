// The allowed state graph of a job, written out, and a checker that walks each job's decisions (RunRecord::decisions,
// in order) through it. States: queued (submitted or waiting), running, failed (declared, not yet requeued or given
// up), completed, abandoned. Every job-level decision kind is an edge or a self-loop of a state (kAllowed); any other
// (state, kind) pair, or a run that ends with a job not in a terminal state when `must_finish`, is a violation.
//
//   (new) --submit--> queued --launch--> running --complete--> completed
//                       ^  \--pending--/    |  \--detect--> failed --requeue--> queued
//                       |                   |                  \--abandon--> abandoned
//                       +-----preempt-------+
//   self-loops: running: resume, restore, false_failure, checkpoint_corrupt, spare; queued: pending, false_failure,
//   checkpoint_corrupt; failed: spare; completed, abandoned: checkpoint_corrupt (nothing changes)
#pragma once

#include <string>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt::accept {

enum class JobState { New, Queued, Running, Failed, Completed, Abandoned };
const char* to_string(JobState s);

struct Transition {
  JobState from;
  std::string kind;  // the decision kind
  JobState to;
};
const std::vector<Transition>& allowed_transitions();

struct StateViolation {
  std::string job;
  std::string detail;  // "decision 12 at 0:15:00.000: complete while queued (allowed from queued: launch, pending, ...)"
};

struct StateCheck {
  int jobs = 0;
  int transitions = 0;  // decisions walked
  std::vector<StateViolation> violations;
  bool passed() const { return violations.empty(); }
};

StateCheck check_job_states(const RunRecord& record, bool must_finish);

}  // namespace tt::accept
