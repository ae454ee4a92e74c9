#include "cli/progress.hpp"

#include <sys/ioctl.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/plan/perf_model.hpp"

namespace tt::cli {
namespace {

int terminal_width(std::FILE* out) {
  winsize w{};
  if (ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

std::string rate_text(double per_second) {
  char buf[32];
  if (per_second >= 1e6)
    std::snprintf(buf, sizeof buf, "%.1fM", per_second / 1e6);
  else if (per_second >= 1e4)
    std::snprintf(buf, sizeof buf, "%.0fk", per_second / 1e3);
  else if (per_second >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", per_second / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", per_second);
  return buf;
}

}  // namespace

Seconds expected_end(const Scenario& sc) {
  const Seconds horizon = sc.sim.horizon;
  if (sc.jobs.empty()) return horizon;
  double chain = 0, gpu_seconds = 0, first_submit = sc.jobs.front().submit.value;
  std::vector<int> gpus;
  for (const auto& job : sc.jobs) {
    gpus.resize(job.gpus);
    std::iota(gpus.begin(), gpus.end(), 0);
    double run = sc.perf.launch_overhead.value;
    try {
      run += plan_iteration(job, sc.topology, gpus, sc.perf).predicted_iteration.value * job.iterations;
    } catch (const std::exception&) {  // no estimate for this job: the run will tell
    }
    chain = std::max(chain, job.submit.value + run);
    gpu_seconds += run * job.gpus;
    first_submit = std::min(first_submit, job.submit.value);
  }
  double packed = first_submit + gpu_seconds / std::max(1, sc.topology.total_gpus());
  double end = std::max(chain, packed);
  return std::isfinite(end) && end > 0 ? Seconds(std::min(end, horizon.value)) : horizon;
}

std::string progress_text(const sim::Progress& p, Seconds expected_end, double events_per_second, int width) {
  double fraction = expected_end.value > 0 ? p.now.value / expected_end.value : 0;
  fraction = std::clamp(fraction, 0.0, 0.99);
  char pct[8];
  std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(fraction * 100));
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f s", p.wall_seconds);
  std::string text = std::string(pct) + "  sim " + format_seconds(p.now) + " / ~" + format_seconds(expected_end) +
                     "  " + rate_text(events_per_second) + " ev/s  " + wall;
  const int room = width - 1 - static_cast<int>(text.size()) - 4;  // "[" "]" and two spaces; no wrap at the margin
  const int bar = std::min(30, room);
  if (bar >= 10) {
    const int full = static_cast<int>(fraction * bar);  // rounded down: full only when done
    std::string drawn(1, '[');
    drawn.append(full, '#').append(bar - full, '.').append("]  ").append(text);
    text = std::move(drawn);
  }
  if (static_cast<int>(text.size()) > width - 1) text.resize(std::max(0, width - 1));
  return text;
}

ProgressLine::ProgressLine(std::FILE* out, bool enabled, Seconds expected_end)
    : out_(out), enabled_(enabled), expected_end_(expected_end) {}

ProgressLine::~ProgressLine() { erase(); }

void ProgressLine::update(const sim::Progress& p) {
  if (!enabled_) return;
  double dt = p.wall_seconds - last_wall_;
  double rate = dt > 0 ? (p.controller_events - last_events_) / dt : 0;
  last_wall_ = p.wall_seconds;
  last_events_ = p.controller_events;
  const std::string text = progress_text(p, expected_end_, rate, terminal_width(out_));
  std::fputc('\r', out_);
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fputs("\x1b[K", out_);  // clear what a longer previous line left
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::erase() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace tt::cli
