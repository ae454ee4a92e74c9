#include "sim/activities.hpp"

#include <numeric>
#include <simgrid/Exception.hpp>

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
      ssize_t first = sg4::Activity::wait_any(pending);
      if (inflight.cancelled) throw Cancelled{};  // woken by the end of an activity, but stopped meanwhile
      pending[first]->wait();                     // already over: a no-op, or the failure
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

}  // namespace tt::sim
