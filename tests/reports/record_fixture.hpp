// Hand-built RunRecords for the report tests: sample_record() is small enough to assert exact figures (2 nodes, 2 jobs,
// a node crash under train-a with detection and a restart on another node, 3 checkpoints, 3 checks of which one
// fails); busy_record() looks like a real morning on 16 nodes, for the rendering check.
#pragma once

#include <string>

#include "core/control/run_record.hpp"

namespace tt::testing {

inline Segment segment(int attempt, double start, std::optional<double> end, std::vector<std::string> nodes,
                       std::int64_t from, std::int64_t reached, std::string outcome) {
  Segment s;
  s.attempt = attempt;
  s.start = Seconds(start);
  if (end) s.end = Seconds(*end);
  s.nodes = std::move(nodes);
  s.start_iteration = from;
  s.reached_iteration = reached;
  s.iteration_time = Seconds(10);
  s.outcome = std::move(outcome);
  return s;
}

inline Decision decision(double t, std::string kind, std::string job, std::vector<std::string> nodes,
                         std::string reason) {
  return Decision{Seconds(t), std::move(kind), std::move(job), std::move(nodes), std::move(reason)};
}

inline RunRecord sample_record() {
  RunRecord r;
  r.scenario = "mini";
  r.scenario_file = "scenarios/mini.json";
  r.seed = 7;
  r.driver = "sim";
  r.driver_info = {{"network/model", "CM02"}, {"simgrid", "3.32"}};
  r.total_gpus = 16;
  r.end_time = Seconds(6000);
  r.gpu_utilization = 0.61;
  r.goodput = 0.52;

  JobRecord a;
  a.name = "train-a";
  a.queue = "pretrain";
  a.gpus = 8;
  a.priority = 10;
  a.submit = Seconds(0);
  a.first_start = Seconds(0);
  a.end = Seconds(6000);
  a.state = JobStatus::Completed;
  a.restarts = 1;
  a.iterations_target = 500;
  a.iterations_done = 500;
  a.last_checkpoint = 400;
  a.checkpoints = 3;
  a.checkpoint_times = {Seconds(1200), Seconds(2100), Seconds(4000)};
  a.checkpoint_time = Seconds(45);
  a.wait = Seconds(180);
  a.predicted_iteration = Seconds(9.5);
  a.measured_iteration = Seconds(10);
  a.lost_gpu_hours = 1.6;
  a.productive_seconds = 5000;
  a.ettr = 5000.0 / 6000.0;
  a.segments = {segment(0, 0, 2460, {"n1"}, 0, 240, "failed"), segment(1, 2640, 6000, {"n2"}, 200, 500, "completed")};
  a.failures = {FailureRecord{"node n1 crash", Seconds(2400), Seconds(2460), 40, 1.6, "node_crash", "heartbeat", Seconds(2580), Seconds(0), Seconds(60), Seconds(120), false}};

  JobRecord b;
  b.name = "eval-b";
  b.queue = "research";
  b.gpus = 8;
  b.priority = 1;
  b.submit = Seconds(600);
  b.first_start = Seconds(600);
  b.end = Seconds(2500);
  b.state = JobStatus::Completed;
  b.iterations_target = 190;
  b.iterations_done = 190;
  b.predicted_iteration = Seconds(10);
  b.measured_iteration = Seconds(10);
  b.productive_seconds = 1900;
  b.ettr = 1;
  b.segments = {segment(0, 600, 2500, {"n2"}, 0, 190, "completed")};
  r.jobs = {a, b};

  r.decisions = {decision(0, "submit", "train-a", {}, "queue pretrain, priority 10, 8 GPUs"),
                 decision(0, "launch", "train-a", {"n1"}, "8 GPUs on 1 node"),
                 decision(600, "submit", "eval-b", {}, "queue research, priority 1, 8 GPUs"),
                 decision(600, "launch", "eval-b", {"n2"}, "8 GPUs on 1 node"),
                 decision(2400, "node_down", "", {"n1"}, "node n1 crash"),
                 decision(2460, "detect", "train-a", {"n1"}, "node n1 crash; declared failed 60.0 s after the fault"),
                 decision(2460, "requeue", "train-a", {}, "at the head of queue pretrain"),
                 decision(2500, "complete", "eval-b", {"n2"}, "190 iterations"),
                 decision(2640, "launch", "train-a", {"n2"}, "8 GPUs on 1 node; resumes at iteration 200"),
                 decision(6000, "node_up", "", {"n1"}, "repaired, back in service"),
                 decision(6000, "complete", "train-a", {"n2"}, "500 iterations")};
  r.series = {{Seconds(0), 8, 16, 1, 0},    {Seconds(600), 16, 16, 2, 0}, {Seconds(2400), 16, 8, 2, 0},
              {Seconds(2460), 8, 8, 1, 1},  {Seconds(2500), 0, 8, 0, 1},  {Seconds(2640), 8, 8, 1, 0},
              {Seconds(6000), 0, 16, 0, 0}};

  CheckResult unfinished{"no unfinished jobs", "cluster.unfinished_jobs", "", "==", 0, 0.0, true,
                         "expected cluster.unfinished_jobs == 0; measured 0"};
  CheckResult restarts{"train-a restarts once", "job.restarts", "train-a", "==", 1, 1.0, true,
                       "expected job.restarts(train-a) == 1; measured 1"};
  CheckResult late{"eval-b ends within 40m", "job.end", "eval-b", "<=", 2400, 2500.0, false,
                   "expected job.end(eval-b) <= 40m 00s; measured 41m 40s"};
  r.checks = {unfinished, restarts, late};
  return r;
}

// 16 nodes x 8 GPUs, six jobs, a node crash at 1h30m under the 64-GPU job, which restarts on other nodes.
inline RunRecord busy_record() {
  RunRecord r = sample_record();
  r.scenario = "busy-morning";
  r.total_gpus = 128;
  r.gpu_utilization = 0.71;
  r.goodput = 0.63;
  auto nodes = [](int from, int count) {
    std::vector<std::string> out;
    for (int i = from; i < from + count; ++i) out.push_back(std::string("n").append(std::to_string(i)));
    return out;
  };
  auto job = [&](std::string name, int gpus, double submit, std::vector<Segment> segs) {
    JobRecord j;
    j.name = std::move(name);
    j.queue = gpus >= 32 ? "pretrain" : "research";
    j.gpus = gpus;
    j.submit = Seconds(submit);
    j.first_start = segs.front().start;
    j.end = segs.back().end;
    j.state = JobStatus::Completed;
    j.segments = std::move(segs);
    j.wait = *j.first_start - j.submit;
    j.measured_iteration = j.predicted_iteration = Seconds(12);
    j.iterations_target = j.iterations_done = j.segments.back().reached_iteration;
    double span = (*j.end - *j.first_start).value;
    j.productive_seconds = span * 0.9;
    j.ettr = 0.9;
    return j;
  };
  JobRecord pre = job("pretrain-70b", 64, 0,
                      {segment(0, 0, 5460, nodes(0, 8), 0, 450, "failed"),
                       segment(1, 5460, 15800, nodes(8, 8), 300, 1200, "completed")});
  pre.restarts = 1;
  pre.failures = {FailureRecord{"node n3 crash", Seconds(5400), Seconds(5460), 150, 21.3, "node_crash", "heartbeat", Seconds(5580), Seconds(0), Seconds(60), Seconds(120), false}};
  pre.lost_gpu_hours = 21.3;
  pre.checkpoints = 5;
  pre.checkpoint_times = {Seconds(1800), Seconds(3600), Seconds(7260), Seconds(9060), Seconds(10860)};
  pre.checkpoint_time = Seconds(150);
  pre.ettr = 0.82;
  JobRecord ft = job("finetune-8b", 16, 0, {segment(0, 0, 4200, nodes(8, 2), 0, 1500, "completed")});
  ft.checkpoints = 2;
  ft.checkpoint_times = {Seconds(1400), Seconds(2800)};
  JobRecord ev = job("eval-8b", 8, 1200, {segment(0, 1200, 2400, nodes(10, 1), 0, 400, "completed")});
  JobRecord sa = job("sweep-8b-a", 16, 2700, {segment(0, 2700, 5200, nodes(11, 2), 0, 800, "completed")});
  JobRecord sb = job("sweep-8b-b", 16, 2700, {segment(0, 2700, 5300, nodes(13, 2), 0, 800, "completed")});
  JobRecord sft = job("sft-70b", 32, 3600, {segment(0, 5460, 12500, nodes(0, 3), 0, 150, "completed")});
  sft.segments[0].nodes.push_back("n4");
  r.jobs = {pre, ft, ev, sa, sb, sft};
  r.decisions.clear();
  r.decisions.push_back(decision(5400, "node_down", "", {"n3"}, "node n3 crash"));
  r.decisions.push_back(decision(12600, "node_up", "", {"n3"}, "repaired, back in service"));
  r.series = {{Seconds(0), 80, 128, 2, 0},    {Seconds(1200), 88, 128, 3, 0},  {Seconds(2400), 80, 128, 2, 0},
              {Seconds(2700), 112, 128, 4, 0}, {Seconds(3600), 112, 128, 4, 1}, {Seconds(4200), 96, 128, 3, 1},
              {Seconds(5200), 80, 128, 2, 1},  {Seconds(5300), 64, 128, 1, 1},  {Seconds(5400), 64, 120, 1, 1},
              {Seconds(5460), 96, 120, 2, 0},  {Seconds(12500), 64, 120, 1, 0}, {Seconds(12600), 64, 128, 1, 0},
              {Seconds(15800), 0, 128, 0, 0}};
  r.end_time = Seconds(15800);
  return r;
}

// A fleet: `jobs` jobs of 8 GPUs in three queues (a, b, c in turn) on 96 nodes over ten days, a job every 25 minutes,
// job i waiting i % 7 x 10 minutes and running 6 hours on node i % 96; every fifth job fails once (a GPU failure,
// 16 lost GPU-hours) and restarts on the next node. Deterministic, with figures a test can work out by hand.
inline RunRecord fleet_record(int jobs) {
  RunRecord r;
  r.scenario = "fleet";
  r.driver = "sim";
  r.total_gpus = 768;
  r.end_time = Seconds(10 * 86400);
  const char* queues[] = {"a", "b", "c"};
  for (int i = 0; i < jobs; ++i) {
    JobRecord j;
    j.name = "job-" + std::to_string(i);
    j.queue = queues[i % 3];
    j.gpus = 8;
    j.submit = Seconds(i * 1500.0);
    j.wait = Seconds((i % 7) * 600.0);
    const double start = j.submit.value + j.wait.value;
    j.first_start = Seconds(start);
    const std::string node = "n" + std::to_string(i % 96), next = "n" + std::to_string((i + 1) % 96);
    if (i % 5 == 0) {
      j.segments = {segment(0, start, start + 3600, {node}, 0, 300, "failed"),
                    segment(1, start + 3600, start + 6 * 3600, {next}, 200, 1800, "completed")};
      j.failures = {FailureRecord{"GPU " + node + "/gpu0 failed", Seconds(start + 3500), Seconds(start + 3600), 100, 16,
                                  "gpu_failure", "heartbeat", Seconds(start + 3900), Seconds(0), Seconds(100),
                                  Seconds(300), false}};
      j.lost_gpu_hours = 16;
      j.restarts = 1;
    } else {
      j.segments = {segment(0, start, start + 6 * 3600, {node}, 0, 1800, "completed")};
    }
    j.end = j.segments.back().end;
    j.state = JobStatus::Completed;
    j.ettr = i % 5 == 0 ? 0.9 : 1.0;
    j.productive_seconds = 6 * 3600 * j.ettr;
    j.pending_by_reason = {{"quota", j.wait}};
    r.jobs.push_back(std::move(j));
  }
  r.series = {{Seconds(0), 0, 768, 0, 0}, {Seconds(10 * 86400), 0, 768, 0, 0}};
  return r;
}

}  // namespace tt::testing
