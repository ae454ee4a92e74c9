#include "sim/load.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "sim/activities.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

// Blocks until the flows end or are cancelled. (Suspending the actor would not do: SimGrid suspends the activities
// of a suspended actor.)
void wait_quietly(const std::vector<sg4::CommPtr>& comms) {
  for (const auto& c : comms) {
    try {
      c->wait();
    } catch (const simgrid::Exception&) {  // cancelled by stop(), or a host or link of the flow went down
    }
  }
}

}  // namespace

FastForwardLoad::FastForwardLoad(const std::vector<sg4::Mailbox*>& mailboxes, const std::vector<LoadEdge>& edges,
                                 double iteration, double duration)
    : state_(std::make_shared<State>()) {
  std::map<sg4::Host*, std::vector<std::pair<sg4::Mailbox*, double>>> sends;  // by source: (mailbox, rate)
  std::map<sg4::Host*, std::vector<sg4::Mailbox*>> receives;                  // by destination
  for (std::size_t k = 0; k < edges.size(); ++k) {
    sg4::Mailbox* mb = mailboxes.at(k);
    sends[edges[k].from].emplace_back(mb, edges[k].bytes_per_iteration / iteration);
    receives[edges[k].to].push_back(mb);
  }
  // A hair short of `duration`, so that a job that trains to its end uninterrupted finds its flows over.
  const double span = duration * (1 - 1e-7);
  auto arm = [](State& st, const std::vector<sg4::CommPtr>& comms) {
    st.comms.insert(st.comms.end(), comms.begin(), comms.end());
  };
  for (auto& [host, mbs] : receives) {
    run_helper(host, [st = state_, mbs = mbs, arm] {
      if (st->stopped) return;  // stopped before it ran
      std::vector<void*> slots(mbs.size());
      std::vector<sg4::CommPtr> comms;
      for (std::size_t i = 0; i < mbs.size(); ++i) comms.push_back(mbs[i]->get_async(&slots[i]));
      arm(*st, comms);
      wait_quietly(comms);
    });
  }
  for (auto& [host, out] : sends) {
    run_helper(host, [st = state_, out = out, span, arm] {
      if (st->stopped) return;
      static int token;
      std::vector<sg4::CommPtr> comms;
      for (const auto& [mb, rate] : out) {
        // Sized to the duration: SimGrid's solver slowed down several times over with endless (2^62-byte) flows.
        const double bytes = std::clamp(std::floor(rate * span), 1.0, 1.8e19);
        auto c = mb->put_init(&token, static_cast<std::uint64_t>(bytes))->set_rate(rate);
        c->start();
        comms.push_back(c);
      }
      arm(*st, comms);
      wait_quietly(comms);
    });
  }
}

FastForwardLoad::~FastForwardLoad() = default;

void FastForwardLoad::stop() {
  State& st = *state_;
  if (st.stopped) return;
  st.stopped = true;
  for (auto& c : st.comms)
    cancel_unless_over(*c);
  // Actors that have not run yet see `stopped` and return: none is killed (SimGrid 3.32 crashed, weeks of simulated
  // time into the fleet month, after such kills).
  st.comms.clear();
}

}  // namespace tt::sim
