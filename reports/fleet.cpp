#include "reports/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "reports/svg.hpp"
#include "reports/text.hpp"

namespace tt {
namespace {

constexpr double kPlotWidth = kChartWidth - kChartLeft - kChartRight;

std::string n(double v) { return format_fixed(v, 1); }
std::string esc(std::string_view s) { return xml_escape(s); }
std::string when(double seconds) { return format_duration(seconds); }
std::string percent(double ratio) { return format_fixed(100 * ratio, 1) + "%"; }

// The wall time of every attempt of a job, times its GPUs: what the job held, failed attempts included.
double allocated_gpu_hours(const JobRecord& j, Seconds run_end) {
  double seconds = 0;
  for (const auto& s : j.segments) seconds += std::max(0.0, (s.end.value_or(run_end) - s.start).value);
  return seconds * j.gpus / 3600;
}

// A horizontal value axis (grid lines and labels) for a plot whose y runs from `bottom` (0) up to `top` (y_max).
std::string value_axis(double y_max, double step, double top, double bottom, const std::string& title) {
  std::ostringstream os;
  auto y = [&](double v) { return bottom - (bottom - top) * v / y_max; };
  os << "<g class=\"axis\">";
  for (double v = 0; v <= y_max * (1 + 1e-9); v += step)
    os << "<line x1=\"" << n(kChartLeft) << "\" y1=\"" << n(y(v)) << "\" x2=\"" << n(kChartLeft + kPlotWidth)
       << "\" y2=\"" << n(y(v)) << "\" class=\"grid\"/><text x=\"" << n(kChartLeft - 8) << "\" y=\"" << n(y(v) + 4)
       << "\" text-anchor=\"end\">" << format_number(v) << "</text>";
  os << "<text transform=\"translate(" << n(kChartLeft - 52) << " " << n((top + bottom) / 2)
     << ") rotate(-90)\" text-anchor=\"middle\" class=\"axis-title\">" << esc(title) << "</text></g>";
  return os.str();
}

// Legend entries right-aligned along the top of a chart, in the given order.
std::string chart_legend(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::ostringstream os;
  double x = kChartLeft + kPlotWidth;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    x -= 7.0 * it->first.size() + 34;
    os << "<rect x=\"" << n(x) << "\" y=\"8\" width=\"22\" height=\"10\" fill=\"" << it->second << "\"/><text x=\""
       << n(x + 27) << "\" y=\"18\">" << esc(it->first) << "</text>";
  }
  return os.str();
}

// A 1-2-5 x 10^k step giving 5 to 10 ticks over `range`, for ranges of any size.
double decimal_step(double range) {
  const double unit = std::pow(10.0, std::floor(std::log10(range / 5)));
  for (double k : {1.0, 2.0, 5.0})
    if (range / (k * unit) <= 10) return k * unit;
  return 10 * unit;
}

struct CdfLine {
  std::string label;
  std::string color;
  const std::vector<double>* sorted;
};

// Empirical CDFs on one chart: for each x, the share of the sample at or below it. x runs from x_min to x_max, as
// times (time tick labels) or plain numbers. Values outside are drawn at the edge. Consecutive points that fall on the
// same half pixel are merged, so the size does not grow with the sample.
std::string cdf_svg(const std::string& x_title, const std::vector<CdfLine>& lines, double x_min, double x_max,
                    bool times) {
  constexpr double kTop = 28, kPlotHeight = 170, kHeight = kTop + kPlotHeight + 44;
  const double bottom = kTop + kPlotHeight;
  if (x_max <= x_min) x_max = x_min + (times ? 60 : 1);
  auto x = [&](double v) { return kChartLeft + std::clamp((v - x_min) / (x_max - x_min), 0.0, 1.0) * kPlotWidth; };
  auto y = [&](double share) { return bottom - kPlotHeight * share; };

  std::ostringstream os;
  os << "<svg class=\"chart cdf\" viewBox=\"0 0 " << n(kChartWidth) << " " << n(kHeight) << "\" role=\"img\"><title>"
     << esc(x_title) << ": cumulative share of jobs</title>";
  os << value_axis(1, 0.25, kTop, bottom, "share of jobs");
  const double step = times ? nice_time_step(x_max - x_min) : decimal_step(x_max - x_min);
  os << "<g class=\"axis\">";
  for (double v = x_min; v <= x_max * (1 + 1e-9) + 1e-12; v += step)
    os << "<line x1=\"" << n(x(v)) << "\" y1=\"" << n(kTop) << "\" x2=\"" << n(x(v)) << "\" y2=\"" << n(bottom)
       << "\" class=\"grid\"/><text x=\"" << n(x(v)) << "\" y=\"" << n(bottom + 15) << "\" text-anchor=\"middle\">"
       << esc(times ? time_tick_label(Seconds(v)) : format_number(std::round(v * 1e6) / 1e6)) << "</text>";
  os << "<line x1=\"" << n(kChartLeft) << "\" y1=\"" << n(bottom) << "\" x2=\"" << n(kChartLeft + kPlotWidth)
     << "\" y2=\"" << n(bottom) << "\" class=\"frame\"/><text x=\"" << n(kChartLeft + kPlotWidth) << "\" y=\""
     << n(bottom + 32) << "\" text-anchor=\"end\" class=\"axis-title\">" << esc(x_title) << "</text></g>";

  std::vector<std::pair<std::string, std::string>> legend;
  for (const auto& line : lines) {
    const auto& v = *line.sorted;
    if (v.empty()) continue;
    legend.emplace_back(line.label, line.color);
    std::ostringstream pts;
    double prev_share = 0, prev_px = x(x_min);
    pts << n(prev_px) << "," << n(y(0));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i + 1 < v.size() && v[i + 1] == v[i]) continue;  // a tie steps once, to its last rank
      const double px = x(v[i]), share = static_cast<double>(i + 1) / static_cast<double>(v.size());
      if (std::round(px * 2) != std::round(prev_px * 2) || i + 1 == v.size()) {
        pts << " " << n(px) << "," << n(y(prev_share)) << " " << n(px) << "," << n(y(share));
        prev_px = px;
      }
      prev_share = share;
    }
    pts << " " << n(kChartLeft + kPlotWidth) << "," << n(y(1));
    os << "<polyline points=\"" << pts.str() << "\" fill=\"none\" stroke=\"" << line.color
       << "\" stroke-width=\"2\"><title>" << esc(line.label) << ": " << v.size() << " jobs</title></polyline>";
  }
  os << chart_legend(legend) << "</svg>";
  return os.str();
}

