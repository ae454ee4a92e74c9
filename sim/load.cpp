#include "sim/load.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>

#include "sim/activities.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

// Parks a helper until stop() (or the end of the simulation), its flows in `comms`. It does not wait on the flows: a
// cancelled comm raises an exception (with a backtrace) in every actor waiting on it, 13% of the fleet month's time.
// Its flows, over or stopped, stay on the helper's list of activities in SimGrid 3.32 until the helper ends
// (activities.hpp: run_load_helper). A stop() that came while the helper started its flows did not see them: the
// helper cancels them itself.
void park(FastForwardLoad::State& st, const std::vector<sg4::CommPtr>& comms) {
  if (st.stopped) {
    for (const auto& c : comms) cancel_unless_over(*c);
    return;
  }
  st.comms.insert(st.comms.end(), comms.begin(), comms.end());
  ++st.parked;
  st.wake->acquire();
}

}  // namespace

FastForwardLoad::FastForwardLoad(const std::vector<sg4::Mailbox*>& mailboxes, const std::vector<LoadEdge>& edges,
                                 double iteration, double duration)
    : state_(std::make_shared<State>()) {
  // By the hosts' NetPoint ids, not their addresses: helpers start in the same order under any allocator.
  struct Sends {
    sg4::Host* host;
    std::vector<std::pair<sg4::Mailbox*, double>> out;  // (mailbox, rate)
  };
  struct Receives {
    sg4::Host* host;
    std::vector<sg4::Mailbox*> in;
  };
  std::map<unsigned long, Sends> sends;
  std::map<unsigned long, Receives> receives;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    sg4::Mailbox* mb = mailboxes.at(k);
    const LoadEdge& e = edges[k];
    sends.try_emplace(e.from->get_netpoint()->id(), Sends{e.from, {}})
        .first->second.out.emplace_back(mb, e.bytes_per_iteration / iteration);
    receives.try_emplace(e.to->get_netpoint()->id(), Receives{e.to, {}}).first->second.in.push_back(mb);
  }
  // A hair short of `duration`, so that a job that trains to its end uninterrupted finds its flows over.
  const double span = duration * (1 - 1e-7);
  for (auto& [id, r] : receives) {
    run_load_helper(r.host, [st = state_, mbs = std::move(r.in)] {
      if (st->stopped) return;  // stopped before it ran
      std::vector<void*> slots(mbs.size());
      std::vector<sg4::CommPtr> comms;
      for (std::size_t i = 0; i < mbs.size(); ++i) comms.push_back(mbs[i]->get_async(&slots[i]));
      park(*st, comms);
    });
  }
  for (auto& [id, snd] : sends) {
    run_load_helper(snd.host, [st = state_, out = std::move(snd.out), span] {
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
      park(*st, comms);
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
  // Parked helpers wake and collect their flows; those that have not run yet see `stopped` and return: none is killed
  // (SimGrid 3.32 crashed, weeks of simulated time into the fleet month, after such kills).
  for (int i = 0; i < st.parked; ++i) st.wake->release();
  st.parked = 0;
  st.comms.clear();
}

}  // namespace tt::sim
