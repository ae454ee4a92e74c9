// PoolEffects: an Executor decorator that plays what a pool's provider does, on any backend (docs/pools.md). A
// ProvisionNode is answered with NodeProvisioned after the pool's provisioning delay; a spot node, once provisioned,
// gets a reclaim notice after an exponential time of the pool's mean, and NodeReclaimed `notice` later. Every draw
// comes from the scenario's seed, one stream per node and provisioning, so both drivers see the same delays for the
// same decisions. A ReleaseNode cancels what is pending for the node. Actions pass on to the backend (the real driver
// adds and removes worker slots). Without pools everything passes through unchanged.
#pragma once

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "core/drive/drive_loop.hpp"

namespace tt {

class PoolEffects final : public Executor {
 public:
  PoolEffects(const Scenario& scenario, Executor& inner);

  void execute(const Action& action, Seconds now) override;
  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds now) override {
    inner_.inject(c, f, t, now);
  }
  std::optional<Event> next_event() override;
  void observe(Seconds now) override;
  std::optional<Seconds> next_observation() const override;
  bool busy() const override { return inner_.busy(); }
  bool failed() const override { return inner_.failed(); }
  std::optional<NetworkSample> network_sample() override { return inner_.network_sample(); }
  void handled(const Event& e, const std::vector<Action>& a, Seconds now) override { inner_.handled(e, a, now); }

  Seconds last_delay() const { return last_delay_; }  // the delay drawn for the latest ProvisionNode

 private:
  enum class Step { Provisioned, Notice, Reclaimed };

  const Scenario& sc_;
  Executor& inner_;
  std::vector<int> pool_of_;         // by node, -1 without pools
  std::vector<unsigned> provisions_;  // by node: provisionings so far (the stream index)
  std::set<std::tuple<Seconds, int, Step>> pending_;  // (at, node, step)
  std::map<int, Seconds> goes_at_;   // node -> when a noticed node goes
  std::vector<Event> queued_;
  std::size_t next_queued_ = 0;
  Seconds last_delay_;
};

}  // namespace tt
