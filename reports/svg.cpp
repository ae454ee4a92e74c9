#include "reports/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "reports/text.hpp"

namespace tt {
namespace {

constexpr double kWidth = kChartWidth;
constexpr double kLeft = kChartLeft;
constexpr double kRight = kChartRight;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr const char* kFaultRed = "#d62728";

constexpr std::array<const char*, 12> kPalette = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#9c755f",
                                                  "#edc948", "#ff9da7", "#2f4b7c", "#a0cbe8", "#8cd17d", "#d4a6c8"};

std::string n(double v) { return format_fixed(v, 1); }
std::string esc(std::string_view s) { return xml_escape(s); }

struct TimeScale {
  double end;
  explicit TimeScale(Seconds e) : end(e.value > 0 ? e.value : 1) {}
  double x(Seconds t) const { return kLeft + std::clamp(t.value / end, 0.0, 1.0) * kPlotWidth; }
};

// The page's CSS styles svg text, and CSS beats presentation attributes: pick a class, not a fill.
const char* label_class(const std::string& fill) {
  auto channel = [&](int i) { return std::stoi(fill.substr(1 + 2 * i, 2), nullptr, 16) / 255.0; };
  double luminance = 0.299 * channel(0) + 0.587 * channel(1) + 0.114 * channel(2);
  return luminance > 0.6 ? "label dark" : "label light";
}

std::string when(Seconds t) { return format_duration(t.value); }

// Vertical grid lines and time labels below the plot area [top, bottom].
std::string time_axis(const TimeScale& ts, double top, double bottom) {
  std::ostringstream os;
  double step = nice_time_step(ts.end);
  os << "<g class=\"axis\">";
  for (int i = 0; i * step <= ts.end * (1 + 1e-9); ++i) {
    Seconds t(i * step);
    double x = ts.x(t);
    os << "<line x1=\"" << n(x) << "\" y1=\"" << n(top) << "\" x2=\"" << n(x) << "\" y2=\"" << n(bottom)
       << "\" class=\"grid\"/><text x=\"" << n(x) << "\" y=\"" << n(bottom + 15) << "\" text-anchor=\"middle\">"
       << esc(time_tick_label(t)) << "</text>";
  }
  os << "<line x1=\"" << n(kLeft) << "\" y1=\"" << n(bottom) << "\" x2=\"" << n(kLeft + kPlotWidth) << "\" y2=\""
     << n(bottom) << "\" class=\"frame\"/>";
  os << "<text x=\"" << n(kLeft + kPlotWidth) << "\" y=\"" << n(bottom + 30)
     << "\" text-anchor=\"end\" class=\"axis-title\">simulated time</text></g>";
  return os.str();
}

}  // namespace

double nice_time_step(double end) {
  static constexpr double kSteps[] = {0.001, 0.002, 0.005, 0.01,  0.02,  0.05,   0.1,    0.2,     0.5,    1,    2,
                                      5,     10,    15,    30,    60,    120,    300,    600,     900,    1800, 3600,
                                      7200,  10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000};
  for (double s : kSteps)
    if (end / s <= 12) return s;
  return std::ceil(end / 12 / 2592000) * 2592000;
}

double nice_value_step(double max) {
  double step = 1;
  while (max / step > 5) {
    for (double k : {2.0, 2.5, 2.0}) {  // 1, 2, 5, 10, 20, 50, ...
      step *= k;
      if (max / step <= 5) break;
    }
  }
  return step;
}

std::string job_color(int job) { return kPalette[static_cast<std::size_t>(job) % kPalette.size()]; }
std::string queue_color(int queue) { return job_color(queue); }

std::string time_tick_label(Seconds t) {
  double v = t.value;
  if (v <= 0) return "0";
  if (v < 1) return format_number(std::round(v * 1e3 * 1000) / 1000) + "ms";
  long long s = std::llround(v);
  long long d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, sec = s % 60;
  std::string out;
  if (d) out += std::to_string(d) + "d";
  if (h) out += std::to_string(h) + "h";
  if (m && !d) out += std::to_string(m) + "m";
  if (sec && !d && !h) out += std::to_string(sec) + "s";
  return out.empty() ? "0" : out;
}