// A round bin width giving at most ~60 bins over the run.
double bin_width(double end) {
  static constexpr double kBins[] = {60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400,
                                     7 * 86400};
  for (double b : kBins)
    if (end / b <= 60) return b;
  return std::ceil(end / 60 / 86400) * 86400;
}

std::string quantiles_cells(const std::vector<double>& sorted, std::initializer_list<double> qs, bool times) {
  std::ostringstream os;
  for (double q : qs) {
    os << "<td class=\"num\">";
    if (sorted.empty())
      os << "\u2013";
    else
      os << (times ? when(nearest_rank(sorted, q)) : format_fixed(nearest_rank(sorted, q), 3));
    os << "</td>";
  }
  return os.str();
}

}  // namespace

bool use_fleet_view(const RunRecord& r, std::size_t timeline_nodes) {
  return r.jobs.size() > kFleetViewJobs || timeline_nodes > kFleetViewNodes;
}

std::vector<std::string> queue_names(const RunRecord& r) {
  std::vector<std::string> queues;
  for (const auto& j : r.jobs) queues.push_back(j.queue);
  std::sort(queues.begin(), queues.end());
  queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
  return queues;
}

std::vector<int> queue_index(const RunRecord& r, const std::vector<std::string>& queues) {
  std::vector<int> index;
  index.reserve(r.jobs.size());
  for (const auto& j : r.jobs)
    index.push_back(static_cast<int>(std::lower_bound(queues.begin(), queues.end(), j.queue) - queues.begin()));
  return index;
}

double nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

