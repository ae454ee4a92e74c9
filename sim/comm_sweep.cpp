#include "sim/comm_sweep.hpp"

#include <nlohmann/json.hpp>

#include "sim/collective.hpp"
#include "sim/isolated.hpp"

namespace tt::sim {

int measure_sweep(const Topology& topology, Sweep& sweep, std::string* error) {
  std::vector<CommStep> steps;
  for (const SweepRow& r : sweep.rows) steps.push_back(CommStep{std::to_string(r.count), {r.group}});
  try {
    auto times = nlohmann::json::parse(run_isolated([&] {
      CollectiveTimes t = time_collectives(topology, steps);
      nlohmann::json j = nlohmann::json::array();
      for (Seconds s : t.steps) j.push_back(s.value);
      return j.dump();
    }));
    for (std::size_t i = 0; i < sweep.rows.size() && i < times.size(); ++i)
      set_measured(sweep, i, Seconds(times[i].get<double>()));
    return 0;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return static_cast<int>(sweep.rows.size());
  }
}

}  // namespace tt::sim
