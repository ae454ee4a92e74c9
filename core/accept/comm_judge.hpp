// Judging all-reduce measurements (an nccl-tests log, read by core/calib, or our own commtest) against an acceptance
// plan: per planned size, the mean busbw of its rows (out-of-place and in-place, as nccl-tests averages them)
// against the size's threshold. A log that cannot belong to
// the plan (another collective, another rank or node count, no planned size at all) is bad input: InputError naming
// the log's line or JSON pointer.
#pragma once

#include <string>
#include <vector>

#include "core/accept/plan.hpp"
#include "core/calib/measurement.hpp"

namespace tt::accept {

struct SizeVerdict {
  Bytes size;
  BytesPerSecond expected, threshold;
  std::optional<BytesPerSecond> measured;  // mean over the size's rows; absent: the log has no row of this size
  std::string where;                       // the slowest row's "file:line" or "file#/pointer"
  bool passed = false;
};

struct CommVerdict {
  std::vector<SizeVerdict> sizes;     // one per planned size, ascending
  std::vector<std::string> unplanned;  // rows of sizes the plan has no expectation for (ignored)
  bool passed() const;
  std::vector<std::string> failed_sizes() const;  // "65536" bytes, as nccl-tests prints them
};

// `file` names the log in errors. Measurements with ranks or nodes 0 ("the file does not say") are not checked
// against the plan's.
CommVerdict judge_comm(const AcceptPlan& plan, const std::vector<Measurement>& log, const std::string& file);

// Busbw of one measured call, nccl-tests' way.
BytesPerSecond measured_busbw(const Measurement& m, int ranks);

}  // namespace tt::accept
