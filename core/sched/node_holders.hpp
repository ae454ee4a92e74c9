// Which running lists hold GPUs on each node, so that a preemption search can bound, before it reads a candidate,
// how many nodes it could wholly free: a node is wholly freed only if every job holding GPUs on it is a victim, so
// the nodes whose holders all belong to the lists the search takes from bound that count, per leaf group too.
// Lists are bits 0..62 of a set; bit 63 (kOther) stands for holders never taken (parked jobs, lists past the 63rd).
// For each set a search asks about, the nodes within it are counted per group once and then kept as holders change
// (a scheduler asks about a few hundred sets: its queues' priorities and cohorts), with a histogram of the groups'
// counts so that the best m groups are summed in as many steps as a group has nodes.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tt {

class NodeHolders {
 public:
  static constexpr int kOther = 63;
  // The nodes' leaf groups, by node (the cluster's; fixed). Resets every count.
  void set_groups(std::vector<int> group_of_node);
  bool ready() const { return !group_of_.empty(); }
  // A job's GPUs per node, as (node, count), from the list `from` to the list `to` (-1: none; a job starting comes
  // from none, one ending goes to none), as one change of each node's bits.
  void move(const std::vector<std::pair<int, int>>& per_node, int from, int to);
  // Nodes held by no job outside `lists` (free nodes too; up or not), within the best `max_groups` leaf groups when
  // it is above 0. An upper bound on the nodes a search taking only from these lists can wholly free.
  long long nodes_within(std::uint64_t lists, int max_groups);
  int held(int node, int bit) const {
    return held_[static_cast<std::size_t>(node) * 64 + static_cast<std::size_t>(bit)];
  }
  std::string audit() const;  // the kept counts against a recount ("" when they agree): for tests

 private:
  std::size_t counted(std::uint64_t lists);  // the set's index, counted on first use
  static bool within(std::uint64_t held, std::uint64_t lists) { return (held & ~lists) == 0; }

  std::vector<int> group_of_;
  int max_group_size_ = 0;
  int groups_ = 0;
  std::vector<std::uint16_t> held_;   // node * 64 + bit: GPUs
  std::vector<std::uint64_t> lists_;  // per node: the bits with GPUs held
  // The counted sets, by index. A change of a node's bits reads every set's bits and its group's count in each set:
  // both kept contiguous (a set per column of the group's row), so the change is a scan, not a miss per set.
  std::vector<std::uint64_t> counted_lists_;
  std::vector<int> in_group_;         // group * sets + set: the group's nodes within the set
  std::vector<int> groups_with_;      // set * (max_group_size_ + 1) + count: groups with that many nodes within
  std::vector<long long> total_;      // per set: nodes within
  std::unordered_map<std::uint64_t, std::size_t> counted_at_;
};

}  // namespace tt
