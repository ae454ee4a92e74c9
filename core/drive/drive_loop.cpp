#include "core/drive/drive_loop.hpp"

#include <algorithm>
#include <stdexcept>

namespace tt {

std::vector<Action> DriveLoop::deliver(const Event& event) {
  const Seconds now = clock_.now();
  if (record) record(now, event);
  std::vector<Action> actions = c_.handle(event, now);
  ++events_;
  for (const Action& a : actions) {  // what runs where, for the nodes that die while the control plane is down
    if (const auto* l = std::get_if<Launch>(&a)) attempts_[l->job] = {l->attempt, l->gpus};
    if (const auto* k = std::get_if<Kill>(&a)) {
      auto it = attempts_.find(k->job);
      if (it != attempts_.end() && it->second.first == k->attempt) attempts_.erase(it);
    }
  }
  if (const auto* done = std::get_if<JobCompleted>(&event)) {
    auto it = attempts_.find(done->job);
    if (it != attempts_.end() && it->second.first == done->attempt) attempts_.erase(it);
  }
  for (const Action& a : actions) x_.execute(a, now);
  x_.handled(event, actions, now);
  return actions;
}

void DriveLoop::drain(std::optional<Seconds> at) {
  while (auto e = x_.next_event()) {
    if (down_ == 0) {
      deliver(*e);
      continue;
    }
    held_.push_back({std::move(*e), at.value_or(clock_.now())});
    ++held_total_;
  }
}

void DriveLoop::set_control_plane_outages(std::vector<ControlPlaneOutage> outages, int gpus_per_node) {
  outages_ = std::move(outages);
  gpus_per_node_ = std::max(1, gpus_per_node);
  outage_changes_.clear();
  for (std::size_t i = 0; i < outages_.size(); ++i) {
    outage_changes_.push_back({outages_[i].at, i, true});
    outage_changes_.push_back({outages_[i].at + outages_[i].down, i, false});
  }
  std::stable_sort(outage_changes_.begin(), outage_changes_.end(),
                   [](const OutageChange& a, const OutageChange& b) { return a.at < b.at; });
  next_outage_ = 0;
}

void DriveLoop::skip_control_plane_changes(std::size_t count) {
  for (; next_outage_ < count && next_outage_ < outage_changes_.size(); ++next_outage_)
    down_ += outage_changes_[next_outage_].starts ? 1 : (down_ > 0 ? -1 : 0);
}

std::optional<Seconds> DriveLoop::next_control_plane_at() const {
  if (next_outage_ >= outage_changes_.size()) return std::nullopt;
  return outage_changes_[next_outage_].at;
}

void DriveLoop::control_plane(const OutageChange& change) {
  if (on_control_plane) on_control_plane(change.outage, change.starts);
  if (change.starts) {
    if (down_++ == 0) held_total_ = 0;
    return;
  }
  if (down_ == 0 || --down_ > 0) return;
  come_back(clock_.now());
}

// Everything held, in order, now; a node death is followed by its jobs' ranks reported silent since it died, so the
// Controller counts detection from the death (Controller: a stalled job reported stopped earlier).
void DriveLoop::come_back(Seconds now) {
  const ControlPlaneOutage& o = outages_[outage_changes_[next_outage_ - 1].outage];
  played_.push_back("down from " + format_seconds(o.at) + " to " + format_seconds(now) +
                    ", events held: " + std::to_string(held_total_));
  while (!held_.empty()) {
    Held h = std::move(held_.front());
    held_.pop_front();
    if (auto* s = std::get_if<JobStalled>(&h.event); s && !s->since) s->since = h.at;
    std::vector<JobStalled> silent;
    if (const auto* d = std::get_if<NodeDown>(&h.event); d && h.at < now)
      for (const auto& [job, attempt] : attempts_) {
        const auto& gpus = attempt.second;
        const bool hit = d->gpu >= 0 ? std::find(gpus.begin(), gpus.end(), d->gpu) != gpus.end()
                                     : std::any_of(gpus.begin(), gpus.end(),
                                                   [&](int g) { return g / gpus_per_node_ == d->node; });
        if (hit)
          silent.push_back(JobStalled{job, attempt.first, 0,
                                      "its node died at " + format_seconds(h.at) + " (" + to_string(d->kind) +
                                          "), seen when the control plane came back",
                                      Symptom::Silent, d->kind, {}, h.at});
      }
    deliver(h.event);
    for (const JobStalled& s : silent) deliver(s);
  }
}

std::string DriveLoop::control_plane_summary() const {
  std::string out;
  for (const auto& p : played_) out += (out.empty() ? "" : "; ") + p;
  return out;
}

bool DriveLoop::turn(std::optional<Seconds>& wake) {
  for (;;) {
    if (x_.failed()) {
      stop_ = Stop::Failed;
      return false;
    }
    drain();
    Seconds t = clock_.now();
    // Fault changes and control-plane outages in time order (an outage first at the same instant); the events a change
    // caused are held, if the control plane is down, at the time the change was due.
    for (;;) {
      const auto cp = next_control_plane_at();
      const auto fault = faults_.next_at();
      if (cp && *cp <= t && (!fault || *cp <= *fault)) {
        control_plane(outage_changes_[next_outage_++]);
        continue;
      }
      auto change = faults_.take_due(t);
      if (!change) break;
      x_.inject(*change, faults_.faults()[change->fault], faults_.target(change->fault), t);
      drain(change->at);
    }
    x_.observe(t);
    drain();
    if (down_ > 0) break;  // the Controller's timers wait for it to come back
    const std::optional<Seconds> deadline = c_.next_deadline();
    if (!deadline || *deadline > t) break;
    // A Controller that keeps asking for the same instant has a bug; a driver must not spin on it forever.
    timers_at_once_ = t == timer_at_ ? timers_at_once_ + 1 : 0;
    timer_at_ = t;
    if (timers_at_once_ > 100000)
      throw std::logic_error("the controller keeps asking for a timer at t=" + std::to_string(t.value) + " s");
    if (c_.network_sample_due(t))
      if (auto sample = x_.network_sample()) deliver(*sample);
    deliver(Timer{});
  }
  if (c_.done()) {
    stop_ = Stop::Done;
    return false;
  }
  if (clock_.now() >= horizon_) {
    stop_ = Stop::Horizon;
    return false;
  }
  std::optional<Seconds> next = horizon_;
  auto earliest = [&](std::optional<Seconds> s) {
    if (s && *s < *next) next = s;
  };
  const std::optional<Seconds> deadline = down_ > 0 ? std::nullopt : c_.next_deadline();
  earliest(deadline);
  earliest(faults_.next_at());
  earliest(next_control_plane_at());
  earliest(x_.next_observation());
  if (!deadline && !faults_.next_at() && !next_control_plane_at() && !x_.next_observation() && !x_.busy()) {
    stop_ = Stop::Idle;
    return false;
  }
  wake = next;
  return true;
}

DriveLoop::Stop DriveLoop::run() {
  std::optional<Seconds> wake;
  while (turn(wake)) clock_.wait_until(wake);
  return stop_;
}

}  // namespace tt