std::vector<QueueSummary> summarize_queues(const RunRecord& r) {
  const auto queues = queue_names(r);
  const auto index = queue_index(r, queues);
  std::vector<QueueSummary> out(queues.size());
  for (std::size_t q = 0; q < queues.size(); ++q) out[q].queue = queues[q];
  const double capacity = static_cast<double>(r.total_gpus) * r.end_time.value / 3600;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobRecord& j = r.jobs[i];
    QueueSummary& s = out[static_cast<std::size_t>(index[i])];
    ++s.jobs;
    s.started += j.first_start.has_value();
    s.completed += j.state == JobStatus::Completed;
    s.gpu_hours += allocated_gpu_hours(j, r.end_time);
    s.lost_gpu_hours += j.lost_gpu_hours;
    s.restarts += j.restarts;
    s.preemptions += j.preemptions;
    s.waits.push_back(j.wait.value);
    if (j.first_start) s.ettrs.push_back(j.ettr);
  }
  for (auto& s : out) {
    s.cluster_share = capacity > 0 ? s.gpu_hours / capacity : 0;
    std::sort(s.waits.begin(), s.waits.end());
    std::sort(s.ettrs.begin(), s.ettrs.end());
  }
  return out;
}

std::string fleet_summary_section(const RunRecord& r) {
  const auto queues = summarize_queues(r);
  std::ostringstream os;
  os << "<section id=\"queues\"><h2>Queues</h2><p class=\"note\">" << r.jobs.size() << " jobs in " << queues.size()
     << " queue(s). GPU-hours: every attempt's wall time times the job's GPUs, failed attempts included; share: of "
        "the cluster's "
     << r.total_gpus
     << " GPUs over the whole run. Quantiles are nearest-rank over the queue's jobs (wait: every job; ETTR: jobs that "
        "started).</p>";
  os << "<div class=\"wide\"><table class=\"queues\"><thead><tr><th>Queue</th><th class=\"num\">Jobs</th><th "
        "class=\"num\">Started</th><th class=\"num\">Completed</th><th class=\"num\">GPU-h</th><th "
        "class=\"num\">Share</th><th class=\"num\">Wait p50</th><th class=\"num\">Wait p95</th><th class=\"num\">Wait "
        "max</th><th class=\"num\">ETTR p10</th><th class=\"num\">ETTR p50</th><th class=\"num\">Lost GPU-h</th><th "
        "class=\"num\">Restarts</th><th class=\"num\">Preemptions</th></tr></thead><tbody>";
  for (std::size_t q = 0; q < queues.size(); ++q) {
    const auto& s = queues[q];
    os << "<tr><td class=\"name\"><span class=\"sw\" style=\"background:" << queue_color(static_cast<int>(q))
       << "\"></span>" << esc(s.queue) << "</td><td class=\"num\">" << s.jobs << "</td><td class=\"num\">" << s.started
       << "</td><td class=\"num\">" << s.completed << "</td><td class=\"num\">" << format_fixed(s.gpu_hours, 0)
       << "</td><td class=\"num\">" << percent(s.cluster_share) << "</td>" << quantiles_cells(s.waits, {0.5, 0.95, 1}, true)
       << quantiles_cells(s.ettrs, {0.1, 0.5}, false) << "<td class=\"num\">" << format_fixed(s.lost_gpu_hours, 1)
       << "</td><td class=\"num\">" << s.restarts << "</td><td class=\"num\">" << s.preemptions << "</td></tr>";
  }
  os << "</tbody></table></div></section>";
  return os.str();
}

