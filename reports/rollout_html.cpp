#include "reports/rollout_html.hpp"

#include <algorithm>
#include <sstream>

#include "reports/svg.hpp"
#include "reports/text.hpp"

namespace tt {
namespace {

constexpr const char* kPrepare = "#9aa5b8";  // drain and reimage
constexpr const char* kObserve = "#4a7bd0";  // the observation window while undecided
constexpr const char* kPass = "#1b7f3b";
constexpr const char* kFail = "#c62828";

std::string esc(const std::string& s) { return xml_escape(s); }
std::string at(Seconds t) { return format_duration(t.value); }
std::string px(double v) { return format_fixed(v, 1); }

bool failed(const std::string& outcome) { return outcome == "rollback" || outcome == "pause"; }

class Lanes {
 public:
  Lanes(Seconds end, int lanes) : end_(std::max(end.value, 1.0)), bottom_(kTop + kLane * lanes) {}
  double x(Seconds t) const {
    return kChartLeft + std::clamp(t.value / end_, 0.0, 1.0) * (kChartWidth - kChartLeft - kChartRight);
  }
  double y(int lane) const { return kTop + kLane * lane; }
  double bottom() const { return bottom_; }
  // A bar in `lane` from a to b with a tooltip.
  std::string bar(int lane, Seconds a, Seconds b, const char* fill, const std::string& title) const {
    std::ostringstream os;
    os << "<rect x=\"" << px(x(a)) << "\" y=\"" << px(y(lane) + 4) << "\" width=\"" << px(std::max(2.0, x(b) - x(a)))
       << "\" height=\"" << px(kLane - 8) << "\" fill=\"" << fill << "\"><title>" << esc(title) << "</title></rect>";
    return os.str();
  }
  std::string label(int lane, const std::string& text) const {
    std::ostringstream os;
    os << "<text x=\"" << px(kChartLeft - 8) << "\" y=\"" << px(y(lane) + kLane / 2 + 4)
       << "\" text-anchor=\"end\" class=\"node\">" << esc(text) << "</text>";
    return os.str();
  }
  std::string axis() const {
    std::ostringstream os;
    const double step = nice_time_step(end_);
    os << "<g class=\"axis\">";
    for (double t = 0; t <= end_ * (1 + 1e-9); t += step) {
      const double gx = x(Seconds(t));
      os << "<line x1=\"" << px(gx) << "\" y1=\"" << px(kTop) << "\" x2=\"" << px(gx) << "\" y2=\"" << px(bottom_)
         << "\" class=\"grid\"/><text x=\"" << px(gx) << "\" y=\"" << px(bottom_ + 15)
         << "\" text-anchor=\"middle\">" << esc(time_tick_label(Seconds(t))) << "</text>";
    }
    os << "</g>";
    return os.str();
  }

 private:
  static constexpr double kTop = 10, kLane = 26;
  double end_, bottom_;
};

std::string timeline_svg(const RunRecord& r, const RolloutRecord& ro) {
  const int lanes = static_cast<int>(ro.steps.size()) + (ro.rolled_back_at ? 1 : 0);
  const Lanes l(r.end_time, std::max(1, lanes));
  std::ostringstream os;
  os << "<svg class=\"chart rollout\" viewBox=\"0 0 " << px(kChartWidth) << " " << px(l.bottom() + 24)
     << "\" role=\"img\"><title>Rollout of release " << esc(ro.release)
     << ": each step's drain and reimage (grey), observation window (blue), and verdict (green promote, red rollback "
        "or pause)</title>";
  os << l.axis();
  Seconds last_decided;
  for (std::size_t i = 0; i < ro.steps.size(); ++i) {
    const RolloutStepRecord& s = ro.steps[i];
    const int lane = static_cast<int>(i);
    const std::string name = "step " + std::to_string(s.step + 1) + " (" + std::to_string(s.nodes) + " nodes)";
    os << l.label(lane, name);
    const Seconds ready = s.observed_from.value_or(s.decided.value_or(r.end_time));
    os << l.bar(lane, s.started, ready, kPrepare, name + ": drain and reimage " + at(s.started) + " to " + at(ready));
    if (s.observed_from) {
      const Seconds end = s.decided.value_or(r.end_time);
      const char* fill = s.outcome.empty() ? kObserve : failed(s.outcome) ? kFail : kPass;
      os << l.bar(lane, *s.observed_from, end, fill,
                  name + ": observed " + at(*s.observed_from) + " to " + at(end) + ", " +
                      (s.outcome.empty() ? std::string("undecided") : s.outcome));
    }
    if (s.decided) last_decided = std::max(last_decided, *s.decided);
  }
  if (ro.rolled_back_at) {
    const int lane = static_cast<int>(ro.steps.size());
    os << l.label(lane, "rollback");
    os << l.bar(lane, last_decided, *ro.rolled_back_at, kFail,
                "rollback: drain and reimage to " + ro.from + ", " + at(last_decided) + " to " + at(*ro.rolled_back_at));
  }
  os << "</svg>";
  return os.str();
}

}  // namespace

std::string rollout_html_section(const RunRecord& r) {
  if (!r.rollout) return "";
  const RolloutRecord& ro = *r.rollout;
  std::ostringstream os;
  os << "<section id=\"rollout\"><h2>Rollout</h2><p class=\"note\">Release <code>" << esc(ro.release)
     << "</code> replacing <code>" << esc(ro.from) << "</code>: <strong>" << esc(ro.outcome) << "</strong>"
     << (ro.decided ? " at " + at(*ro.decided) : std::string())
     << (ro.rolled_back_at ? "; every node back on " + esc(ro.from) + " at " + at(*ro.rolled_back_at) : std::string())
     << ". Canary " << format_fixed(ro.canary_gpu_hours, 1) << " GPU-h, baseline "
     << format_fixed(ro.baseline_gpu_hours, 1) << " GPU-h; " << ro.jobs_drained << " job(s) drained ("
     << format_fixed(ro.drain_lost_gpu_hours, 1) << " GPU-h lost), " << format_fixed(ro.reimage_node_hours, 2)
     << " node-hours of drain and reimage.</p>";
  os << timeline_svg(r, ro);
  os << "<div class=\"wide\"><table class=\"rollout\"><thead><tr><th>Step</th><th class=\"num\">Nodes</th><th "
        "class=\"num\">Started</th><th class=\"num\">Observed from</th><th class=\"num\">Decided</th><th>Verdict</th>"
        "<th>Evidence</th></tr></thead><tbody>";
  for (const RolloutStepRecord& s : ro.steps) {
    std::string evidence;
    for (const auto& v : s.verdicts) evidence += (evidence.empty() ? "" : "; ") + v.evidence;
    const bool bad = failed(s.outcome);
    os << "<tr" << (bad ? " class=\"failed\"" : "") << "><td>" << s.step + 1 << "</td><td class=\"num\">" << s.nodes
       << "</td><td class=\"num\">" << at(s.started) << "</td><td class=\"num\">"
       << (s.observed_from ? at(*s.observed_from) : "-") << "</td><td class=\"num\">"
       << (s.decided ? at(*s.decided) : "-") << "</td><td>";
    if (s.outcome.empty())
      os << "undecided";
    else
      os << "<span class=\"badge " << (bad ? "fail" : "pass") << "\">" << esc(s.outcome) << "</span>";
    os << "</td><td>" << esc(evidence) << "</td></tr>";
  }
  os << "</tbody></table></div></section>";
  return os.str();
}

}  // namespace tt
