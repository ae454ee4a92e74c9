#include "reports/trace.hpp"

#include <cmath>
#include <cstdint>

#include "reports/timeline.hpp"

namespace tt {
namespace {

using nlohmann::json;

std::int64_t us(Seconds t) { return std::llround(t.value * 1e6); }

json metadata(const char* what, int pid, int tid, json args) {
  json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

json slice(std::string name, std::string cat, int pid, int tid, Seconds start, Seconds end, json args) {
  return {{"ph", "X"},  {"name", std::move(name)}, {"cat", std::move(cat)},      {"pid", pid},
          {"tid", tid}, {"ts", us(start)},         {"dur", us(end) - us(start)}, {"args", std::move(args)}};
}

json instant(std::string name, std::string cat, int pid, int tid, Seconds t, json args) {
  return {{"ph", "i"},  {"s", "t"},    {"name", std::move(name)}, {"cat", std::move(cat)}, {"pid", pid},
          {"tid", tid}, {"ts", us(t)}, {"args", std::move(args)}};
}

void add_thread(json& events, int pid, int tid, const std::string& name) {
  events.push_back(metadata("thread_name", pid, tid, {{"name", name}}));
  events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
}

// Thread ids are unique across both processes: Perfetto treats a tid seen under a second pid as a new thread.
int add_nodes(json& events, const RunRecord& r, const Timeline& tl) {
  int tid = 0;
  for (const auto& row : tl.nodes) {
    const int first = tid + 1;
    for (int lane = 0; lane < row.lanes; ++lane) {
      std::string name = lane == 0 ? row.name : row.name + " #" + std::to_string(lane + 1);
      add_thread(events, kTraceNodesPid, first + lane, name);
    }
    tid += row.lanes;
    for (const auto& bar : row.bars) {
      const JobRecord& job = r.jobs[bar.job];
      const Segment& seg = job.segments[bar.segment];
      events.push_back(slice(job.name, "segment", kTraceNodesPid, first + bar.lane, bar.start, bar.end,
                             {{"attempt", seg.attempt},
                              {"outcome", seg.outcome},
                              {"gpus", job.gpus},
                              {"start_iteration", seg.start_iteration},
                              {"reached_iteration", seg.reached_iteration}}));
      if (const FailureRecord* f = segment_failure(job, bar.segment))
        events.push_back(instant("fault", "failure", kTraceNodesPid, first + bar.lane, f->fault_time,
                                 {{"job", job.name}, {"cause", f->cause}}));
    }
    for (const auto& d : row.down) {
      events.push_back(instant("node down", "node", kTraceNodesPid, first, d.start, json::object()));
      if (d.end < tl.end) events.push_back(instant("node up", "node", kTraceNodesPid, first, d.end, json::object()));
    }
  }
  return tid;
}

void add_jobs(json& events, const RunRecord& r, const Timeline& tl, int first_tid) {
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    const JobRecord& job = r.jobs[j];
    const int tid = first_tid + static_cast<int>(j);
    add_thread(events, kTraceJobsPid, tid, job.name);
    for (const auto& iv : tl.jobs[j]) {
      json args = {{"gpus", job.gpus}};
      if (iv.segment >= 0) args["attempt"] = job.segments[iv.segment].attempt;
      events.push_back(slice(iv.state, "job", kTraceJobsPid, tid, iv.start, iv.end, std::move(args)));
    }
    for (std::size_t c = 0; c < job.checkpoint_times.size(); ++c)
      events.push_back(
          instant("checkpoint", "checkpoint", kTraceJobsPid, tid, job.checkpoint_times[c], {{"n", c + 1}}));
    for (const auto& f : job.failures) {
      events.push_back(instant("fault", "failure", kTraceJobsPid, tid, f.fault_time, {{"cause", f.cause}}));
      events.push_back(instant("detected", "failure", kTraceJobsPid, tid, f.detect_time,
                               {{"time_to_detect_s", (f.detect_time - f.fault_time).value},
                                {"lost_iterations", f.lost_iterations},
                                {"lost_gpu_hours", f.lost_gpu_hours}}));
    }
  }
}

}  // namespace

json trace_json(const RunRecord& r) {
  Timeline tl = build_timeline(r);
  json events = json::array();
  events.push_back(metadata("process_name", kTraceNodesPid, -1, {{"name", "nodes"}}));
  events.push_back(metadata("process_sort_index", kTraceNodesPid, -1, {{"sort_index", kTraceNodesPid}}));
  events.push_back(metadata("process_name", kTraceJobsPid, -1, {{"name", "jobs"}}));
  events.push_back(metadata("process_sort_index", kTraceJobsPid, -1, {{"sort_index", kTraceJobsPid}}));
  int node_tracks = add_nodes(events, r, tl);
  add_jobs(events, r, tl, node_tracks + 1);
  return {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ms"},
      {"otherData", {{"scenario", r.scenario}, {"seed", r.seed}, {"driver", r.driver}, {"clock", "simulated time"}}}};
}

}  // namespace tt