std::string step_chart_svg(const std::string& y_label, const std::vector<StepLine>& lines, double y_max, Seconds end) {
  constexpr double kTop = 28, kPlotHeight = 150, kHeight = kTop + kPlotHeight + 40;
  TimeScale ts(end);
  y_max = std::max(1.0, y_max);
  double step = nice_value_step(y_max);
  y_max = std::ceil(y_max / step) * step;
  auto y = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(v / y_max, 0.0, 1.0)); };
  const double bottom = kTop + kPlotHeight;

  std::ostringstream os;
  os << "<svg class=\"chart\" viewBox=\"0 0 " << n(kWidth) << " " << n(kHeight) << "\" role=\"img\">";
  os << "<title>" << esc(y_label) << " over simulated time</title>";
  os << "<g class=\"axis\">";
  for (double v = 0; v <= y_max * (1 + 1e-9); v += step)
    os << "<line x1=\"" << n(kLeft) << "\" y1=\"" << n(y(v)) << "\" x2=\"" << n(kLeft + kPlotWidth) << "\" y2=\""
       << n(y(v)) << "\" class=\"grid\"/><text x=\"" << n(kLeft - 8) << "\" y=\"" << n(y(v) + 4)
       << "\" text-anchor=\"end\">" << format_number(v) << "</text>";
  os << "<text transform=\"translate(" << n(kLeft - 52) << " " << n(kTop + kPlotHeight / 2)
     << ") rotate(-90)\" text-anchor=\"middle\" class=\"axis-title\">" << esc(y_label) << "</text></g>";
  os << time_axis(ts, kTop, bottom);

  double legend_x = kLeft + kPlotWidth;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const StepLine& line = *it;
    if (line.points.empty()) continue;
    std::ostringstream pts;
    double prev_y = y(line.points.front().second);
    pts << n(ts.x(line.points.front().first)) << "," << n(prev_y);
    for (const auto& [t, v] : line.points) {
      pts << " " << n(ts.x(t)) << "," << n(prev_y);
      prev_y = y(v);
      pts << " " << n(ts.x(t)) << "," << n(prev_y);
    }
    pts << " " << n(ts.x(end)) << "," << n(prev_y);
    if (line.filled)
      os << "<polygon points=\"" << n(ts.x(line.points.front().first)) << "," << n(bottom) << " " << pts.str() << " "
         << n(ts.x(end)) << "," << n(bottom) << "\" fill=\"" << line.color << "\" fill-opacity=\"0.18\"/>";
    os << "<polyline points=\"" << pts.str() << "\" fill=\"none\" stroke=\"" << line.color << "\" stroke-width=\"2\""
       << (line.dashed ? " stroke-dasharray=\"6 4\"" : "") << "><title>" << esc(line.label) << "</title></polyline>";
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    double w = 7.0 * it->label.size() + 34;
    legend_x -= w;
    os << "<line x1=\"" << n(legend_x) << "\" y1=\"14\" x2=\"" << n(legend_x + 22) << "\" y2=\"14\" stroke=\""
       << it->color << "\" stroke-width=\"3\"" << (it->dashed ? " stroke-dasharray=\"6 4\"" : "") << "/><text x=\""
       << n(legend_x + 27) << "\" y=\"18\">" << esc(it->label) << "</text>";
  }
  os << "</svg>";
  return os.str();
}

