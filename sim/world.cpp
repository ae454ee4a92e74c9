#include "sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <xxhash.h>

#include "sim/job.hpp"

namespace tt::sim {

PaceKey PaceKey::of(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {h.low64, h.high64};
}

World::World(const Scenario& s, Platform& p)
    : scenario(s),
      platform(p),
      gpu_speed(static_cast<std::size_t>(s.topology.total_gpus()), 1.0),
      ff_node_rate(p.topology().nodes().size(), 0.0),
      ff_node_jobs(p.topology().nodes().size(), 0),
      link_load(static_cast<std::size_t>(p.link_count()), 0.0),
      link_users(static_cast<std::size_t>(p.link_count())),
      link_measuring(static_cast<std::size_t>(p.link_count()), 0) {}
World::~World() = default;

namespace {

// A flow's rate is read as its bytes over its duration: its peak under max-min sharing can be higher (it speeds up as
// other flows end), hence a margin.
constexpr double kPeakMargin = 1.25;

void wake(JobRun& r) {
  r.dirty = true;
  if (r.wake) r.wake->release();
}

}  // namespace

void World::join(JobRun& r) {
  if (r.joined) return;
  r.joined = true;
  if (!r.shared.empty()) ++sharing;
  for (std::size_t i = 0; i < r.shared.size(); ++i) link_users[r.shared[i]].push_back({&r, static_cast<int>(i)});
  r.forget_drift();
}

void World::leave(JobRun& r) {
  if (!r.joined) return;
  set_nominal(r, 0);
  r.joined = false;
  if (!r.shared.empty()) --sharing;
  for (int l : r.shared) {
    auto& users = link_users[l];
    users.erase(std::find_if(users.begin(), users.end(), [&](const LinkUser& u) { return u.run == &r; }));
  }
  r.forget_drift();
}

void World::snapshot_seen(JobRun& r) {
  r.peak.clear();  // the measurement fills them (job.cpp)
  r.busy.clear();
  r.seen.resize(r.shared.size());
  for (std::size_t i = 0; i < r.shared.size(); ++i) r.seen[i] = others_on(r, i);
  r.forget_drift();
}

double World::others_on(const JobRun& r, std::size_t i) const {
  return link_load[r.shared[i]] - (r.nominal_t > 0 ? r.shared_bytes[i] / r.nominal_t : 0);
}

bool World::has_room(const JobRun& r, const std::vector<double>& peak) const {
  if (peak.size() != r.shared.size()) return false;
  for (std::size_t i = 0; i < r.shared.size(); ++i) {
    double others = others_on(r, i);
    if (i < r.seen.size()) others = std::max(others, r.seen[i]);
    if (kPeakMargin * peak[i] > platform.capacity(r.shared[i]) - others) return false;
  }
  return true;
}

double World::steady_share(const JobRun& r, std::size_t i, double t) const {
  if (i >= r.busy.size() || t <= 0) return 1.0;
  const double p = r.busy[i], average = r.shared_bytes[i] / t, c = platform.capacity(r.shared[i]);
  if (!(p > 0 && p < 1) || average <= 0 || c <= 0) return 1.0;
  const double rate = std::min(average / p, c);
  const double during = std::max(c - rate, c / 2);  // what max-min sharing leaves a job measuring beside a burst
  // A transfer short against the bursts meets one for its whole length or not at all: its expected time is that of
  // the harmonic mean of the two rates (weights p, 1 - p). One long against them sees the time average of the rates.
  // Jobs' transfers and bursts are their steps, of like lengths: neither limit holds, and the mean of the two is what
  // bench_accuracy measures closest to simulating every iteration (docs/scenario-format.md, "Sim").
  const double short_transfers = c - 1.0 / (p / during + (1 - p) / c);
  const double long_transfers = p * (c - during);
  const double steady = 0.5 * (short_transfers + long_transfers);
  return std::clamp(steady / average, 0.0, 1.0);
}

void World::measuring(JobRun& r, bool on) {
  if (r.measuring == on) return;
  r.measuring = on;
  if (on) r.overlapped = false;
  for (int l : r.shared) {
    if (on && link_measuring[l] > 0)
      for (const LinkUser& u : link_users[l])
        if (u.run != &r && u.run->measuring) u.run->overlapped = r.overlapped = true;
    link_measuring[l] += on ? 1 : -1;
  }
}

bool World::drifted_on(const JobRun& o, std::size_t i) const {
  const double others = others_on(o, i);
  const double left = platform.capacity(o.shared[i]) - std::max(others, o.seen[i]);
  // Its flows there never needed more than this, before or after: the link does not bind it.
  if (i < o.peak.size() && kPeakMargin * o.peak[i] <= left) return false;
  if (left <= 0) return true;
  // Only the steps crossing the link slow down, by at most the relative change of what is left to the job there.
  const double share = i < o.busy.size() ? o.busy[i] : 1.0;
  return share * std::abs(others - o.seen[i]) > scenario.sim.remeasure_threshold * left;
}

bool World::drifted(JobRun& o) {
  if (o.seen.size() != o.shared.size()) return false;  // it has not measured yet: it will see the load as it is
  // Each link's answer depends on its load and capacity and on the job's own figures: with those figures and the
  // capacities as they were, only the links whose load changed since the last answer of no can answer otherwise now.
  if (o.drift_clear && o.drift_capacity == platform.capacity_changes()) {
    bool drift = false;
    for (int i : o.drift_pending)
      if (++drift_link_checks, drifted_on(o, static_cast<std::size_t>(i))) {
        drift = true;
        break;
      }
    o.drift_pending.clear();
    if (drift) o.drift_clear = false;
    return drift;
  }
  for (std::size_t i = 0; i < o.shared.size(); ++i)
    if (++drift_link_checks, drifted_on(o, i)) {
      o.forget_drift();
      return true;
    }
  o.drift_clear = true;
  o.drift_pending.clear();
  o.drift_capacity = platform.capacity_changes();
  return false;
}

void World::set_nominal(JobRun& r, double t, bool notify) {
  if (t == r.nominal_t || r.shared.empty()) {
    r.nominal_t = t;
    return;
  }
  ++epoch;
  for (std::size_t i = 0; i < r.shared.size(); ++i) {
    const int l = r.shared[i];
    link_load[l] += (t > 0 ? r.shared_bytes[i] / t : 0) - (r.nominal_t > 0 ? r.shared_bytes[i] / r.nominal_t : 0);
    for (const LinkUser& u : link_users[l]) {  // their next drifted() looks at this link again
      JobRun& o = *u.run;
      if (&o == &r || !o.drift_clear) continue;
      if (o.drift_pending.size() < o.shared.size()) {
        o.drift_pending.push_back(u.index);
      } else {
        o.forget_drift();  // links changed more often than it has links: the whole check is as cheap
      }
    }
  }
  r.nominal_t = t;
  r.forget_drift();  // its own load is counted out of the others' at the new pace
  if (!notify) return;
  ++mark_stamp;
  for (int l : r.shared)
    for (const LinkUser& u : link_users[l]) {
      JobRun& o = *u.run;
      if (&o == &r || o.mark == mark_stamp) continue;
      o.mark = mark_stamp;
      if (!o.dirty && drifted(o)) wake(o);
    }
}

void World::for_each_live(const std::function<void(JobRun&)>& f) {
  for (auto it = live.begin(); it != live.end();) {
    JobRun& r = *it->second;
    if (r.phase == JobRun::Phase::Completed || r.phase == JobRun::Phase::Killed) {  // never runs again
      it = live.erase(it);
      continue;
    }
    ++it;  // f starts and ends no attempt
    f(r);
  }
}

void World::wake_routes_over(const std::vector<int>& cables) {
  ++epoch;
  for_each_live([&](JobRun& r) {
    if (r.phase == JobRun::Phase::Blocked) {  // waiting for its cables: it looks whether they are all up
      wake(r);
      return;
    }
    if (r.phase != JobRun::Phase::Training) return;
    auto crosses = [&] {
      for (const FlowStep& s : r.steps)
        for (const FlowGroup& g : s.groups)
          for (const Flow& f : g.flows)
            for (int c : platform.route(f.from, f.to).cables)
              if (std::find(cables.begin(), cables.end(), c) != cables.end()) return true;
      return false;
    };
    if (crosses()) wake(r);
  });
}

void World::wake_gpus(const std::vector<int>& gpus) {
  ++epoch;
  for (auto& [key, run] : runs)
    for (int g : run->launch.gpus)
      if (std::find(gpus.begin(), gpus.end(), g) != gpus.end()) {
        wake(*run);
        break;
      }
}

}  // namespace tt::sim
