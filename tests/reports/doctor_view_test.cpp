// The report writers that stream (report.json, report.html, events.jsonl, decisions.txt) give the bytes of their
// whole-string forms (events.jsonl: of its lines made from LogEvent objects), and the doctor of report.html
// (diagnose_record: a slim view of the record) says what the doctor says from report.json, on a record whose waiting
// jobs change reason many times.
#include <catch2/catch.hpp>
#include <sstream>

#include "reports/decision_log.hpp"
#include "reports/doctor.hpp"
#include "reports/events.hpp"
#include "reports/html.hpp"
#include "reports/report.hpp"
#include "tests/reports/record_fixture.hpp"

using namespace tt;
using tt::testing::decision;

namespace {

// sample_record() and a job that waits 2 hours, its reason moving between quota, capacity, fragmentation and a
// reservation many times; a straggler notice among them, and one for eval-b, whose own last reason names no quota.
RunRecord waiting_record() {
  RunRecord r = tt::testing::sample_record();
  JobRecord w;
  w.name = "wait-c";
  w.queue = "research";
  w.gpus = 16;
  w.submit = Seconds(100);
  w.state = JobStatus::Unfinished;
  w.wait = Seconds(7200);
  w.pending_by_reason = {{"quota", Seconds(4000)}, {"capacity", Seconds(2000)}, {"fragmentation", Seconds(1200)}};
  w.predicted_iteration = Seconds(10);
  r.jobs.push_back(w);
  const char* reasons[] = {
      "quota of queue research exhausted: 8 of 8 GPUs in use, 16 needed",
      "waiting for 2 whole nodes (16 GPUs): 0 whole nodes free, 0 GPUs free in all",
      "fragmentation: 8 GPUs free across 2 nodes, but only 0 whole nodes, 2 needed",
      "behind the reservation of train-a until 1h 40m (backfill: this job would not end before it and needs its GPUs)",
  };
  double t = 100;
  for (int round = 0; round < 40; ++round)
    for (int k = 0; k < 4; ++k) {
      const int which = (round + k) % 4;
      std::string reason = reasons[which];
      if (which == 0) reason = reason.substr(0, reason.size() - 9) + std::to_string(16 + round) + " needed";
      r.decisions.push_back(decision(t += 7, "pending", "wait-c", {}, reason));
    }
  r.decisions.push_back(decision(t += 7, "pending", "eval-b", {}, "straggler fallback on n2 noticed"));
  r.decisions.push_back(decision(t += 7, "pending", "eval-b", {}, "waiting for 8 GPUs on one node: 0 free"));
  r.decisions.push_back(decision(t += 7, "pending", "wait-c", {}, reasons[1]));
  return r;
}

// events.jsonl line by line from the LogEvent objects (event_json_line), which `traintwin logs --json` prints.
std::string event_lines(const RunRecord& r) {
  std::string out;
  for (const auto& d : r.decisions) out += event_json_line(log_event(d));
  return out;
}

std::string streamed(void (*write)(std::ostream&, const RunRecord&), const RunRecord& r) {
  std::ostringstream os;
  write(os, r);
  return os.str();
}

}  // namespace

TEST_CASE("streamed report views are the bytes of the whole-string ones", "[unit][reports]") {
  // Names and reasons to escape, nodes, an empty reason, times without a fraction and with many digits.
  RunRecord odd = tt::testing::sample_record();
  odd.decisions.push_back(decision(6000.125, "abandon", "odd \"job\"\n\\name \u00e9", {"n1", "n2", "n3"}, ""));
  odd.decisions.push_back(decision(0, "node_down", "", {"n\t0"}, "tab\there, <html> & \"quotes\""));
  odd.decisions.push_back(decision(1.0 / 3.0, "launch", "j", {}, "x"));
  for (const RunRecord& r : {tt::testing::sample_record(), waiting_record(), odd, RunRecord{}}) {
    CHECK(streamed(write_report_json, r) == report_json(r).dump(2) + "\n");
    CHECK(streamed(write_report_html, r) == report_html(r));
    CHECK(streamed(write_events_jsonl, r) == event_lines(r));
    CHECK(events_jsonl(r) == event_lines(r));
    CHECK(streamed(write_decision_log, r) == decision_log_text(r));
  }
  // events.jsonl replaces bytes that are not UTF-8 (report.json refuses them, both ways).
  RunRecord bad;
  bad.decisions.push_back(decision(1, "submit", "bad\xFF", {"n\xFE"}, "x\xC3"));
  CHECK(streamed(write_events_jsonl, bad) == event_lines(bad));
  CHECK_THROWS(streamed(write_report_json, bad));
  CHECK_THROWS(report_json(bad).dump(2));
}

TEST_CASE("report.html's doctor reads a slim record and says what the doctor says from report.json",
          "[unit][reports][doctor]") {
  const RunRecord r = waiting_record();
  DoctorInput in;
  in.report = report_json(r);
  const Diagnosis from_json = diagnose(in);
  const Diagnosis from_record = diagnose_record(r);
  CHECK(diagnosis_json(from_record) == diagnosis_json(from_json));
  // Not a vacuous comparison: the long wait is found, with its last quota reason as the scheduler's words.
  const std::string text = diagnosis_text(from_record);
  CHECK_THAT(text, Catch::Contains("wait-c"));
  CHECK_THAT(text, Catch::Contains("55 needed"));
}