std::string queue_usage_chart(const RunRecord& r) {
  // Average GPUs held per queue over each of kBuckets equal slices of the run: the integral of allocation over the
  // slice divided by its width, so that a short burst shows as its share of the slice and the page stays small.
  constexpr int kBuckets = 600;
  const auto queues = queue_names(r);
  const auto index = queue_index(r, queues);
  const double end = std::max(r.end_time.value, 1e-9), width = end / kBuckets;
  std::vector<std::vector<double>> gpu_seconds(queues.size(), std::vector<double>(kBuckets, 0.0));
  for (std::size_t i = 0; i < r.jobs.size(); ++i)
    for (const auto& seg : r.jobs[i].segments) {
      const double a = std::clamp(seg.start.value, 0.0, end), b = std::clamp(seg.end.value_or(r.end_time).value, a, end);
      for (int k = std::min(kBuckets - 1, static_cast<int>(a / width)); k < kBuckets && k * width < b; ++k) {
        const double overlap = std::min(b, (k + 1) * width) - std::max(a, k * width);
        if (overlap > 0) gpu_seconds[static_cast<std::size_t>(index[i])][static_cast<std::size_t>(k)] += overlap * r.jobs[i].gpus;
      }
    }
  // Stacked: line q is the sum of queues 0..q; drawn filled from the top of the stack down so each band shows.
  std::vector<StepLine> lines;
  std::vector<double> stack(kBuckets, 0.0);
  double y_max = r.total_gpus;
  for (std::size_t q = 0; q < queues.size(); ++q) {
    StepLine line{queues[q], queue_color(static_cast<int>(q)), {}, true, false};
    for (int k = 0; k < kBuckets; ++k) {
      stack[static_cast<std::size_t>(k)] += gpu_seconds[q][static_cast<std::size_t>(k)] / width;
      line.points.emplace_back(Seconds(k * width), stack[static_cast<std::size_t>(k)]);
      y_max = std::max(y_max, stack[static_cast<std::size_t>(k)]);
    }
    lines.push_back(std::move(line));
  }
  std::reverse(lines.begin(), lines.end());
  StepLine up{"GPUs up", "#7f7f7f", {}, false, true};
  for (const auto& s : r.series) up.points.emplace_back(s.t, s.gpus_up);
  lines.push_back(std::move(up));
  return "<h3>GPUs per queue</h3><p class=\"note\">GPUs held by each queue's jobs, stacked (each band is one queue; "
         "averaged over each 1/" +
         std::to_string(kBuckets) + " of the run), against GPUs in service.</p>" +
         step_chart_svg("GPUs", lines, y_max, r.end_time);
}

std::string fleet_distributions_section(const RunRecord& r) {
  const auto queues = summarize_queues(r);
  std::vector<double> all_waits, all_ettrs;
  for (const auto& s : queues) {
    all_waits.insert(all_waits.end(), s.waits.begin(), s.waits.end());
    all_ettrs.insert(all_ettrs.end(), s.ettrs.begin(), s.ettrs.end());
  }
  std::sort(all_waits.begin(), all_waits.end());
  std::sort(all_ettrs.begin(), all_ettrs.end());
  std::vector<CdfLine> wait_lines, ettr_lines;
  for (std::size_t q = 0; q < queues.size(); ++q) {
    wait_lines.push_back({queues[q].queue, queue_color(static_cast<int>(q)), &queues[q].waits});
    ettr_lines.push_back({queues[q].queue, queue_color(static_cast<int>(q)), &queues[q].ettrs});
  }
  // ETTR sits near 1 for most jobs: start the axis at the 5th percentile (rounded down to 0.05) so the body of the
  // distribution is readable, and say how many jobs fall left of it.
  const double ettr_min = all_ettrs.empty() ? 0 : std::floor(nearest_rank(all_ettrs, 0.05) * 20) / 20;
  const auto below = std::lower_bound(all_ettrs.begin(), all_ettrs.end(), ettr_min) - all_ettrs.begin();
  std::ostringstream os;
  os << "<section id=\"distributions\"><h2>Wait and ETTR distributions</h2>";
  os << "<h3>Wait time</h3><p class=\"note\">Share of each queue's jobs that waited at most x in total (first wait, "
        "and after failures and preemptions). p50 "
     << when(nearest_rank(all_waits, 0.5)) << ", p95 " << when(nearest_rank(all_waits, 0.95)) << ", max "
     << when(all_waits.empty() ? 0 : all_waits.back()) << " over all jobs.</p>";
  os << cdf_svg("total wait", wait_lines, 0, all_waits.empty() ? 0 : all_waits.back(), true);
  os << "<h3>ETTR</h3><p class=\"note\">Share of each queue's started jobs with an ETTR (productive time / time from "
        "first start to end) at most x.";
  if (below > 0) os << " " << below << " job(s) below " << format_number(ettr_min) << " are drawn at the left edge.";
  os << "</p>" << cdf_svg("ETTR", ettr_lines, ettr_min, 1, false);
  os << "</section>";
  return os.str();
}

