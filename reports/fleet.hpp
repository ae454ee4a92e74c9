// The fleet view of report.html: what a run with many jobs or nodes is read by. Past a few dozen jobs nobody reads
// one line per job; they read distributions and groups. Everything here is per queue: a summary table (jobs, GPU-hours,
// share of the cluster, wait and ETTR quantiles, lost work), GPUs allocated per queue over time, the wait-time and ETTR
// distributions (empirical CDFs), lost GPU-hours by fault kind over time, and the jobs that lost or waited the most.
// report_html (reports/html.cpp) switches to it with use_fleet_view; a small run keeps its per-job view.
// Pure functions of the record; deterministic; every record string escaped.
#pragma once

#include <string>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

// A run is read as a fleet past this many jobs or nodes (nodes that ran a job or failed).
inline constexpr std::size_t kFleetViewJobs = 40;
inline constexpr std::size_t kFleetViewNodes = 64;
bool use_fleet_view(const RunRecord& record, std::size_t timeline_nodes);

// The queues of the record in name order; queue_index(record)[j] is job j's index into it.
std::vector<std::string> queue_names(const RunRecord& record);
std::vector<int> queue_index(const RunRecord& record, const std::vector<std::string>& queues);
// Nearest-rank quantile (the smallest value with at least q of the sample at or below it) of a sorted sample.
double nearest_rank(const std::vector<double>& sorted, double q);

struct QueueSummary {
  std::string queue;
  int jobs = 0;
  int started = 0;
  int completed = 0;
  double gpu_hours = 0;         // allocated: every attempt's wall time x the job's GPUs
  double cluster_share = 0;     // gpu_hours / (the cluster's GPUs x the run's end)
  double lost_gpu_hours = 0;
  int restarts = 0;
  int preemptions = 0;
  std::vector<double> waits;    // seconds, one per job, sorted
  std::vector<double> ettrs;    // one per job that started, sorted
};
std::vector<QueueSummary> summarize_queues(const RunRecord& record);

// The HTML sections of the fleet view, each a complete <section>.
std::string fleet_summary_section(const RunRecord& record);
std::string fleet_distributions_section(const RunRecord& record);
std::string fleet_lost_work_section(const RunRecord& record);
std::string fleet_top_jobs_section(const RunRecord& record, std::size_t top = 10);
// GPUs allocated per queue over time, stacked, against GPUs up: for the "Cluster over time" section.
std::string queue_usage_chart(const RunRecord& record);
// The queue legend of the Gantt coloured by queue.
std::string queue_legend(const RunRecord& record);

}  // namespace tt
