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
  counted_lists_.clear();
  in_group_.clear();
  groups_with_.clear();
  total_.clear();
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
    // Locals, so that the stores through row and with are not read as changing the vectors' own pointers.
    const std::size_t sets = counted_lists_.size();
    const std::uint64_t* set = counted_lists_.data();
    int* row = in_group_.data() + static_cast<std::size_t>(group_of_[at]) * sets;
    int* with = groups_with_.data();
    long long* total = total_.data();
    const std::size_t stride = static_cast<std::size_t>(max_group_size_) + 1;
    for (std::size_t i = 0; i < sets; ++i) {
      const int delta = static_cast<int>(within(now, set[i])) - static_cast<int>(within(was, set[i]));
      if (delta == 0) continue;
      int* hist = with + i * stride;
      --hist[row[i]];
      row[i] += delta;
      ++hist[row[i]];
      total[i] += delta;
    }
  }
}

std::size_t NodeHolders::counted(std::uint64_t lists) {
  auto [it, added] = counted_at_.try_emplace(lists, counted_lists_.size());
  if (!added) return it->second;
  // A new column in every group's row (a few hundred sets in all: the copy is rare).
  const std::size_t sets = counted_lists_.size();
  std::vector<int> in_group(static_cast<std::size_t>(groups_) * (sets + 1), 0);
  for (std::size_t g = 0; g < static_cast<std::size_t>(groups_); ++g)
    std::copy_n(in_group_.begin() + static_cast<std::ptrdiff_t>(g * sets), sets,
                in_group.begin() + static_cast<std::ptrdiff_t>(g * (sets + 1)));
  long long total = 0;
  for (std::size_t n = 0; n < lists_.size(); ++n)
    if (within(lists_[n], lists)) ++in_group[static_cast<std::size_t>(group_of_[n]) * (sets + 1) + sets], ++total;
  const std::size_t stride = static_cast<std::size_t>(max_group_size_) + 1;
  groups_with_.resize(groups_with_.size() + stride, 0);
  for (std::size_t g = 0; g < static_cast<std::size_t>(groups_); ++g)
    ++groups_with_[sets * stride + static_cast<std::size_t>(in_group[g * (sets + 1) + sets])];
  in_group_ = std::move(in_group);
  total_.push_back(total);
  counted_lists_.push_back(lists);
  return sets;
}

long long NodeHolders::nodes_within(std::uint64_t lists, int max_groups) {
  const std::size_t i = counted(lists);
  if (max_groups <= 0 || max_groups >= groups_) return total_[i];
  const int* with = groups_with_.data() + i * (static_cast<std::size_t>(max_group_size_) + 1);
  long long sum = 0;
  int left = max_groups;
  for (int v = max_group_size_; v > 0 && left > 0; --v) {
    const int take = std::min(left, with[v]);
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
  const std::size_t sets = counted_lists_.size();
  const std::size_t stride = static_cast<std::size_t>(max_group_size_) + 1;
  for (std::size_t i = 0; i < sets; ++i) {
    std::vector<int> in(static_cast<std::size_t>(groups_), 0);
    for (std::size_t n = 0; n < lists_.size(); ++n)
      if (within(lists_[n], counted_lists_[i])) ++in[static_cast<std::size_t>(group_of_[n])];
    for (std::size_t g = 0; g < in.size(); ++g)
      if (in[g] != in_group_[g * sets + i]) return "a set's nodes per group out of date";
    std::vector<int> with(stride, 0);
    long long total = 0;
    for (int v : in) ++with[static_cast<std::size_t>(v)], total += v;
    if (!std::equal(with.begin(), with.end(), groups_with_.begin() + static_cast<std::ptrdiff_t>(i * stride)) ||
        total != total_[i])
      return "a set's histogram out of date";
  }
  return "";
}

}  // namespace tt