std::string fleet_lost_work_section(const RunRecord& r) {
  std::ostringstream os;
  os << "<section id=\"lost\"><h2>Lost GPU-hours by fault kind over time</h2>";
  std::map<std::string, std::vector<double>> by_kind;  // kind -> lost GPU-hours per bin
  const double end = std::max(r.end_time.value, 1.0), width = bin_width(end);
  const auto bins = static_cast<std::size_t>(std::ceil(end / width));
  double total = 0;
  for (const auto& j : r.jobs)
    for (const auto& f : j.failures) {
      auto& row = by_kind[f.kind];
      row.resize(bins, 0.0);
      row[std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, f.fault_time.value) / width))] += f.lost_gpu_hours;
      total += f.lost_gpu_hours;
    }
  if (by_kind.empty()) {
    os << "<p>No job lost work to a failure.</p></section>";
    return os.str();
  }
  std::vector<double> stacked(bins, 0.0);
  for (const auto& [kind, row] : by_kind)
    for (std::size_t b = 0; b < bins; ++b) stacked[b] += row[b];
  const double peak = *std::max_element(stacked.begin(), stacked.end());
  const double step = nice_value_step(std::max(peak, 1e-9));
  const double y_max = std::max(step, std::ceil(peak / step) * step);
  constexpr double kTop = 28, kPlotHeight = 170, kHeight = kTop + kPlotHeight + 44;
  const double bottom = kTop + kPlotHeight, bar_w = kPlotWidth / static_cast<double>(bins);
  os << "<p class=\"note\">" << format_fixed(total, 1) << " GPU-hours lost in all, by the time of the fault, in bins of "
     << when(width) << ": progress since the last checkpoint, detection and restart, times the job's GPUs.</p>";
  os << "<svg class=\"chart lost\" viewBox=\"0 0 " << n(kChartWidth) << " " << n(kHeight)
     << "\" role=\"img\"><title>Lost GPU-hours by fault kind over time</title>"
     << value_axis(y_max, step, kTop, bottom, "lost GPU-h");
  std::vector<double> base(bins, 0.0);
  std::vector<std::pair<std::string, std::string>> legend;
  int color = 0;
  for (const auto& [kind, row] : by_kind) {
    const std::string fill = job_color(color++);
    legend.emplace_back(kind, fill);
    for (std::size_t b = 0; b < bins; ++b) {
      if (row[b] <= 0) continue;
      const double h = kPlotHeight * row[b] / y_max, y = bottom - kPlotHeight * base[b] / y_max - h;
      os << "<rect x=\"" << n(kChartLeft + bar_w * static_cast<double>(b) + 0.5) << "\" y=\"" << n(y) << "\" width=\""
         << n(std::max(1.0, bar_w - 1)) << "\" height=\"" << n(h) << "\" fill=\"" << fill << "\"><title>"
         << esc(kind) << ", " << when(width * static_cast<double>(b)) << " \u2013 "
         << when(width * static_cast<double>(b + 1)) << ": " << format_fixed(row[b], 1) << " GPU-h</title></rect>";
      base[b] += row[b];
    }
  }
  os << "<g class=\"axis\">";
  const double t_step = nice_time_step(end);
  for (int i = 0; i * t_step <= end * (1 + 1e-9); ++i) {
    const double x = kChartLeft + kPlotWidth * std::min(1.0, i * t_step / (width * static_cast<double>(bins)));
    os << "<text x=\"" << n(x) << "\" y=\"" << n(bottom + 15) << "\" text-anchor=\"middle\">"
       << esc(time_tick_label(Seconds(i * t_step))) << "</text>";
  }
  os << "<line x1=\"" << n(kChartLeft) << "\" y1=\"" << n(bottom) << "\" x2=\"" << n(kChartLeft + kPlotWidth)
     << "\" y2=\"" << n(bottom) << "\" class=\"frame\"/><text x=\"" << n(kChartLeft + kPlotWidth) << "\" y=\""
     << n(bottom + 32) << "\" text-anchor=\"end\" class=\"axis-title\">simulated time of the fault</text></g>"
     << chart_legend(legend) << "</svg></section>";
  return os.str();
}

