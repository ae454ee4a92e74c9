#include "reports/csv.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include "reports/text.hpp"

namespace tt {
namespace {

std::string cell(const std::optional<Seconds>& s) { return s ? format_number(s->value) : std::string(); }

}  // namespace

std::string series_csv(const RunRecord& r) {
  // Rows at the union of the state changes (r.series) and the telemetry samples (r.telemetry), each column carrying
  // its latest value forward; telemetry columns are empty before the first sample.
  const TelemetrySeries& tel = r.telemetry;
  std::ostringstream os;
  os << "t_s,gpus_allocated,gpus_up,jobs_running,jobs_pending";
  for (const auto& c : tel.columns) os << ',' << csv_field(c);
  os << '\n';
  std::size_t s = 0, k = 0;
  while (s < r.series.size() || k < tel.times.size()) {
    Seconds t = s < r.series.size() ? r.series[s].t : tel.times[k];
    if (k < tel.times.size() && tel.times[k] < t) t = tel.times[k];
    while (s < r.series.size() && r.series[s].t <= t) ++s;
    while (k < tel.times.size() && tel.times[k] <= t) ++k;
    os << format_number(t.value);
    if (s > 0) {
      const Sample& x = r.series[s - 1];
      os << ',' << x.gpus_allocated << ',' << x.gpus_up << ',' << x.jobs_running << ',' << x.jobs_pending;
    } else {
      os << ",,,,";
    }
    for (std::size_t c = 0; c < tel.columns.size(); ++c) {
      os << ',';
      if (k > 0 && !std::isnan(tel.rows[k - 1][c])) os << format_number(tel.rows[k - 1][c]);
    }
    os << '\n';
  }
  return os.str();
}

std::string jobs_csv(const RunRecord& r) {
  std::ostringstream os;
  os << "name,queue,gpus,priority,state,submit_s,start_s,end_s,wait_s,restarts,failures,iterations_target,"
        "iterations_done,checkpoints,checkpoint_time_s,predicted_iteration_s,measured_iteration_s,productive_s,ettr,"
        "lost_gpu_hours\n";
  for (const auto& j : r.jobs)
    os << csv_field(j.name) << ',' << csv_field(j.queue) << ',' << j.gpus << ',' << j.priority << ','
       << csv_field(to_string(j.state)) << ',' << format_number(j.submit.value) << ',' << cell(j.first_start) << ',' << cell(j.end)
       << ',' << format_number(j.wait.value) << ',' << j.restarts << ',' << j.failures.size() << ','
       << j.iterations_target << ',' << j.iterations_done << ',' << j.checkpoints << ','
       << format_number(j.checkpoint_time.value) << ',' << format_number(j.predicted_iteration.value) << ','
       << format_number(j.measured_iteration.value) << ',' << format_number(j.productive_seconds) << ','
       << format_number(j.ettr) << ',' << format_number(j.lost_gpu_hours) << '\n';
  return os.str();
}

}  // namespace tt
