#include "sim/collective.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "sim/session.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

FlowGroup compile_group(const Platform& platform, const CommGroup& group) {
  FlowGroup out;
  const auto n = static_cast<int>(group.gpus.size());
  Seconds alpha;
  // Transfers of one phase between the same two GPUs (the channels of a ring, the chains of trees) share the same
  // route and start together: one flow of their summed bytes (under max-min they would share the route equally).
  std::unordered_map<std::uint64_t, std::size_t> merged;
  auto edge = [&](int a, int b, double bytes, int phase) {
    if (a == b) return;
    const std::uint64_t key = (static_cast<std::uint64_t>(phase) << 48) ^ (static_cast<std::uint64_t>(a) << 24) ^
                              static_cast<std::uint64_t>(b);
    if (auto it = merged.find(key); it != merged.end()) {
      out.flows[it->second].bytes += bytes;
      return;
    }
    Flow f{platform.gpu(a), platform.gpu(b), bytes, nullptr, phase};
    f.route = &platform.route(f.from, f.to);
    alpha = std::max(alpha, f.route->latency);
    if (bytes > 0) {
      merged.emplace(key, out.flows.size());
      out.flows.push_back(f);
    }
  };
  if (!group.phases.empty()) {  // planned: the chosen algorithm's transfers, phase after phase
    for (std::size_t p = 0; p < group.phases.size(); ++p)
      for (const Transfer& t : group.phases[p]) edge(t.from, t.to, group.bytes.value * t.share, static_cast<int>(p));
    out.phases = static_cast<int>(group.phases.size());
    out.latency = group.latency * group.calls;
    return out;
  }
  if (group.collective == Collective::SendRecv) {
    if (n == 2) edge(group.gpus[0], group.gpus[1], group.bytes.value, 0);
    out.latency = alpha * group.calls;
    return out;
  }
  if (n < 2) return out;
  const double steps = 2.0 * (n - 1);
  for (int i = 0; i < n; ++i) edge(group.gpus[i], group.gpus[(i + 1) % n], group.bytes.value * steps / n, 0);
  out.latency = alpha * (steps * group.calls);
  return out;
}

FlowStep compile_step(const Platform& platform, const CommStep& step) {
  FlowStep out{step.label, {}};
  for (const CommGroup& g : step.groups) out.groups.push_back(compile_group(platform, g));
  return out;
}

namespace {

// SimGrid 3.32 detaches every host-to-host comm onto the maestro's activity list and scans that whole list when any of
// them ends: each flow end costs the number of flows in flight in the whole simulation (FlowCensus, activities.hpp).
sg4::ActivityPtr start_flow(const Flow& f) {
  return sg4::Comm::sendto_async(f.from, f.to, static_cast<std::uint64_t>(std::llround(f.bytes)));
}

// Every group's phases in order, the groups concurrently: a group starts its next phase when its last flow of the
// current one ends. Returns when every flow ended, with each group's last flow end. Cancellation and failures as in
// wait_all() (activities.hpp); `inflight` holds the flows in flight meanwhile.
std::vector<double> run_phased(const FlowStep& step, InFlight& inflight, double start) {
  if (inflight.cancelled) throw Cancelled{};
  const std::size_t groups = step.groups.size();
  std::vector<double> end(groups, start);
  std::vector<int> phase(groups, -1);
  std::vector<int> left(groups, 0);
  std::vector<sg4::ActivityPtr> pending;
  std::vector<std::size_t> owner;
  auto next_phase = [&](std::size_t g) {  // starts the group's next phase that has flows, if any
    const FlowGroup& fg = step.groups[g];
    while (left[g] == 0 && ++phase[g] < fg.phases)
      for (const Flow& f : fg.flows)
        if (f.phase == phase[g]) {
          pending.push_back(start_flow(f));
          owner.push_back(g);
          ++left[g];
          ++inflight.started;
          if (inflight.census) inflight.census->started(1);
        }
  };
  for (std::size_t g = 0; g < groups; ++g) next_phase(g);
  inflight.waiting = pending;
  try {
    while (!pending.empty()) {
      ssize_t first = sg4::Activity::wait_any(pending);
      if (inflight.cancelled) throw Cancelled{};
      std::vector<std::size_t> finished;
      for (std::size_t k = pending.size(); k-- > 0;)
        if (static_cast<ssize_t>(k) == first || pending[k]->get_finish_time() >= 0) {
          pending[k]->wait();  // already over: a no-op, or the failure
          const std::size_t g = owner[k];
          end[g] = std::max(end[g], pending[k]->get_finish_time());
          --left[g];
          finished.push_back(g);
          pending[k] = pending.back();
          owner[k] = owner.back();
          pending.pop_back();
          owner.pop_back();
          if (inflight.census) inflight.census->ended(1);
        }
      for (std::size_t g : finished) next_phase(g);
      inflight.waiting = pending;
    }
  } catch (const simgrid::ForcefulKillException&) {
    throw;
  } catch (...) {
    for (auto& a : pending) cancel_unless_over(*a);
    if (inflight.census) inflight.census->ended(static_cast<long long>(pending.size()));
    inflight.waiting.clear();
    throw;
  }
  inflight.waiting.clear();
  return end;
}

}  // namespace

std::vector<Seconds> run_step(const FlowStep& step, InFlight& inflight) {
  // Stopped while it slept through the previous step's latency: start nothing (a host it would send to may be off).
  if (inflight.cancelled) throw Cancelled{};
  const double start = sg4::Engine::get_clock();
  std::vector<double> flows_end(step.groups.size(), start);
  const bool phased =
      std::any_of(step.groups.begin(), step.groups.end(), [](const FlowGroup& g) { return g.phases > 1; });
  if (phased) {
    flows_end = run_phased(step, inflight, start);
  } else {
    std::vector<sg4::ActivityPtr> batch;
    std::vector<std::size_t> group_of;
    for (std::size_t g = 0; g < step.groups.size(); ++g)
      for (const Flow& f : step.groups[g].flows) {
        batch.push_back(start_flow(f));
        group_of.push_back(g);
      }
    inflight.started += static_cast<long long>(batch.size());
    if (inflight.census) inflight.census->started(static_cast<long long>(batch.size()));
    std::vector<double> finish = wait_all(batch, inflight);
    for (std::size_t k = 0; k < finish.size(); ++k)
      flows_end[group_of[k]] = std::max(flows_end[group_of[k]], finish[k]);
  }
  std::vector<Seconds> durations;
  double end = start;
  for (std::size_t g = 0; g < step.groups.size(); ++g) {
    durations.push_back(Seconds(flows_end[g] - start) + step.groups[g].latency);
    end = std::max(end, start + durations.back().value);
  }
  if (end > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(end);
  return durations;
}

CollectiveTimes time_collectives(const Topology& topology, const std::vector<CommStep>& steps) {
  Session session(topology);
  CollectiveTimes out;
  out.settings = session.settings();
  std::vector<FlowStep> compiled;
  for (const CommStep& s : steps) compiled.push_back(compile_step(session.platform(), s));
  std::exception_ptr error;
  sg4::Actor::create("collectives", session.platform().mgmt(), [&] {
    try {
      InFlight inflight;
      for (const FlowStep& s : compiled) {
        const double t0 = sg4::Engine::get_clock();
        out.groups.push_back(run_step(s, inflight));
        out.steps.push_back(Seconds(sg4::Engine::get_clock() - t0));
        out.total += out.steps.back();
      }
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      error = std::current_exception();
    }
  });
  session.run();
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace tt::sim