std::string gantt_svg(const RunRecord& r, const Timeline& tl, const std::vector<int>* queue_of_job) {
  int lanes = 0;
  for (const auto& row : tl.nodes) lanes += row.lanes;
  const double lane_h = std::clamp(900.0 / std::max(1, lanes), 8.0, 24.0);
  const double top = 12, plot_h = lane_h * lanes, bottom = top + plot_h, height = bottom + 40;
  const int label_every = lane_h >= 11 ? 1 : static_cast<int>(std::ceil(11 / lane_h));
  TimeScale ts(tl.end);

  std::ostringstream os;
  os << "<svg class=\"chart gantt\" viewBox=\"0 0 " << n(kWidth) << " " << n(height) << "\" role=\"img\">";
  os << "<title>Jobs on each node over simulated time</title>";
  os << "<defs><pattern id=\"stall\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.55\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\""
     << kFaultRed
     << "\" stroke-width=\"3\"/></pattern><pattern id=\"down\" width=\"8\" height=\"8\" "
        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" "
        "y2=\"8\" stroke=\"#9a9a9a\" stroke-width=\"2\"/></pattern></defs>";

  double y0 = top;
  int index = 0;
  for (const auto& row : tl.nodes) {
    const double row_h = row.lanes * lane_h;
    if (index % 2)
      os << "<rect x=\"0\" y=\"" << n(y0) << "\" width=\"" << n(kWidth) << "\" height=\"" << n(row_h)
         << "\" fill=\"#f3f5f8\"/>";
    if (index % label_every == 0)
      os << "<text x=\"" << n(kLeft - 8) << "\" y=\"" << n(y0 + row_h / 2 + 4) << "\" text-anchor=\"end\" "
         << "class=\"node\">" << esc(row.name) << "</text>";
    ++index;
    y0 += row_h;
  }
  os << time_axis(ts, top, bottom);

  // Fleet view: an attempt on consecutive rows of one lane each is one bar over them, titled with its first and last
  // node (a 512-GPU job on 64 nodes: one element instead of 64). span[row][bar]: the rows the bar covers, 0 when a bar
  // of a row above covers it. Out-of-service stripes are drawn first, so that a bar over several rows stays on top.
  std::vector<std::vector<int>> span;
  if (queue_of_job) {
    span.resize(tl.nodes.size());
    std::map<std::pair<int, int>, std::vector<std::pair<std::size_t, std::size_t>>> by_attempt;  // rows in order
    for (std::size_t i = 0; i < tl.nodes.size(); ++i) {
      span[i].assign(tl.nodes[i].bars.size(), 1);
      for (std::size_t b = 0; b < tl.nodes[i].bars.size(); ++b)
        by_attempt[{tl.nodes[i].bars[b].job, tl.nodes[i].bars[b].segment}].push_back({i, b});
    }
    for (const auto& [attempt, list] : by_attempt)
      for (std::size_t k = 0; k < list.size();) {
        const NodeBar& first = tl.nodes[list[k].first].bars[list[k].second];
        std::size_t m = k + 1;
        if (tl.nodes[list[k].first].lanes == 1)
          for (; m < list.size() && list[m].first == list[m - 1].first + 1 && tl.nodes[list[m].first].lanes == 1; ++m) {
            const NodeBar& next = tl.nodes[list[m].first].bars[list[m].second];
            if (next.start != first.start || next.end != first.end) break;
          }
        span[list[k].first][list[k].second] = static_cast<int>(m - k);
        for (std::size_t j = k + 1; j < m; ++j) span[list[j].first][list[j].second] = 0;
        k = m;
      }
  }
  auto down_stripes = [&](const NodeRow& row, double y, double row_h) {
    for (const auto& d : row.down)
      os << "<rect x=\"" << n(ts.x(d.start)) << "\" y=\"" << n(y) << "\" width=\""
         << n(std::max(1.0, ts.x(d.end) - ts.x(d.start))) << "\" height=\"" << n(row_h)
         << "\" fill=\"url(#down)\" class=\"down\"><title>" << esc(row.name) << " out of service from " << when(d.start)
         << (d.end < tl.end ? " to " + when(d.end) : std::string(" to the end")) << "</title></rect>";
  };
  if (queue_of_job) {
    y0 = top;
    for (const auto& row : tl.nodes) {
      down_stripes(row, y0, row.lanes * lane_h);
      y0 += row.lanes * lane_h;
    }
  }

  y0 = top;
  for (std::size_t i = 0; i < tl.nodes.size(); ++i) {
    const NodeRow& row = tl.nodes[i];
    const double row_h = row.lanes * lane_h;
    if (!queue_of_job) down_stripes(row, y0, row_h);
    for (std::size_t b = 0; b < row.bars.size(); ++b) {
      const NodeBar& bar = row.bars[b];
      const int rows = queue_of_job ? span[i][b] : 1;
      if (rows == 0) continue;
      const JobRecord& job = r.jobs[bar.job];
      const Segment& seg = job.segments[bar.segment];
      const double x0 = ts.x(bar.start), x1 = std::max(ts.x(bar.end), x0 + 1);
      const double by = y0 + bar.lane * lane_h + (lane_h >= 12 ? 2 : 1);
      const double bh = (rows - 1) * lane_h + lane_h - (lane_h >= 12 ? 4 : 2);  // rows > 1: one lane each
      const std::string color = queue_of_job ? queue_color((*queue_of_job)[bar.job]) : job_color(bar.job);
      std::string label = job.name + (seg.attempt > 0 ? " \u21bb" + std::to_string(seg.attempt) : std::string());
      const std::string where = rows == 1 ? esc(row.name)
                                          : esc(row.name) + " \u2013 " + esc(tl.nodes[i + rows - 1].name) + " (" +
                                                std::to_string(rows) + " nodes)";
      os << "<g class=\"bar\"><title>" << esc(job.name) << " attempt " << seg.attempt + 1 << " on " << where
         << ": " << when(bar.start) << " \u2013 " << when(bar.end) << " (" << esc(seg.outcome) << "), iterations "
         << seg.start_iteration << " \u2192 " << seg.reached_iteration << "</title>";
      os << "<rect x=\"" << n(x0) << "\" y=\"" << n(by) << "\" width=\"" << n(x1 - x0) << "\" height=\"" << n(bh)
         << "\" rx=\"2\" fill=\"" << color << "\"/>";
      if (!queue_of_job && lane_h >= 14 && x1 - x0 > 6.6 * label.size() + 10)
        os << "<text x=\"" << n(x0 + 5) << "\" y=\"" << n(by + bh / 2 + 4) << "\" class=\"" << label_class(color)
           << "\">" << esc(label) << "</text>";
      os << "</g>";
      if (queue_of_job) continue;  // fleet view: a tick per checkpoint would be most of the page
      for (Seconds c : job.checkpoint_times)
        if (c >= bar.start && c <= bar.end)
          os << "<line x1=\"" << n(ts.x(c)) << "\" y1=\"" << n(by) << "\" x2=\"" << n(ts.x(c)) << "\" y2=\""
             << n(by + bh * 0.5) << "\" class=\"ckpt\"><title>" << esc(job.name) << " checkpoint at " << when(c)
             << "</title></line>";
    }
    y0 += row_h;
  }

  // Failure marks go last so no bar covers them. The node that went down at the fault gets the big marker; when no
  // node went down (a hang, a link), every node of the attempt does.
  std::set<std::pair<double, std::string>> went_down;
  for (const auto& d : r.decisions)
    if (d.kind == "node_down")
      for (const auto& node : d.nodes) went_down.emplace(d.t.value, node);
  y0 = top;
  for (const auto& row : tl.nodes) {
    const double row_h = row.lanes * lane_h;
    for (const auto& bar : row.bars) {
      const JobRecord& job = r.jobs[bar.job];
      const FailureRecord* f = segment_failure(job, bar.segment);
      if (!f) continue;
      const auto& nodes = job.segments[bar.segment].nodes;
      const bool culprit = went_down.count({f->fault_time.value, row.name}) > 0 ||
                           std::none_of(nodes.begin(), nodes.end(), [&](const auto& node) {
                             return went_down.count({f->fault_time.value, node}) > 0;
                           });
      const double by = y0 + bar.lane * lane_h + (lane_h >= 12 ? 2 : 1), bh = lane_h - (lane_h >= 12 ? 4 : 2);
      const double xf = ts.x(f->fault_time), xd = std::max(ts.x(f->detect_time), xf + 1);
      const std::string what = esc(job.name) + ": " + esc(f->cause) + " at " + esc(when(f->fault_time)) +
                               ", detected at " + esc(when(f->detect_time)) + " (" +
                               esc(when(f->detect_time - f->fault_time)) + " later)";
      os << "<g class=\"failure\"><title>" << what << "</title>";
      os << "<rect x=\"" << n(xf) << "\" y=\"" << n(by) << "\" width=\"" << n(xd - xf) << "\" height=\"" << n(bh)
         << "\" fill=\"url(#stall)\"/>";
      os << "<line x1=\"" << n(xf) << "\" y1=\"" << n(y0) << "\" x2=\"" << n(xf) << "\" y2=\"" << n(y0 + row_h)
         << "\" stroke=\"" << kFaultRed << "\" stroke-width=\"" << (culprit ? "2.5" : "1.2") << "\"/>";
      if (culprit) {
        const double s = std::min(6.0, lane_h / 2);
        os << "<polygon class=\"fault-marker\" points=\"" << n(xf - s) << "," << n(y0) << " " << n(xf + s) << ","
           << n(y0) << " " << n(xf) << "," << n(y0 + s * 1.4) << "\" fill=\"" << kFaultRed << "\"/>";
      }
      os << "<line x1=\"" << n(xd) << "\" y1=\"" << n(by) << "\" x2=\"" << n(xd) << "\" y2=\"" << n(by + bh)
         << "\" stroke=\"#6b0000\" stroke-width=\"2.5\" class=\"detect-marker\"/></g>";
    }
    y0 += row_h;
  }
  os << "</svg>";
  return os.str();
}

