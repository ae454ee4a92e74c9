// The timeline of a RunRecord, shared by the visual views (HTML Gantt, Perfetto trace): which job attempt ran on which
// node, laid out in lanes that never overlap in time, when nodes were out of service, and each job's queued / running
// / failed intervals. A pure function of the record; nodes in natural order ("n2" before "n10").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

struct NodeBar {    // one job segment on one node
  int job = 0;      // index into RunRecord::jobs
  int segment = 0;  // index into JobRecord::segments
  int lane = 0;     // 0 unless segments of several jobs share the node at the same time
  Seconds start;
  Seconds end;
};

struct Interval {
  Seconds start;
  Seconds end;
};

struct NodeRow {
  std::string name;
  int lanes = 1;
  std::vector<NodeBar> bars;   // by start time
  std::vector<Interval> down;  // node_down .. node_up (or the end of the run)
};

struct JobInterval {
  std::string state;  // queued, running, failed (from the fault until it was detected)
  Seconds start;
  Seconds end;
  int segment = -1;  // the attempt, for running and failed
};

struct Timeline {
  Seconds end;  // the end of the run
  std::vector<NodeRow> nodes;
  std::vector<std::vector<JobInterval>> jobs;  // parallel to RunRecord::jobs
};

Timeline build_timeline(const RunRecord& record);
// The failure that ended segment `segment` of `job`, if it failed.
const FailureRecord* segment_failure(const JobRecord& job, int segment);
// "n2" < "n10": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace tt