std::string fleet_top_jobs_section(const RunRecord& r, std::size_t top) {
  std::vector<std::size_t> order(r.jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto ranked = [&](auto key) {
    std::vector<std::size_t> v;
    for (std::size_t i : order)
      if (key(r.jobs[i]) > 0) v.push_back(i);
    std::stable_sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return key(r.jobs[a]) > key(r.jobs[b]); });
    if (v.size() > top) v.resize(top);
    return v;
  };
  const auto lost = ranked([](const JobRecord& j) { return j.lost_gpu_hours; });
  const auto waited = ranked([](const JobRecord& j) { return j.wait.value; });
  std::ostringstream os;
  os << "<section id=\"top\"><h2>Jobs that lost or waited the most</h2>";
  os << "<h3>Most work lost to failures</h3>";
  if (lost.empty()) {
    os << "<p>No job lost work.</p>";
  } else {
    os << "<table class=\"top\"><thead><tr><th>Job</th><th>Queue</th><th class=\"num\">GPUs</th><th "
          "class=\"num\">Lost GPU-h</th><th class=\"num\">Failures</th><th class=\"num\">Restarts</th><th>Fault "
          "kinds</th></tr></thead><tbody>";
    for (std::size_t i : lost) {
      const JobRecord& j = r.jobs[i];
      std::map<std::string, int> kinds;
      for (const auto& f : j.failures) ++kinds[f.kind];
      std::string list;
      for (const auto& [k, c] : kinds) list += (list.empty() ? "" : ", ") + k + (c > 1 ? " x" + std::to_string(c) : "");
      os << "<tr><td class=\"name\">" << esc(j.name) << "</td><td>" << esc(j.queue) << "</td><td class=\"num\">"
         << j.gpus << "</td><td class=\"num\">" << format_fixed(j.lost_gpu_hours, 1) << "</td><td class=\"num\">"
         << j.failures.size() << "</td><td class=\"num\">" << j.restarts << "</td><td>" << esc(list) << "</td></tr>";
    }
    os << "</tbody></table>";
  }
  os << "<h3>Longest waits</h3>";
  if (waited.empty()) {
    os << "<p>No job waited.</p>";
  } else {
    os << "<table class=\"top\"><thead><tr><th>Job</th><th>Queue</th><th class=\"num\">GPUs</th><th "
          "class=\"num\">Wait</th><th>Waiting mostly for</th></tr></thead><tbody>";
    for (std::size_t i : waited) {
      const JobRecord& j = r.jobs[i];
      std::string reason = "\u2013";
      double longest = 0;
      for (const auto& [k, s] : j.pending_by_reason)
        if (s.value > longest) {
          longest = s.value;
          reason = k + " (" + when(s.value) + ")";
        }
      os << "<tr><td class=\"name\">" << esc(j.name) << "</td><td>" << esc(j.queue) << "</td><td class=\"num\">"
         << j.gpus << "</td><td class=\"num\">" << when(j.wait.value) << "</td><td>" << esc(reason) << "</td></tr>";
    }
    os << "</tbody></table>";
  }
  os << "</section>";
  return os.str();
}

std::string queue_legend(const RunRecord& r) {
  const auto queues = queue_names(r);
  std::ostringstream os;
  os << "<div class=\"legend\">";
  for (std::size_t q = 0; q < queues.size(); ++q)
    os << "<span><span class=\"sw\" style=\"background:" << queue_color(static_cast<int>(q)) << "\"></span>queue "
       << esc(queues[q]) << "</span>";
  os << "</div>";
  return os.str();
}

}  // namespace tt
