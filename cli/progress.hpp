// The progress line of `traintwin run` on a terminal: a bar of simulated time over the expected end of the run,
// controller events per second and wall time, redrawn in place ('\r') at most as often as sim::run reports, and erased
// when done. ProgressLine draws nothing unless enabled: cmd_run enables it only when stdout is a terminal.
#pragma once

#include <cstdio>
#include <string>

#include "core/model/scenario.hpp"
#include "sim/driver.hpp"

namespace tt::cli {

// When the run should end if nothing goes wrong: each job from its submit time for its launch overhead plus its
// iterations at the closed-form iteration time (on the first GPUs of the cluster), and no earlier than the first submit
// plus all jobs' GPU-time spread over the cluster; capped at the horizon.
Seconds expected_end(const Scenario& scenario);

// "[#######.............]  35%  sim 1h 30m / ~4h 15m  2.1k ev/s  0.3 s" fitted to `width` columns (the bar shrinks
// or goes first); past the expected end the percentage stays at 99%.
std::string progress_text(const sim::Progress& p, Seconds expected_end, double events_per_second, int width);

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool enabled, Seconds expected_end);
  ~ProgressLine();  // erase()
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  void update(const sim::Progress& p);
  void erase();  // clears the line if anything was drawn

 private:
  std::FILE* out_;
  bool enabled_;
  Seconds expected_end_;
  bool drawn_ = false;
  long long last_events_ = 0;
  double last_wall_ = 0;
};

}  // namespace tt::cli