const char* severity_color(const std::string& severity) {
  if (severity == "critical") return kFaultRed;
  if (severity == "warning") return "#f28e2b";
  return "#4e79a7";
}

std::string alert_timeline_svg(const RunRecord& r) {
  std::vector<std::string> names;
  for (const auto& rule : r.alert_rules) names.push_back(rule.name);
  for (const auto& a : r.alerts)
    if (std::find(names.begin(), names.end(), a.name) == names.end()) names.push_back(a.name);
  const double lane_h = 22, top = 12, bottom = top + lane_h * std::max<std::size_t>(1, names.size());
  TimeScale ts(r.end_time);
  std::ostringstream os;
  os << "<svg class=\"chart alerts\" viewBox=\"0 0 " << n(kWidth) << " " << n(bottom + 40) << "\" role=\"img\">";
  os << "<title>Alerts over simulated time: pending (pale) and firing bars by rule, faults as red lines</title>";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double y = top + lane_h * static_cast<double>(i);
    if (i % 2)
      os << "<rect x=\"0\" y=\"" << n(y) << "\" width=\"" << n(kWidth) << "\" height=\"" << n(lane_h)
         << "\" fill=\"#f3f5f8\"/>";
    os << "<text x=\"" << n(kLeft - 8) << "\" y=\"" << n(y + lane_h / 2 + 4) << "\" text-anchor=\"end\" class=\"node\">"
       << esc(names[i]) << "</text>";
  }
  os << time_axis(ts, top, bottom);
  for (const auto& a : r.alerts) {
    const auto row = std::find(names.begin(), names.end(), a.name) - names.begin();
    const double y = top + lane_h * static_cast<double>(row) + 3;
    const Seconds end = a.resolved_at.value_or(r.end_time);
    std::string labels;
    for (const auto& [k, v] : a.labels) labels += (labels.empty() ? "" : ", ") + k + "=" + v;
    const char* color = severity_color(a.severity);
    os << "<rect x=\"" << n(ts.x(a.active_since)) << "\" y=\"" << n(y) << "\" width=\""
       << n(std::max(0.0, ts.x(a.fired_at) - ts.x(a.active_since))) << "\" height=\"" << n(lane_h - 6)
       << "\" fill=\"" << color << "\" fill-opacity=\"0.3\" class=\"pending\"/>";
    os << "<rect x=\"" << n(ts.x(a.fired_at)) << "\" y=\"" << n(y) << "\" width=\""
       << n(std::max(2.0, ts.x(end) - ts.x(a.fired_at))) << "\" height=\"" << n(lane_h - 6) << "\" fill=\"" << color
       << "\" class=\"firing " << esc(a.severity) << "\"><title>" << esc(a.name) << " (" << esc(a.severity)
       << ") firing " << when(a.fired_at) << " to "
       << (a.resolved_at ? when(*a.resolved_at) : std::string("the end")) << "; pending since " << when(a.active_since)
       << (labels.empty() ? "" : "; " + esc(labels)) << "</title></rect>";
  }
  for (Seconds t : r.fault_times)
    os << "<line x1=\"" << n(ts.x(t)) << "\" y1=\"" << n(top) << "\" x2=\"" << n(ts.x(t)) << "\" y2=\"" << n(bottom)
       << "\" stroke=\"" << kFaultRed << "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" class=\"fault\"><title>fault at "
       << when(t) << "</title></line>";
  os << "</svg>";
  return os.str();
}

}  // namespace tt
