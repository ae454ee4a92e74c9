#include "reports/csv.hpp"

#include <optional>
#include <sstream>

#include "reports/text.hpp"

namespace tt {
namespace {

std::string cell(const std::optional<Seconds>& s) { return s ? format_number(s->value) : std::string(); }

}  // namespace

std::string series_csv(const RunRecord& r) {
  std::ostringstream os;
  os << "t_s,gpus_allocated,gpus_up,jobs_running,jobs_pending\n";
  for (const auto& s : r.series)
    os << format_number(s.t.value) << ',' << s.gpus_allocated << ',' << s.gpus_up << ',' << s.jobs_running << ','
       << s.jobs_pending << '\n';
  return os.str();
}

std::string jobs_csv(const RunRecord& r) {
  std::ostringstream os;
  os << "name,queue,gpus,priority,state,submit_s,start_s,end_s,wait_s,restarts,failures,iterations_target,"
        "iterations_done,checkpoints,checkpoint_time_s,predicted_iteration_s,measured_iteration_s,productive_s,ettr,"
        "lost_gpu_hours\n";
  for (const auto& j : r.jobs)
    os << csv_field(j.name) << ',' << csv_field(j.queue) << ',' << j.gpus << ',' << j.priority << ','
       << csv_field(j.state) << ',' << format_number(j.submit.value) << ',' << cell(j.first_start) << ',' << cell(j.end)
       << ',' << format_number(j.wait.value) << ',' << j.restarts << ',' << j.failures.size() << ','
       << j.iterations_target << ',' << j.iterations_done << ',' << j.checkpoints << ','
       << format_number(j.checkpoint_time.value) << ',' << format_number(j.predicted_iteration.value) << ','
       << format_number(j.measured_iteration.value) << ',' << format_number(j.productive_seconds) << ','
       << format_number(j.ettr) << ',' << format_number(j.lost_gpu_hours) << '\n';
  return os.str();
}

}  // namespace tt
