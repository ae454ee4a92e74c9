#include "fuzz/readers.hpp"

#include <sstream>
#include <stdexcept>

#include "core/calib/cpu_twin.hpp"
#include "core/calib/measurement.hpp"
#include "core/calib/run_comparison.hpp"
#include "core/io/inventory_reader.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/observed_events.hpp"
#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/trace_reader.hpp"
#include "core/telemetry/alert_expr.hpp"
#include "reports/diff.hpp"

namespace tt::fuzz {
namespace {

// A small cluster (one queue, two priority classes, 4 x 8 H100) into which the workload reader's input is set as the
// "workload" section, so that the generator expands it against a real cluster.
const char* const kWorkloadScenario = R"({
  "name": "fuzz-workload",
  "topology": {"name": "rail-4x8", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 4, "gpus_per_node": 8,
               "nic_bandwidth": "400Gbps", "nodes_per_group": 4, "spines": 2, "oversubscription": 1,
               "storage": {"bandwidth": "100GB/s"}},
  "queues": [{"name": "research", "gpu_quota": 32}],
  "priority_classes": [{"name": "high", "value": 100}, {"name": "low", "value": 1}]
})";

void alert_expr(const std::string& text) {
  std::string error;
  const auto condition = parse_alert_expr(text, error);
  if (!condition) {
    if (error.empty()) throw std::logic_error("an alert expression rejected without an error message");
    return;
  }
  const std::string once = to_promql(*condition);
  const auto again = parse_alert_expr(once, error);
  if (!again) throw std::logic_error("to_promql wrote an expression its parser rejects: " + once + " (" + error + ")");
  if (to_promql(*again) != once) throw std::logic_error("to_promql does not round-trip: " + once);
}

// The input against itself, or, when a line "---" splits it, its first part as the base and the rest as the new
// report; then the table, as `traintwin diff` prints it.
void diff(const std::string& text) {
  const auto split = text.find("\n---\n");
  const nlohmann::json base = parse_json_text(text.substr(0, split), "BASE");
  const nlohmann::json now = split == std::string::npos ? base : parse_json_text(text.substr(split + 5), "NEW");
  const ReportDiff d = diff_reports(base, now, DiffOptions{}, "BASE", "NEW");
  diff_table(d);
  if (split == std::string::npos && diff_exit_code(d) != kDiffOk)
    throw std::logic_error("a report regresses against itself");
}

// `traintwin calibrate --from-run`: the run's measurements, the twin fitted to them and its error report.
void run_measurements(const std::string& text) {
  const RunMeasurements run = parse_run_measurements(text, "measurements.jsonl");
  if (run.launches.empty() || run.samples.empty()) return;  // load_run_measurements refuses it
  const CpuTwin twin = fit_cpu_twin(run);
  for (const PhaseError& e : prediction_errors(twin, run))
    if (e.samples <= 0 || e.histogram.size() != std::size(kErrorBins) + 1)
      throw std::logic_error("an error row without samples or with a histogram of the wrong size");
}

// `traintwin calibrate --predicted P --measured B`: as diff, the input against itself (every error 0) or two reports
// split by a line "---".
void run_comparison(const std::string& text) {
  const auto split = text.find("\n---\n");
  const nlohmann::json predicted = parse_json_text(text.substr(0, split), "P");
  const nlohmann::json measured = split == std::string::npos ? predicted : parse_json_text(text.substr(split + 5), "B");
  const RunComparison c = compare_runs(predicted, "P", measured, "B");
  if (split == std::string::npos)
    for (const JobComparison& j : c.jobs)
      for (const FigurePair& f : j.figures)
        if (auto e = f.error(); e && *e != 0) throw std::logic_error("a run compared with itself has an error");
}

}  // namespace

const std::vector<std::string>& reader_names() {
  static const std::vector<std::string> names = {"scenario",  "topology",   "workload",  "alert_expr", "inventory",
                                                 "matrix",    "nccl_tests", "tuner_csv", "diff",       "observed_log",
                                                 "trace",     "run_measurements", "run_comparison"};
  return names;
}

void read_input(const std::string& reader, const std::string& text, const std::string& source_dir) {
  if (reader == "scenario") {
    const std::string file = source_dir + "/scenarios/fuzz-input.json";
    read_scenario(parse_json_text(text, file), file);
  } else if (reader == "topology") {
    read_topology(parse_json_text(text, "topology.json"), "topology.json", "");
  } else if (reader == "workload") {
    nlohmann::json doc = parse_json_text(kWorkloadScenario, "fuzz-workload.json");
    doc["workload"] = parse_json_text(text, "fuzz-workload.json#/workload");
    read_scenario(doc, "fuzz-workload.json");
  } else if (reader == "alert_expr") {
    alert_expr(text);
  } else if (reader == "inventory") {
    read_inventory(parse_json_text(text, "inventory.json"), "inventory.json");
  } else if (reader == "matrix") {
    read_matrix(parse_json_text(text, "matrix.json"), "matrix.json");
  } else if (reader == "nccl_tests") {  // JSON (-J) when it opens with '{', as load_measurements decides
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{')
      parse_nccl_tests_json(text, "nccl-tests.json");
    else
      parse_nccl_tests_text(text, "nccl-tests.log");
  } else if (reader == "tuner_csv") {  // and the published bus-bandwidth tables, which name their column
    if (text.find("busbw_GBps") != std::string::npos)
      parse_busbw_table(text, "table.busbw.csv");
    else
      parse_tuner_csv(text, "tuner.csv");
  } else if (reader == "diff") {
    diff(text);
  } else if (reader == "observed_log") {  // as `traintwin replay` reads it, against the quickstart scenario
    static const Scenario quickstart = read_scenario_file(source_dir + "/scenarios/quickstart.json");
    std::istringstream in(text);
    read_observed_log(in, "observed.jsonl", &quickstart);
  } else if (reader == "trace") {  // `traintwin import`: the same text as each format, refused rows and skipped ones
    for (TraceFormat format : {TraceFormat::Sacct, TraceFormat::Acme, TraceFormat::Helios})
      for (bool skip_invalid : {false, true}) try {
          read_trace_text(text, "trace.csv", format, skip_invalid);
        } catch (const InputError& e) {
          if (e.expected().empty()) throw;  // the target's contract: a refusal says what was expected
        }
  } else if (reader == "run_measurements") {
    run_measurements(text);
  } else if (reader == "run_comparison") {
    run_comparison(text);
  } else {
    throw std::invalid_argument("no reader named " + reader);
  }
}

}  // namespace tt::fuzz
