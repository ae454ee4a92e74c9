// Inline SVG charts for the HTML report (reports/html.cpp): step charts of the cluster series and the per-node Gantt.
// Each function returns one self-contained <svg> element (no external references, no scripts) with escaped text,
// drawn on a shared time axis from 0 to the end of the run so the charts line up. Deterministic.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/control/run_record.hpp"
#include "reports/timeline.hpp"

namespace tt {

// Every chart's frame: its viewBox width and the plot's left and right margins (room for node names on the left, the
// same for every chart so that time axes line up).
inline constexpr double kChartWidth = 1320;
inline constexpr double kChartLeft = 120;
inline constexpr double kChartRight = 24;

struct StepLine {
  std::string label;
  std::string color;
  std::vector<std::pair<Seconds, double>> points;  // by time; the value holds until the next point
  bool filled = false;
  bool dashed = false;
};

std::string step_chart_svg(const std::string& y_label, const std::vector<StepLine>& lines, double y_max, Seconds end);
// With queue_of_job (RunRecord::jobs index -> queue index), the fleet form: bars coloured by queue (queue_color), no
// labels inside bars and no checkpoint ticks.
std::string gantt_svg(const RunRecord& record, const Timeline& timeline,
                      const std::vector<int>* queue_of_job = nullptr);
// The alert timeline: one row per alert rule, a pale bar while pending and a bar coloured by severity while firing
// (critical red, warning orange, info blue), dashed red lines at the faults.
std::string alert_timeline_svg(const RunRecord& record);
const char* severity_color(const std::string& severity);
// The colour of job `job` (index into RunRecord::jobs) in every chart and legend.
std::string job_color(int job);
// The colour of queue `queue` (an index into the queues in name order) in the fleet view.
std::string queue_color(int queue);
// Axis steps: a round time step giving at most 12 ticks up to `end` seconds (1 ms .. 30 days), and a 1-2-5 step
// giving at most 5 ticks up to `max`.
double nice_time_step(double end);
double nice_value_step(double max);
// A compact label for a time on an axis: "0", "45s", "30m", "1h30m", "2d4h".
std::string time_tick_label(Seconds t);

}  // namespace tt
