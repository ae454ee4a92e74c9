#include "core/sched/ordering.hpp"

#include <cmath>

namespace tt {

double FairShareOrdering::queue_score(int queue, const std::vector<double>& usage,
                                      const std::vector<int>& nominal) const {
  return usage[queue] / std::max(1, nominal[queue]);
}

double FairShareOrdering::decayed(double usage, double running_gpus, Seconds dt) const {
  if (dt.value <= 0) return usage;
  const double h = half_life_.value;
  const double keep = std::exp2(-dt.value / h);
  return usage * keep + running_gpus * h / std::log(2.0) * (1 - keep);
}

}  // namespace tt
