// How a predicted run (traintwin real --twin: the CPU twin standing in for the workers, real/twin_driver.hpp) compares
// with a real run of the same scenario on this machine, job by job, from the two runs' report.json: queue wait, run
// time (first start to end), mean iteration (mean_iteration_s: every iteration of every attempt), mean checkpoint
// write and end, each as measured, predicted and the error predicted / measured - 1; over the jobs, the median and
// worst |error| of each. Sample by sample the twin is judged on the runs' measurements (calibrate --from-run A
// --check B).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tt {

enum class RunFigure { Wait, Run, Iteration, CheckpointWrite, End };
inline constexpr RunFigure kRunFigures[] = {RunFigure::Wait, RunFigure::Run, RunFigure::Iteration,
                                            RunFigure::CheckpointWrite, RunFigure::End};
const char* to_string(RunFigure f);

struct FigurePair {
  std::optional<double> measured, predicted;  // seconds of scenario time; none where the run has none
  std::optional<double> error() const;        // predicted / measured - 1 where both are and measured > 0
};

struct JobComparison {
  std::string job;
  std::string measured_state, predicted_state;
  std::vector<FigurePair> figures;  // by kRunFigures
};

struct FigureSummary {
  RunFigure figure = RunFigure::Run;
  int jobs = 0;  // with an error
  double median_abs = 0, worst_abs = 0;
  std::string worst_job;
};

struct RunComparison {
  std::vector<JobComparison> jobs;  // in the measured report's order
  std::vector<FigureSummary> summary;
};

// Throws InputError naming the file and the JSON pointer for a report that is not traintwin's, and when the two runs'
// jobs differ (another scenario).
RunComparison compare_runs(const nlohmann::json& predicted, const std::string& predicted_file,
                           const nlohmann::json& measured, const std::string& measured_file);

}  // namespace tt
