#include "core/accept/comm_judge.hpp"

#include <algorithm>
#include <map>

#include "core/io/input_error.hpp"

namespace tt::accept {

namespace {

[[noreturn]] void bad_row(const Measurement& m, const std::string& file, const std::string& expected) {
  const auto hash = m.where.find('#');
  if (hash != std::string::npos) throw InputError(m.where.substr(0, hash), m.where.substr(hash + 1), expected);
  const auto colon = m.where.rfind(':');
  if (colon != std::string::npos) throw InputError(m.where.substr(0, colon), "line " + m.where.substr(colon + 1), expected);
  throw InputError(file, "", expected);
}

}  // namespace

bool CommVerdict::passed() const {
  return std::all_of(sizes.begin(), sizes.end(), [](const SizeVerdict& s) { return s.passed; });
}

std::vector<std::string> CommVerdict::failed_sizes() const {
  std::vector<std::string> out;
  for (const auto& s : sizes)
    if (!s.passed) out.push_back(std::to_string(static_cast<long long>(s.size.value)));
  return out;
}

BytesPerSecond measured_busbw(const Measurement& m, int ranks) {
  return BytesPerSecond(m.size.value / m.time.value * busbw_factor(m.collective, ranks));
}

CommVerdict judge_comm(const AcceptPlan& plan, const std::vector<Measurement>& log, const std::string& file) {
  if (log.empty()) throw InputError(file, "", "at least one all_reduce result row");
  std::map<long long, const CommExpectation*> planned;
  for (const auto& c : plan.comm) planned[static_cast<long long>(c.size.value)] = &c;
  const std::string for_plan = " (the plan is for " + std::to_string(plan.ranks) + " ranks on " +
                               std::to_string(plan.nodes) + " node(s) of topology " + plan.topology + ")";
  std::map<long long, SizeVerdict> by_size;
  std::map<long long, std::pair<double, int>> sums;  // busbw sum and rows, per size
  std::map<long long, BytesPerSecond> slowest;
  CommVerdict v;
  for (const auto& m : log) {
    if (m.collective != Collective::AllReduce)
      bad_row(m, file, "an all_reduce result" + for_plan + ", found " + std::string(to_string(m.collective)));
    if (m.ranks != 0 && m.ranks != plan.ranks)
      bad_row(m, file, "a log of " + std::to_string(plan.ranks) + " ranks" + for_plan + ", found " +
                           std::to_string(m.ranks) + " ranks");
    if (m.nodes != 0 && m.nodes != plan.nodes)
      bad_row(m, file, "a log of " + std::to_string(plan.nodes) + " node(s)" + for_plan + ", found " +
                           std::to_string(m.nodes) + " hosts");
    const long long size = static_cast<long long>(m.size.value);
    auto it = planned.find(size);
    if (it == planned.end()) {
      v.unplanned.push_back(m.where);
      continue;
    }
    const BytesPerSecond bw = measured_busbw(m, plan.ranks);
    auto [sv, fresh] = by_size.try_emplace(size);
    auto& [sum, count] = sums[size];
    sum += bw.value;
    ++count;
    if (fresh || bw < slowest[size]) {
      slowest[size] = bw;
      sv->second.where = m.where;
    }
  }
  for (auto& [size, sv] : by_size) sv.measured = BytesPerSecond(sums[size].first / sums[size].second);
  if (by_size.empty())
    throw InputError(file, "", "result rows of sizes the plan covers" + for_plan + "; none of the " +
                                   std::to_string(log.size()) + " rows has a planned size");
  for (const auto& c : plan.comm) {
    SizeVerdict s;
    auto it = by_size.find(static_cast<long long>(c.size.value));
    if (it != by_size.end()) s = it->second;
    s.size = c.size;
    s.expected = c.busbw;
    s.threshold = c.threshold;
    s.passed = s.measured && *s.measured >= c.threshold;
    v.sizes.push_back(s);
  }
  return v;
}

}  // namespace tt::accept
