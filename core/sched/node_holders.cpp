#include "core/sched/node_holders.hpp"

#include <algorithm>
#include <cassert>

namespace tt {

void NodeHolders::set_groups(std::vector<int> group_of_node) {
  group_of_ = std::move(group_of_node);
  groups_ = 0;
  for (int g : group_of_) groups_ = std::max(groups_, g + 1);
  std::vector<int> size(static_cast<std::size_t>(groups_), 0);
  for (int g : group_of_) ++size[static_cast<std::size_t>(g)];
  max_group_size_ = size.empty() ? 0 : *std::max_element(size.begin(), size.end());
  held_.assign(group_of_.size() * 64, 0);
  lists_.assign(group_of_.size(), 0);
  counted_.clear();
  counted_lists_.clear();
  counted_at_.clear();
}

void NodeHolders::move(const std::vector<std::pair<int, int>>& per_node, int from, int to) {
  for (const auto& [node, n] : per_node) {
    const auto at = static_cast<std::size_t>(node);
    assert(at < lists_.size());
    const std::uint64_t was = lists_[at];
    std::uint64_t now = was;
    if (from >= 0) {
      std::uint16_t& held = held_[at * 64 + static_cast<std::size_t>(from)];
      assert(held >= n);
      held = static_cast<std::uint16_t>(held - n);
      if (held == 0) now &= ~(std::uint64_t{1} << from);
    }
    if (to >= 0) {
      std::uint16_t& held = held_[at * 64 + static_cast<std::size_t>(to)];
      held = static_cast<std::uint16_t>(held + n);
      now |= std::uint64_t{1} << to;
    }
    if (now == was) continue;
    lists_[at] = now;
    const auto grp = static_cast<std::size_t>(group_of_[at]);
    for (std::size_t i = 0; i < counted_lists_.size(); ++i) {
      const std::uint64_t set = counted_lists_[i];
      const int delta = static_cast<int>(within(now, set)) - static_cast<int>(within(was, set));
      if (delta == 0) continue;
      Counted& c = counted_[i];
      int& in = c.in_group[grp];
      --c.groups_with[static_cast<std::size_t>(in)];
      in += delta;
      ++c.groups_with[static_cast<std::size_t>(in)];
      c.total += delta;
    }
  }
}

NodeHolders::Counted& NodeHolders::counted(std::uint64_t lists) {
  auto [it, added] = counted_at_.try_emplace(lists, counted_.size());
  if (added) {
    Counted c{lists, std::vector<int>(static_cast<std::size_t>(groups_), 0),
              std::vector<int>(static_cast<std::size_t>(max_group_size_) + 1, 0), 0};
    for (std::size_t n = 0; n < lists_.size(); ++n)
      if (within(lists_[n], lists)) ++c.in_group[static_cast<std::size_t>(group_of_[n])], ++c.total;
    for (int in : c.in_group) ++c.groups_with[static_cast<std::size_t>(in)];
    counted_.push_back(std::move(c));
    counted_lists_.push_back(lists);
  }
  return counted_[it->second];
}

long long NodeHolders::nodes_within(std::uint64_t lists, int max_groups) {
  const Counted& c = counted(lists);
  if (max_groups <= 0 || max_groups >= groups_) return c.total;
  long long sum = 0;
  int left = max_groups;
  for (int v = max_group_size_; v > 0 && left > 0; --v) {
    const int take = std::min(left, c.groups_with[static_cast<std::size_t>(v)]);
    sum += static_cast<long long>(take) * v;
    left -= take;
  }
  return sum;
}

std::string NodeHolders::audit() const {
  for (std::size_t n = 0; n < lists_.size(); ++n) {
    std::uint64_t bits = 0;
    for (int b = 0; b < 64; ++b)
      if (held_[n * 64 + static_cast<std::size_t>(b)] != 0) bits |= std::uint64_t{1} << b;
    if (bits != lists_[n]) return "node " + std::to_string(n) + ": lists out of date";
  }
  for (const Counted& c : counted_) {
    std::vector<int> in(static_cast<std::size_t>(groups_), 0);
    for (std::size_t n = 0; n < lists_.size(); ++n)
      if (within(lists_[n], c.lists)) ++in[static_cast<std::size_t>(group_of_[n])];
    if (in != c.in_group) return "a set's nodes per group out of date";
    std::vector<int> with(c.groups_with.size(), 0);
    long long total = 0;
    for (int v : in) ++with[static_cast<std::size_t>(v)], total += v;
    if (with != c.groups_with || total != c.total) return "a set's histogram out of date";
  }
  return "";
}

}  // namespace tt
