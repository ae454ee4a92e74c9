// ForwardingExecutor: the base of an Executor decorator (core/drive/release_effects.hpp, real/driver_release.hpp):
// every call goes to the wrapped executor; a decorator overrides what it plays itself and calls inner_ for the rest.
#pragma once

#include "core/drive/drive_loop.hpp"

namespace tt {

class ForwardingExecutor : public Executor {
 public:
  explicit ForwardingExecutor(Executor& inner) : inner_(inner) {}

  void execute(const Action& a, Seconds now) override { inner_.execute(a, now); }
  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds now) override {
    inner_.inject(c, f, t, now);
  }
  std::optional<Event> next_event() override { return inner_.next_event(); }
  void observe(Seconds now) override { inner_.observe(now); }
  std::optional<Seconds> next_observation() const override { return inner_.next_observation(); }
  bool busy() const override { return inner_.busy(); }
  bool failed() const override { return inner_.failed(); }
  std::optional<NetworkSample> network_sample() override { return inner_.network_sample(); }
  void handled(const Event& e, const std::vector<Action>& a, Seconds now) override { inner_.handled(e, a, now); }

 protected:
  Executor& inner_;
};

}  // namespace tt
