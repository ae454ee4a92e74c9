// PreflightEffects: an Executor decorator that plays what a failed preflight costs, on any backend. A job launched
// across nodes whose releases disagree on NCCL never forms its communicator: its ranks stay alive but make no progress
// (NCCL's bootstrap waits; rule nccl-same-version), so the decorator plays a deadlock of the job on its first node at
// launch, which the backend reports as it reports any deadlock and the Controller's watchdog declares. A node whose
// attention library falls back to a slower kernel computes at TwinPreflight::attention_fallback_speed from the start
// (played as a straggling GPU, which both drivers can play). With a socket transport, a node whose socket buffers cap
// its TCP throughput (preflight::socket_limits) carries its NICs' traffic at that efficiency from the start (a
// bandwidth factor on its NIC cables; the simulator plays it, the real driver refuses such a scenario). Everything
// else passes through unchanged.
#pragma once

#include "core/drive/drive_loop.hpp"

namespace tt {

class PreflightEffects final : public Executor {
 public:
  PreflightEffects(const Scenario& scenario, Executor& inner) : sc_(scenario), inner_(inner) {}

  void execute(const Action& action, Seconds now) override;
  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds now) override {
    inner_.inject(c, f, t, now);
  }
  std::optional<Event> next_event() override { return inner_.next_event(); }
  void observe(Seconds now) override {
    slow_fallback_nodes(now);
    inner_.observe(now);
  }
  std::optional<Seconds> next_observation() const override { return inner_.next_observation(); }
  bool busy() const override { return inner_.busy(); }
  bool failed() const override { return inner_.failed(); }
  std::optional<NetworkSample> network_sample() override { return inner_.network_sample(); }
  void handled(const Event& e, const std::vector<Action>& a, Seconds now) override { inner_.handled(e, a, now); }

  int setup_hangs() const { return setup_hangs_; }

 private:
  void slow_fallback_nodes(Seconds now);
  void throttle_socket_nodes(Seconds now);

  const Scenario& sc_;
  Executor& inner_;
  int setup_hangs_ = 0;
  bool slowed_ = false;
};

}  // namespace tt
