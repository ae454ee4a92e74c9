#include "sim/activities.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <unordered_map>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace tt::sim {

void cancel_unless_over(sg4::Activity& a) {
  const auto st = a.get_state();
  if (st != sg4::Activity::State::FINISHED && st != sg4::Activity::State::FAILED &&
      st != sg4::Activity::State::CANCELED)
    a.cancel();
}

std::vector<double> wait_all(const std::vector<sg4::ActivityPtr>& batch, InFlight& inflight, bool count) {
  auto ended = [&](std::size_t n) {
    if (inflight.census && count) inflight.census->ended(static_cast<long long>(n));
  };
  if (inflight.cancelled) {
    for (auto& a : batch) cancel_unless_over(*a);
    ended(batch.size());
    throw Cancelled{};
  }
  std::vector<double> finish(batch.size(), -1);
  std::vector<std::size_t> index(batch.size());
  std::iota(index.begin(), index.end(), 0);
  std::vector<sg4::ActivityPtr> pending = batch;
  inflight.waiting.insert(inflight.waiting.end(), batch.begin(), batch.end());
  auto done = [&](std::size_t k) {
    finish[index[k]] = pending[k]->get_finish_time();
    pending[k] = pending.back();
    index[k] = index.back();
    pending.pop_back();
    index.pop_back();
    ended(1);
  };
  try {
    while (!pending.empty()) {
      // Throws the failure of the activity that ended, if it failed; else that activity is collected.
      ssize_t first = sg4::Activity::wait_any(pending);
      if (inflight.cancelled) throw Cancelled{};  // woken by the end of an activity, but stopped meanwhile
      done(first);
      // Flows of one ring usually end together: collect every activity already over without another wait_any.
      for (std::size_t k = pending.size(); k-- > 0;)
        if (pending[k]->get_finish_time() >= 0) {
          pending[k]->wait();
          done(k);
        }
    }
  } catch (const simgrid::ForcefulKillException&) {
    throw;  // never cancel from a dying actor (kill_job() cancels rather than kills an actor that waits here)
  } catch (...) {
    for (auto& a : pending) cancel_unless_over(*a);
    ended(pending.size());
    throw;
  }
  return finish;
}

void cancel_all(InFlight& inflight) {
  inflight.cancelled = true;
  for (auto& a : inflight.waiting) cancel_unless_over(*a);
  inflight.waiting.clear();
}

namespace {

struct Helper {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  std::function<void()> task;
};

struct Pool {
  const sg4::Engine* engine = nullptr;
  std::vector<std::vector<std::shared_ptr<Helper>>> idle;  // by the host's NetPoint::id()

  std::vector<std::shared_ptr<Helper>>& of(const sg4::Host* host) {
    const unsigned long id = host->get_netpoint()->id();
    if (idle.size() <= id) idle.resize(id + 1);
    return idle[id];
  }
};

Pool& pool() {
  static Pool p;
  if (p.engine != sg4::Engine::get_instance()) p = Pool{sg4::Engine::get_instance(), {}};
  return p;
}

}  // namespace

void run_helper(sg4::Host* host, std::function<void()> task) {
  auto& idle = pool().of(host);
  if (!idle.empty()) {
    std::shared_ptr<Helper> h = std::move(idle.back());
    idle.pop_back();
    h->task = std::move(task);
    h->wake->release();
    return;
  }
  auto h = std::make_shared<Helper>();
  h->task = std::move(task);
  start_small_actor("flows", host, [h, host] {
    struct Gone {  // killed with its host (or at the end): out of the pool
      const std::shared_ptr<Helper>& h;
      const sg4::Host* host;
      ~Gone() {
        auto& v = pool().of(host);
        v.erase(std::remove(v.begin(), v.end(), h), v.end());
      }
    } gone{h, host};
    for (;;) {
      std::function<void()> task = std::move(h->task);
      h->task = nullptr;
      task();
      task = nullptr;
      pool().of(host).push_back(h);
      h->wake->acquire();
    }
  })->daemonize();
}

}  // namespace tt::sim
