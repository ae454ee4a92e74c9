// The Controller's state of a running rollout (internal to core/control; the plan is core/rollout/spec.hpp, the
// policy that moves it controller_rollout.cpp).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

struct RolloutRun {
  enum class Phase { Waiting, Draining, Reimaging, Observing, RollingBack, Done };
  Phase phase = Phase::Waiting;
  int step = -1;
  int upgraded = 0;                      // pool nodes (from the front) on the new release or being reimaged to it
  std::vector<std::string> release;      // by node
  std::set<int> reimaging;               // nodes whose Reimage has not reported back
  std::vector<int> to_reimage;           // drained nodes to reimage when the drain ends
  std::string reimage_to;
  std::optional<Seconds> at;             // the phase's next timer: drain end, next sample or window end
  Seconds window_end;
  std::vector<int> canary_nodes, baseline_nodes;
  // Per analysis metric: the canary's and the baseline's samples in this step's window.
  std::vector<std::array<std::vector<double>, 2>> samples;
  std::array<std::size_t, 2> checkpoints_seen{};  // checkpoint write times already sampled, canary and baseline
  std::array<std::size_t, 2> failures_at{};       // failures of each copy when the window began
  Seconds window_start;
  // Canary kind any_job (Canary::job < 0): the side each job ran on at the last sample (0 canary: a node on the new
  // release; 1 baseline: every node on the old one), each job's failures and checkpoint writes already counted, and
  // this window's failures by side (a job's new failures count for the side it ran on at the sample before).
  std::map<int, int> job_side;
  std::map<int, std::size_t> job_failures_seen, job_checkpoints_seen;
  std::array<double, 2> side_failures{};
  // Copies that failed while one of their nodes is out: their nodes; they relaunch there once every one is back.
  std::map<int, std::vector<int>> waiting_copies;
};

}  // namespace tt
