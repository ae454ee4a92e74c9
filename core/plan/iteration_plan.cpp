#include "core/plan/iteration_plan.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace tt {

bool moves_nothing(const CommGroup& g) {
  return std::all_of(g.gpus.begin(), g.gpus.end(), [&](int gpu) { return gpu == g.gpus.front(); });
}

void require_planned(const CommGroup& g) {
  if (g.phases.empty() && !moves_nothing(g))
    throw std::logic_error("communication group not planned by the CommPlanner (no phases): " + describe(g));
}

std::string describe(const CommGroup& g) {
  std::ostringstream out;
  out << to_string(g.collective) << " of " << g.bytes.value << " bytes on GPUs ";
  for (std::size_t i = 0; i < g.gpus.size(); ++i) out << (i ? ", " : "") << g.gpus[i];
  return out.str();
}

}  // namespace tt
