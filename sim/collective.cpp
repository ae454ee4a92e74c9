#include "sim/collective.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <unordered_map>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "sim/session.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

Flow make_flow(const Platform& platform, sg4::Host* from, sg4::Host* to, double bytes, int phase) {
  return Flow{from, to, bytes, &platform.route(from, to), phase, nullptr};
}

FlowGroup compile_group(const Platform& platform, const CommGroup& group) {
  require_planned(group);
  FlowGroup out;
  // Transfers of one phase between the same two GPUs (the channels of a ring, the chains of trees) share the same
  // route and start together: one flow of their summed bytes (under max-min they would share the route equally).
  std::unordered_map<std::uint64_t, std::size_t> merged;
  // The routes' slots asked of the cache first, all of them (a group sends between at most a few thousand pairs, whose
  // lines stay cached until the loop below reads them): their cache misses overlap instead of coming one by one.
  for (const std::vector<Transfer>& phase : group.phases)
    for (const Transfer& t : phase) __builtin_prefetch(platform.gpu_route_entry(t.from, t.to));
  for (std::size_t p = 0; p < group.phases.size(); ++p)
    for (const Transfer& t : group.phases[p]) {
      const double bytes = group.bytes.value * t.share;
      if (t.from == t.to || bytes <= 0) continue;
      const std::uint64_t key = (static_cast<std::uint64_t>(p) << 48) ^ (static_cast<std::uint64_t>(t.from) << 24) ^
                                static_cast<std::uint64_t>(t.to);
      if (auto it = merged.find(key); it != merged.end()) {
        out.flows[it->second].bytes += bytes;
        continue;
      }
      merged.emplace(key, out.flows.size());
      out.flows.push_back(Flow{platform.gpu(t.from), platform.gpu(t.to), bytes, &platform.gpu_route(t.from, t.to),
                               static_cast<int>(p), nullptr});
    }
  out.phases = std::max(1, static_cast<int>(group.phases.size()));
  out.latency = group.latency * group.calls;
  return out;
}

FlowStep compile_step(const Platform& platform, const CommStep& step) {
  FlowStep out{step.label, {}};
  for (const CommGroup& g : step.groups) out.groups.push_back(compile_group(platform, g));
  return out;
}

