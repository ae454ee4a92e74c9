// sweep.html: one chart per figure, the mean over seeds against the first parameter that varies, one line per value
// of the other parameters, the confidence interval as a whisker at each point. Self-contained: inline SVG, no script.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/io/reader_support.hpp"
#include "core/model/units.hpp"
#include "sweep/table.hpp"

namespace tt::sweep {
namespace {

constexpr double kW = 640, kH = 300, kL = 70, kR = 170, kT = 20, kB = 40;  // size and margins
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string value_text(double v, bool duration) {
  if (duration) return format_seconds(Seconds(v));
  return fmt("%.4g", v);
}

// "Nice" ticks over [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  const double span = hi > lo ? hi - lo : std::max(1.0, std::fabs(hi));
  const double raw = span / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(t);
  return out;
}

struct Series {
  std::string label;
  std::vector<std::pair<double, Interval>> points;  // (x, y)
};

std::string chart(const SweepSpec& spec, const Table& t, std::size_t fig, int xpar) {
  const Figure& f = spec.figures[fig];
  const Parameter* xp = xpar >= 0 ? &spec.parameters[xpar] : nullptr;
  bool numeric_x = xp != nullptr;
  if (xp)
    for (const auto& v : xp->values) numeric_x = numeric_x && axis_value(v).has_value();
  std::map<std::string, Series> series;
  std::vector<std::string> order;
  for (const Row& r : t.rows) {
    if (!r.figures[fig]) continue;
    std::string label;
    for (std::size_t k = 0; k < spec.parameters.size(); ++k)
      if (static_cast<int>(k) != xpar)
        label += (label.empty() ? "" : " ") + spec.parameters[k].label + "=" +
                 reader::str_of(spec.parameters[k].values[r.point.value_index[k]]);
    if (label.empty()) label = f.name;
    if (!series.count(label)) order.push_back(label);
    Series& s = series[label];
    s.label = label;
    const int xi = xp ? r.point.value_index[xpar] : 0;
    const double x = numeric_x ? *axis_value(xp->values[xi]) : xi;
    s.points.emplace_back(x, *r.figures[fig]);
  }
  if (order.empty()) return "<p>" + esc(f.name) + ": measured in no run.</p>\n";
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const auto& [_, s] : series)
    for (const auto& [x, i] : s.points) {
      x0 = std::min(x0, x), x1 = std::max(x1, x);
      y0 = std::min(y0, i.low), y1 = std::max(y1, i.high);
    }
  if (y0 > 0 && y0 < (y1 - y0)) y0 = 0;
  if (y1 == y0) y1 = y0 + (y0 == 0 ? 1 : std::fabs(y0) * 0.1);
  if (x1 == x0) x0 -= 1, x1 += 1;
  const double pw = kW - kL - kR, ph = kH - kT - kB;
  auto X = [&](double x) { return kL + (x - x0) / (x1 - x0) * pw; };
  auto Y = [&](double y) { return kT + ph - (y - y0) / (y1 - y0) * ph; };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", kW) + "\" height=\"" +
                    fmt("%.0f", kH) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  svg += "<rect x=\"" + fmt("%.1f", kL) + "\" y=\"" + fmt("%.1f", kT) + "\" width=\"" + fmt("%.1f", pw) +
         "\" height=\"" + fmt("%.1f", ph) + "\" fill=\"none\" stroke=\"#999\"/>\n";
  // Durations tick at whole hours or minutes once the span allows.
  const double unit = !f.duration ? 1 : y1 - y0 > 7200 ? 3600 : y1 - y0 > 120 ? 60 : 1;
  std::vector<double> yticks = ticks(y0 / unit, y1 / unit);
  for (double& yt : yticks) yt *= unit;
  for (double yt : yticks) {
    if (yt < y0 || yt > y1) continue;
    svg += "<line x1=\"" + fmt("%.1f", kL) + "\" x2=\"" + fmt("%.1f", kL + pw) + "\" y1=\"" + fmt("%.1f", Y(yt)) +
           "\" y2=\"" + fmt("%.1f", Y(yt)) + "\" stroke=\"#eee\"/><text x=\"" + fmt("%.1f", kL - 4) + "\" y=\"" +
           fmt("%.1f", Y(yt) + 4) + "\" text-anchor=\"end\">" + esc(value_text(yt, f.duration)) + "</text>\n";
  }
  if (numeric_x) {
    for (double xt : ticks(x0, x1))
      if (xt >= x0 && xt <= x1)
        svg += "<text x=\"" + fmt("%.1f", X(xt)) + "\" y=\"" + fmt("%.1f", kT + ph + 14) +
               "\" text-anchor=\"middle\">" + esc(fmt("%.4g", xt)) + "</text>\n";
  } else if (xp) {
    for (std::size_t i = 0; i < xp->values.size(); ++i)
      svg += "<text x=\"" + fmt("%.1f", X(static_cast<double>(i))) + "\" y=\"" + fmt("%.1f", kT + ph + 14) +
             "\" text-anchor=\"middle\">" + esc(reader::str_of(xp->values[i])) + "</text>\n";
  }
  svg += "<text x=\"" + fmt("%.1f", kL + pw / 2) + "\" y=\"" + fmt("%.1f", kH - 6) + "\" text-anchor=\"middle\">" +
         esc(xp ? xp->label : "") +
         "</text>\n";
  for (std::size_t si = 0; si < order.size(); ++si) {
    Series& s = series[order[si]];
    std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const char* color = kColors[si % 10];
    std::string path;
    for (const auto& [x, i] : s.points) path += (path.empty() ? "M" : " L") + fmt("%.1f", X(x)) + "," + fmt("%.1f", Y(i.mean));
    svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\"/>\n";
    for (const auto& [x, i] : s.points) {
      svg += "<line x1=\"" + fmt("%.1f", X(x)) + "\" x2=\"" + fmt("%.1f", X(x)) + "\" y1=\"" + fmt("%.1f", Y(i.low)) +
             "\" y2=\"" + fmt("%.1f", Y(i.high)) + "\" stroke=\"" + color + "\"/>";
      svg += "<circle cx=\"" + fmt("%.1f", X(x)) + "\" cy=\"" + fmt("%.1f", Y(i.mean)) + "\" r=\"2.5\" fill=\"" + color +
             "\"><title>" + esc(value_text(i.mean, f.duration) + " [" + value_text(i.low, f.duration) + ", " +
                                value_text(i.high, f.duration) + "], n=" + std::to_string(i.n)) +
             "</title></circle>\n";
    }
    svg += "<rect x=\"" + fmt("%.1f", kW - kR + 10) + "\" y=\"" + fmt("%.1f", kT + 14.0 * si) +
           "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/><text x=\"" + fmt("%.1f", kW - kR + 24) + "\" y=\"" +
           fmt("%.1f", kT + 14.0 * si + 9) + "\">" + esc(s.label) + "</text>\n";
  }
  return "<h2>" + esc(f.name) + "</h2>\n" + svg + "</svg>\n";
}

}  // namespace

std::string curves_html(const SweepSpec& spec, const Table& t) {
  int xpar = -1;
  for (std::size_t k = 0; k < spec.parameters.size() && xpar < 0; ++k)
    if (spec.parameters[k].values.size() > 1) xpar = static_cast<int>(k);
  if (xpar < 0 && !spec.parameters.empty()) xpar = 0;
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + esc(spec.name) +
                     "</title>\n<style>body{font-family:sans-serif;margin:20px}td,th{padding:2px 8px;text-align:right}"
                     "</style></head><body>\n<h1>sweep " + esc(spec.name) + "</h1>\n<p>" +
                     std::to_string(t.rows.size()) + " points x " + std::to_string(spec.seeds.size()) +
                     " seeds; lines: mean over seeds; whiskers: " + fmt("%.0f", spec.confidence * 100) +
                     "% Student t interval of the mean.</p>\n";
  for (std::size_t f = 0; f < spec.figures.size(); ++f) html += chart(spec, t, f, xpar);
  html += "</body></html>\n";
  return html;
}

}  // namespace tt::sweep
