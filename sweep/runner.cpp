#include "sweep/runner.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "core/model/units.hpp"
#include "sweep/pool.hpp"
#include "sweep/result_file.hpp"

namespace tt::sweep {
namespace fs = std::filesystem;

namespace {

struct Run {
  Point point;
  std::uint64_t seed;
};

std::string last_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

std::string short_time(double s) { return format_seconds(Seconds(std::max(0.0, s))); }

}  // namespace

std::string sweep_progress_text(int done, int total, int running, double elapsed_s, double eta_s, int width) {
  const std::string tail = "  " + std::to_string(done) + "/" + std::to_string(total) + " runs  " +
                           std::to_string(running) + " running  " + short_time(elapsed_s) +
                           (eta_s >= 0 ? "  ETA " + short_time(eta_s) : "");
  const int bar = std::min(30, width - static_cast<int>(tail.size()) - 2);
  if (bar < 5) return tail.substr(2);
  const int filled = total ? bar * done / total : bar;
  return "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]" + tail;
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  SweepOutcome out;
  std::vector<Run> todo;
  for (const Point& p : grid(spec)) {
    if (o.points && (p.index < o.points->first || p.index > o.points->second)) continue;
    for (std::uint64_t seed : spec.seeds) {
      ++out.runs;
      if (auto r = read_result(spec, p, seed, o.out); r && (r->status == RunStatus::Ok || !o.retry_failed)) {
        ++out.kept;
        if (r->status != RunStatus::Ok) ++out.failed;
        continue;
      }
      todo.push_back({p, seed});
    }
  }
  const std::string spec_path = fs::absolute(spec.file).string();
  std::vector<Task> tasks;
  for (const Run& r : todo)
    tasks.push_back({{o.exe, "sweep-point", spec_path, "--point", std::to_string(r.point.index), "--seed",
                      std::to_string(r.seed), "--dir", fs::absolute(o.out).string()},
                     log_path(o.out, r.point.index, r.seed),
                     spec.timeout.value});
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto on_end = [&](std::size_t i, const TaskEnd& end) {
    const Run& run = todo[i];
    ++out.ran;
    const fs::path log = log_path(o.out, run.point.index, run.seed);
    if (end.kind == TaskEnd::Kind::Exited && end.code <= 1 && read_result(spec, run.point, run.seed, o.out)) return;
    RunResult r;
    r.point = run.point.index;
    r.seed = run.seed;
    r.exit_code = end.code;
    if (end.kind == TaskEnd::Kind::TimedOut) {
      r.status = RunStatus::Timeout;
      r.message = "killed (with its process group) after the timeout of " + short_time(spec.timeout.value);
    } else if (end.kind == TaskEnd::Kind::Signaled) {
      r.status = RunStatus::Crashed;
      r.message = "killed by signal " + std::to_string(end.code) + "; " + last_line(log);
    } else {
      r.status = RunStatus::Error;
      r.message = "exit code " + std::to_string(end.code) + ": " + last_line(log);
    }
    for (const auto& f : spec.figures) r.figures[f.name] = std::nullopt;
    write_atomically(result_path(o.out, run.point.index, run.seed), result_json(spec, run.point, r).dump(1) + "\n");
    ++out.failed;
  };
  const bool draw = o.progress && isatty(STDERR_FILENO);
  double last_draw = -1;
  auto on_tick = [&](int running) {
    if (!draw || elapsed() - last_draw < 0.2) return;
    last_draw = elapsed();
    const double eta = out.ran ? elapsed() / out.ran * static_cast<double>(todo.size() - out.ran) : -1;
    std::fprintf(stderr, "\r%s\033[K", sweep_progress_text(out.kept + out.ran, out.runs, running, elapsed(), eta, 100)
                                          .c_str());
    std::fflush(stderr);
  };
  const PoolOutcome pool = run_pool(tasks, std::max(1, o.jobs), on_end, on_tick);
  if (draw) std::fprintf(stderr, "\r\033[K");
  out.interrupted = pool.interrupted;
  out.wall_s = elapsed();
  return out;
}

}  // namespace tt::sweep
