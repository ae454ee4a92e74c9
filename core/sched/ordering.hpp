// Queue ordering policies: among waiting jobs of equal priority, which queue goes first. Jobs are always ordered by
// priority (higher first), then by the policy's queue score (lower first), then FIFO within a queue.
#pragma once

#include <vector>

#include "core/model/units.hpp"

namespace tt {

class OrderingPolicy {
 public:
  virtual ~OrderingPolicy() = default;
  virtual const char* name() const = 0;
  // usage: decayed GPU-seconds per queue; nominal: each queue's quota.
  virtual double queue_score(int queue, const std::vector<double>& usage, const std::vector<int>& nominal) const = 0;
};

// Priority, then submission order, across all queues.
class PriorityFifoOrdering : public OrderingPolicy {
 public:
  const char* name() const override { return "priority-fifo"; }
  double queue_score(int, const std::vector<double>&, const std::vector<int>&) const override { return 0; }
};

// Fair share (Slurm-style decayed usage): a queue's score is its GPU-seconds, halved every half-life, per GPU of
// nominal quota; the queue that used least of its share goes first.
class FairShareOrdering : public OrderingPolicy {
 public:
  explicit FairShareOrdering(Seconds half_life) : half_life_(half_life) {}
  const char* name() const override { return "fair-share"; }
  double queue_score(int queue, const std::vector<double>& usage, const std::vector<int>& nominal) const override;
  // Usage after `dt` with `running_gpus` held throughout: u 2^(-dt/h) + r h / ln 2 (1 - 2^(-dt/h)), exactly.
  double decayed(double usage, double running_gpus, Seconds dt) const;
  Seconds half_life() const { return half_life_; }

 private:
  Seconds half_life_;
};

}  // namespace tt
