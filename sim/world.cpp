#include "sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/s4u/Engine.hpp>

#include "sim/job.hpp"

namespace tt::sim {

World::World(const Scenario& s, Platform& p)
    : scenario(s),
      platform(p),
      gpu_speed(static_cast<std::size_t>(s.topology.total_gpus()), 1.0),
      ff_node_rate(p.topology().nodes().size(), 0.0),
      ff_node_jobs(p.topology().nodes().size(), 0),
      link_load(2 * p.topology().edges().size(), 0.0),
      link_users(2 * p.topology().edges().size()) {}
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
  for (int l : r.links) link_users[l].push_back(&r);
}

void World::leave(JobRun& r) {
  if (!r.joined) return;
  set_nominal(r, 0);
  r.joined = false;
  for (int l : r.links) {
    auto& users = link_users[l];
    users.erase(std::find(users.begin(), users.end(), &r));
  }
}

void World::snapshot_seen(JobRun& r) {
  r.peak.clear();  // the measurement fills them (job.cpp)
  r.busy.clear();
  r.seen.resize(r.links.size());
  for (std::size_t i = 0; i < r.links.size(); ++i)
    r.seen[i] = link_load[r.links[i]] - (r.nominal_t > 0 ? r.link_bytes[i] / r.nominal_t : 0);
}

namespace {

// Whether the flows of two jobs could contend on a link they both cross: their peaks there (from their last
// measurements; unknown counts as the whole link) exceed it.
bool contend(const Topology& topo, const JobRun& a, const JobRun& b, int link) {
  auto peak = [&](const JobRun& r) {
    const auto it = std::lower_bound(r.links.begin(), r.links.end(), link);
    const auto i = static_cast<std::size_t>(it - r.links.begin());
    return i < r.peak.size() && r.iteration_time > 0 ? r.peak[i] : topo.link(link / 2).bandwidth.value;
  };
  return kPeakMargin * (peak(a) + peak(b)) > topo.link(link / 2).bandwidth.value;
}

// Whether `o` measured alongside `r` (its window overlapped r's).
bool measured_with(const JobRun& o, const JobRun& r) {
  return o.measuring || (r.window_start >= 0 && o.window_end >= r.window_start);
}

double clock() { return simgrid::s4u::Engine::get_clock(); }

}  // namespace

void World::begin_measuring(JobRun& r, bool measures) {
  const Topology& topo = platform.topology();
  const bool ask = !r.co_woken || !measures;
  if (measures) {
    r.co_woken = false;
    r.measuring = true;
    r.satisfied = false;
  }
  ++mark_stamp;
  for (int l : r.links)
    for (JobRun* o : link_users[l]) {
      if (o == &r || o->mark == mark_stamp || o->phase != JobRun::Phase::Training) continue;
      if (o->measuring) {
        o->mark = mark_stamp;
        o->window_reset = true;
        continue;
      }
      if (!ask || o->co_woken || o->iteration_time <= 0 || !contend(topo, r, *o, l)) continue;
      o->mark = mark_stamp;
      o->co_woken = true;
      wake(*o);
    }
}

bool World::co_pending(const JobRun& r) const {
  for (int l : r.links)
    for (const JobRun* o : link_users[l])
      if (o != &r && o->phase == JobRun::Phase::Training &&
          (o->co_woken || o->pausing || (o->measuring && !o->satisfied)))
        return true;
  return false;
}

bool World::contended(const JobRun& r) const {
  const Topology& topo = platform.topology();
  for (int l : r.links)
    for (const JobRun* o : link_users[l])
      if (o != &r && o->phase == JobRun::Phase::Training && o->iteration_time > 0 && contend(topo, r, *o, l))
        return true;
  return false;
}

void World::note_partners(JobRun& r) {
  r.partners.clear();
  for (int l : r.links)
    for (const JobRun* o : link_users[l])
      if (o != &r && std::find(r.partners.begin(), r.partners.end(), o) == r.partners.end() &&
          (o->pausing || measured_with(*o, r)))
        r.partners.push_back(o);
}

double World::longest_sharer_iteration(const JobRun& r) const {
  double longest = 0;
  for (int l : r.links)
    for (const JobRun* o : link_users[l])
      if (o != &r && o->measuring && o->phase == JobRun::Phase::Training) longest = std::max(longest, o->last_iteration);
  return longest;
}

void World::end_measuring(JobRun& r) {
  for (int l : r.links)
    for (JobRun* o : link_users[l])
      if (o != &r && o->measuring) o->window_closed = true;
}

void World::set_nominal(JobRun& r, double t, bool notify) {
  const double threshold = scenario.sim.remeasure_threshold;
  if (t == r.nominal_t || r.links.empty()) {
    r.nominal_t = t;
    return;
  }
  ++epoch;
  for (std::size_t i = 0; i < r.links.size(); ++i)
    link_load[r.links[i]] += (t > 0 ? r.link_bytes[i] / t : 0) - (r.nominal_t > 0 ? r.link_bytes[i] / r.nominal_t : 0);
  r.nominal_t = t;
  if (!notify) return;
  const Topology& topo = platform.topology();
  const bool just_measured = t > 0 && r.window_end == clock();  // r's pace comes from the window that just ended
  auto drifted = [&](const JobRun& o) {
    if (o.seen.size() != o.links.size()) return false;  // it has not measured yet: it will see the load as it is
    if (std::find(o.partners.begin(), o.partners.end(), &r) != o.partners.end()) return true;
    for (std::size_t i = 0; i < o.links.size(); ++i) {
      const int l = o.links[i];
      const double others = link_load[l] - (o.nominal_t > 0 ? o.link_bytes[i] / o.nominal_t : 0);
      const double left = topo.link(l / 2).bandwidth.value - std::max(others, o.seen[i]);
      // Its flows there never needed more than this, before or after: the link does not bind it.
      if (i < o.peak.size() && kPeakMargin * o.peak[i] <= left) continue;
      if (left <= 0) return true;
      // Only the steps crossing the link slow down, by at most the relative change of what is left to the job there.
      const double share = i < o.busy.size() ? o.busy[i] : 1.0;
      if (share * std::abs(others - o.seen[i]) > threshold * left) return true;
    }
    return false;
  };
  ++mark_stamp;
  for (int l : r.links)
    for (JobRun* o : link_users[l]) {
      if (o == &r || o->mark == mark_stamp) continue;
      o->mark = mark_stamp;
      if (just_measured && measured_with(*o, r)) {  // it saw r's flows themselves: the load it saw is r's as it is now
        for (std::size_t i = 0; i < o->links.size() && o->seen.size() == o->links.size(); ++i)
          o->seen[i] = link_load[o->links[i]] - (o->nominal_t > 0 ? o->link_bytes[i] / o->nominal_t : 0);
        continue;
      }
      if (!o->dirty && drifted(*o)) wake(*o);
    }
}

void World::wake_routes_over(const std::vector<int>& cables) {
  ++epoch;
  for (auto& [key, run] : runs) {
    if (run->phase == JobRun::Phase::Blocked) {  // waiting for its cables: it looks whether they are all up
      wake(*run);
      continue;
    }
    if (run->phase != JobRun::Phase::Training) continue;
    bool crosses = false;
    for (const FlowStep& s : run->steps)
      for (const FlowGroup& g : s.groups)
        for (const Flow& f : g.flows)
          for (int c : platform.route(f.from, f.to).cables)
            crosses = crosses || std::find(cables.begin(), cables.end(), c) != cables.end();
    if (crosses) wake(*run);
  }
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
