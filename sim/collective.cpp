#include "sim/collective.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/s4u.hpp>

#include "sim/session.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

FlowGroup compile_group(const Platform& platform, const CommGroup& group) {
  FlowGroup out;
  const auto n = static_cast<int>(group.gpus.size());
  Seconds alpha;
  auto edge = [&](int a, int b, double bytes) {
    if (a == b) return;
    Flow f{platform.gpu(a), platform.gpu(b), bytes, nullptr};
    f.route = &platform.route(f.from, f.to);
    alpha = std::max(alpha, f.route->latency);
    if (bytes > 0) out.flows.push_back(f);
  };
  if (group.collective == Collective::SendRecv) {
    if (n == 2) edge(group.gpus[0], group.gpus[1], group.bytes.value);
    out.latency = alpha * group.calls;
    return out;
  }
  if (n < 2) return out;
  const double steps = 2.0 * (n - 1);
  for (int i = 0; i < n; ++i) edge(group.gpus[i], group.gpus[(i + 1) % n], group.bytes.value * steps / n);
  out.latency = alpha * (steps * group.calls);
  return out;
}

FlowStep compile_step(const Platform& platform, const CommStep& step) {
  FlowStep out{step.label, {}};
  for (const CommGroup& g : step.groups) out.groups.push_back(compile_group(platform, g));
  return out;
}

std::vector<Seconds> run_step(const FlowStep& step, InFlight& inflight) {
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::ActivityPtr> batch;
  std::vector<std::size_t> group_of;
  for (std::size_t g = 0; g < step.groups.size(); ++g)
    for (const Flow& f : step.groups[g].flows) {
      batch.push_back(sg4::Comm::sendto_async(f.from, f.to, static_cast<std::uint64_t>(std::llround(f.bytes))));
      group_of.push_back(g);
    }
  inflight.started += static_cast<long long>(batch.size());
  std::vector<double> flows_end(step.groups.size(), start);
  std::vector<double> finish = wait_all(batch, inflight);
  for (std::size_t k = 0; k < finish.size(); ++k) flows_end[group_of[k]] = std::max(flows_end[group_of[k]], finish[k]);
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