namespace {

// Runs body(i) for i < n, each in its own helper actor on host(i), and returns when all are done, rethrowing the first
// exception one of them threw (the others were cancelled through `inflight`). While helpers run, kill_job() stops the
// owner by cancelling (InFlight::helpers), never by killing it: the helpers use the caller's frame. A helper killed
// with its host (a crash) still counts as done.
template <class Host, class Body>
void fork_join(std::size_t n, InFlight& inflight, const Host& host, const Body& body) {
  struct Join {
    std::size_t left = 0;
    sg4::SemaphorePtr done = sg4::Semaphore::create(0);
    std::exception_ptr error;
  };
  auto join = std::make_shared<Join>();
  join->left = n;
  ++inflight.helpers;
  for (std::size_t i = 0; i < n; ++i)
    run_helper(host(i), [join, i, &inflight, &body] {
      struct Done {  // however the helper ends
        Join& j;
        ~Done() {
          if (--j.left == 0) j.done->release();
        }
      } done{*join};
      try {
        if (inflight.cancelled) throw Cancelled{};
        body(i);
      } catch (const simgrid::ForcefulKillException&) {
        throw;
      } catch (...) {
        if (!join->error) join->error = std::current_exception();
        if (!inflight.cancelled) cancel_all(inflight);  // the step failed: its other flows stop too
      }
    });
  join->done->acquire();
  --inflight.helpers;
  if (join->error) std::rethrow_exception(join->error);
}

long long direct_comm_bound = 4096;  // set_direct_comm_bound()

// Direct comms in flight (started by run_flows and not yet waited for), in this engine.
struct DirectComms {
  const sg4::Engine* engine = nullptr;
  long long in_flight = 0;
};

DirectComms& direct_comms() {
  static DirectComms d;
  if (d.engine != sg4::Engine::get_instance()) d = DirectComms{sg4::Engine::get_instance(), 0};
  return d;
}

// Starts `flows` together and returns each one's finish time. Each flow is a direct host-to-host comm
// (Comm::sendto_async) that the calling actor starts and waits for while few are in flight (direct_comm_bound), else a
// mailbox comm between helper actors on its two hosts, one per host (collective.hpp says why). The two give the same
// times; the choice depends only on the simulation's state, so runs stay deterministic.
std::vector<double> run_flows(const std::vector<const Flow*>& flows, InFlight& inflight) {
  if (inflight.cancelled) throw Cancelled{};
  if (flows.empty()) return {};
  inflight.started += static_cast<long long>(flows.size());
  if (inflight.census) inflight.census->started(static_cast<long long>(flows.size()));
  const auto n = static_cast<long long>(flows.size());
  if (DirectComms& direct = direct_comms(); direct.in_flight + n <= direct_comm_bound) {
    struct Held {  // until the wait ends, however it ends; the census counts the flows ended then too
      DirectComms& d;
      InFlight& inflight;
      long long n;
      ~Held() {
        d.in_flight -= n;
        if (inflight.census) inflight.census->ended(n);
      }
    } held{direct, inflight, n};
    direct.in_flight += n;
    std::vector<sg4::ActivityPtr> batch;
    batch.reserve(flows.size());
    for (const Flow* f : flows) {
      const auto bytes = static_cast<std::uint64_t>(std::llround(f->bytes));
      batch.push_back(sg4::Comm::sendto_async(f->from, f->to, bytes));
    }
    return wait_all(batch, inflight, /*count=*/false);
  }
  struct End {
    sg4::Host* host;
    std::vector<std::size_t> out, in;  // flows leaving and arriving
  };
  std::vector<End> ends;  // in order of first appearance, senders first
  std::unordered_map<const sg4::Host*, std::size_t> end_at;
  auto end_of = [&](sg4::Host* host) -> End& {
    auto [it, fresh] = end_at.emplace(host, ends.size());
    if (fresh) ends.push_back(End{host, {}, {}});
    return ends[it->second];
  };
  for (const Flow* f : flows)
    if (!f->mailbox) f->mailbox = sg4::Mailbox::by_name("flow:" + f->from->get_name() + ">" + f->to->get_name());
  for (std::size_t k = 0; k < flows.size(); ++k) end_of(flows[k]->from).out.push_back(k);
  for (std::size_t k = 0; k < flows.size(); ++k) end_of(flows[k]->to).in.push_back(k);
  static char payload;  // flows carry no data
  std::vector<double> finish(flows.size(), -1);
  fork_join(
      ends.size(), inflight, [&](std::size_t i) { return ends[i].host; },
      [&](std::size_t i) {
        const End& e = ends[i];
        struct Ended {  // the census counts a flow ended at its sender, however the wait ends
          InFlight& inflight;
          std::size_t n;
          ~Ended() {
            if (inflight.census) inflight.census->ended(static_cast<long long>(n));
          }
        } ended{inflight, e.out.size()};
        std::vector<sg4::ActivityPtr> batch;
        std::vector<void*> slots(e.in.size());
        for (std::size_t k : e.out) {
          const auto bytes = static_cast<std::uint64_t>(std::llround(flows[k]->bytes));
          batch.push_back(flows[k]->mailbox->put_async(&payload, bytes));
        }
        for (std::size_t j = 0; j < e.in.size(); ++j) batch.push_back(flows[e.in[j]]->mailbox->get_async(&slots[j]));
        const std::vector<double> done = wait_all(batch, inflight, /*count=*/false);
        for (std::size_t j = 0; j < e.out.size(); ++j) finish[e.out[j]] = done[j];
      });
  return finish;
}

// Every group's phases in order, the groups concurrently (a helper actor each when there are several): a group starts
// its next phase when its last flow of the current one ends. Returns each group's last flow end.
std::vector<double> run_phased(const FlowStep& step, InFlight& inflight, double start, std::vector<double>* rates) {
  std::vector<double> end(step.groups.size(), start);
  std::vector<std::size_t> first(step.groups.size(), 0);  // index of each group's first flow in `rates`
  for (std::size_t g = 1; g < step.groups.size(); ++g) first[g] = first[g - 1] + step.groups[g - 1].flows.size();
  auto run_group = [&](std::size_t g) {
    const FlowGroup& fg = step.groups[g];
    for (int p = 0; p < fg.phases; ++p) {
      std::vector<const Flow*> flows;
      for (const Flow& f : fg.flows)
        if (f.phase == p) flows.push_back(&f);
      const double t0 = sg4::Engine::get_clock();
      const std::vector<double> finish = run_flows(flows, inflight);
      for (std::size_t k = 0; k < flows.size(); ++k) {
        end[g] = std::max(end[g], finish[k]);
        if (rates && finish[k] > t0)
          (*rates)[first[g] + static_cast<std::size_t>(flows[k] - fg.flows.data())] = flows[k]->bytes / (finish[k] - t0);
      }
    }
  };
  if (step.groups.size() == 1)
    run_group(0);
  else
    fork_join(step.groups.size(), inflight, [](std::size_t) { return sg4::this_actor::get_host(); }, run_group);
  return end;
}

}  // namespace

void set_direct_comm_bound(long long flows) { direct_comm_bound = flows; }

std::vector<Seconds> run_step(const FlowStep& step, InFlight& inflight, std::vector<double>* rates) {
  // Stopped while it slept through the previous step's latency: start nothing (a host it would send to may be off).
  if (inflight.cancelled) throw Cancelled{};
  const double start = sg4::Engine::get_clock();
  std::vector<double> flows_end(step.groups.size(), start);
  const bool phased =
      std::any_of(step.groups.begin(), step.groups.end(), [](const FlowGroup& g) { return g.phases > 1; });
  if (rates) {
    std::size_t n = 0;
    for (const FlowGroup& g : step.groups) n += g.flows.size();
    rates->assign(n, 0);
  }
  try {
    if (phased) {
      flows_end = run_phased(step, inflight, start, rates);
    } else {
      std::vector<const Flow*> flows;
      std::vector<std::size_t> group_of;
      for (std::size_t g = 0; g < step.groups.size(); ++g)
        for (const Flow& f : step.groups[g].flows) {
          flows.push_back(&f);
          group_of.push_back(g);
        }
      const std::vector<double> finish = run_flows(flows, inflight);
      for (std::size_t k = 0; k < finish.size(); ++k) {
        flows_end[group_of[k]] = std::max(flows_end[group_of[k]], finish[k]);
        if (rates && finish[k] > start) (*rates)[k] = flows[k]->bytes / (finish[k] - start);
      }
    }
  } catch (const simgrid::ForcefulKillException&) {
    throw;
  } catch (...) {
    inflight.waiting.clear();
    throw;
  }
  inflight.waiting.clear();  // nothing in flight: kill_job() may kill the actor in the latency sleep below
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
