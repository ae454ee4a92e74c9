#include "reports/timeline.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace tt {

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i0 = i, j0 = j;
      while (i0 < a.size() && a[i0] == '0') ++i0;
      while (j0 < b.size() && b[j0] == '0') ++j0;
      std::size_t ie = i0, je = j0;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      if (ie - i0 != je - j0) return ie - i0 < je - j0;
      int cmp = a.compare(i0, ie - i0, b, j0, je - j0);
      if (cmp != 0) return cmp < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

const FailureRecord* segment_failure(const JobRecord& job, int segment) {
  std::size_t failed_before = 0;
  for (int s = 0; s < segment; ++s) failed_before += job.segments[s].outcome == "failed";
  if (job.segments[segment].outcome != "failed" || failed_before >= job.failures.size()) return nullptr;
  return &job.failures[failed_before];
}

namespace {

std::vector<JobInterval> job_intervals(const JobRecord& j, Seconds run_end) {
  std::vector<JobInterval> out;
  auto add = [&](std::string state, Seconds a, Seconds b, int segment) {
    b = std::min(b, run_end);
    if (b > a) out.push_back({std::move(state), a, b, segment});
  };
  Seconds queued_since = j.submit;
  bool queued = j.submit <= run_end;
  for (std::size_t s = 0; s < j.segments.size(); ++s) {
    const Segment& seg = j.segments[s];
    if (queued) add("queued", queued_since, seg.start, -1);
    Seconds end = seg.end.value_or(run_end);
    const FailureRecord* f = segment_failure(j, static_cast<int>(s));
    if (f && f->fault_time >= seg.start && f->fault_time <= end) {
      add("running", seg.start, f->fault_time, static_cast<int>(s));
      add("failed", f->fault_time, end, static_cast<int>(s));
    } else {
      add("running", seg.start, end, static_cast<int>(s));
    }
    queued = seg.outcome != "completed" && seg.outcome != "unfinished";
    queued_since = end;
  }
  if (queued && j.state != JobStatus::Abandoned && j.state != JobStatus::Completed)
    add("queued", queued_since, run_end, -1);
  return out;
}

}  // namespace

Timeline build_timeline(const RunRecord& r) {
  Timeline t;
  t.end = r.end_time;
  std::map<std::string, NodeRow, decltype(&natural_less)> rows(&natural_less);
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    const JobRecord& job = r.jobs[j];
    t.jobs.push_back(job_intervals(job, r.end_time));
    for (std::size_t s = 0; s < job.segments.size(); ++s) {
      const Segment& seg = job.segments[s];
      for (const auto& node : seg.nodes) {
        NodeRow& row = rows[node];
        row.name = node;
        row.bars.push_back({static_cast<int>(j), static_cast<int>(s), 0, seg.start, seg.end.value_or(r.end_time)});
      }
    }
  }
  std::map<std::string, Seconds> down_since;
  for (const auto& d : r.decisions) {
    if (d.kind != "node_down" && d.kind != "node_up") continue;
    for (const auto& node : d.nodes) {
      NodeRow& row = rows[node];
      row.name = node;
      if (d.kind == "node_down") {
        down_since.emplace(node, d.t);
      } else if (auto it = down_since.find(node); it != down_since.end()) {
        row.down.push_back({it->second, d.t});
        down_since.erase(it);
      }
    }
  }
  for (const auto& [node, since] : down_since) rows[node].down.push_back({since, r.end_time});

  for (auto& [name, row] : rows) {
    std::stable_sort(row.bars.begin(), row.bars.end(), [](const NodeBar& a, const NodeBar& b) {
      return a.start != b.start ? a.start < b.start : a.job < b.job;
    });
    std::vector<Seconds> lane_free;
    for (auto& bar : row.bars) {
      auto lane = std::find_if(lane_free.begin(), lane_free.end(), [&](Seconds f) { return f <= bar.start; });
      if (lane == lane_free.end()) lane = lane_free.insert(lane_free.end(), bar.start);
      *lane = bar.end;
      bar.lane = static_cast<int>(lane - lane_free.begin());
    }
    row.lanes = std::max<int>(1, static_cast<int>(lane_free.size()));
    t.nodes.push_back(std::move(row));
  }
  return t;
}

}  // namespace tt
