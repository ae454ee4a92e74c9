// ClusterState: which GPUs are free and which nodes can take work, indexed so that a placement never rescans every
// node: nodes are bucketed by their free-GPU count (bitsets, lowest index first), and leaf groups are kept ordered by
// their count of wholly free nodes. GPUs are global indices node * gpus_per_node + local; a node's free GPUs are a
// bitset of ceil(gpus_per_node / 64) words, so a node or NVLink domain of any size the topology reader accepts (576)
// places. A down node offers nothing (it sits in bucket 0 and counts no whole node).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "core/topo/topology.hpp"

namespace tt {

class ClusterState {
 public:
  explicit ClusterState(const Topology& topo);

  int nodes() const { return static_cast<int>(nodes_.size()); }
  int gpus_per_node() const { return gpus_per_node_; }
  int groups() const { return static_cast<int>(whole_free_in_group_.size()); }
  int group_of(int node) const { return nodes_[node].group; }
  const std::vector<int>& group_nodes(int group) const { return group_nodes_[group]; }

  bool schedulable(int node) const { return nodes_[node].up; }
  int free_gpus(int node) const { return nodes_[node].free; }  // 0 when the node is not schedulable
  bool gpu_free(int gpu) const;
  int whole_free_nodes_in_group(int group) const { return whole_free_in_group_[group]; }
  int whole_free_nodes() const { return whole_free_total_; }
  int total_free_gpus() const { return free_total_; }
  int allocated_gpus() const { return allocated_; }
  std::uint64_t changes() const { return changes_; }  // counts allocate, release and set_up calls
  int up_gpus() const { return up_nodes_ * gpus_per_node_; }

  // Index queries, each O(nodes / 64) at worst.
  int nodes_with_free(int count) const { return bucket_count_[count]; }  // up nodes with exactly `count` free GPUs
  int nodes_with_any_free() const { return nodes() - bucket_count_[0]; }
  int max_free_on_a_node() const;
  int next_node_with_free(int count, int after = -1) const;  // lowest node > after with exactly `count` free; -1
  // The group with the fewest wholly free nodes that still has at least `whole_nodes` (lowest index on ties); -1.
  int best_fit_group(int whole_nodes) const;
  // Groups by wholly free nodes, most first (lowest index on ties); f(group, whole) returns false to stop.
  template <class F>
  void for_each_group_most_whole_first(F f) const {
    for (int w = max_group_size_; w >= 0; --w) {
      if (group_bucket_count_[w] == 0) continue;
      const auto& bits = group_bucket_[w];
      for (std::size_t i = 0; i < bits.size(); ++i)
        for (std::uint64_t word = bits[i]; word; word &= word - 1)
          if (!f(static_cast<int>(i * 64 + std::countr_zero(word)), w)) return;
    }
  }
  int max_group_size() const { return max_group_size_; }
  int groups_with_whole_free(int whole) const { return group_bucket_count_[whole]; }  // groups with exactly that many
  // Share of the free GPUs that sit on partly used nodes (0: every free GPU is on a wholly free node).
  double fragmentation() const;

  void allocate(const std::vector<int>& gpus);  // each must be free (on a down node: released by release())
  void release(const std::vector<int>& gpus);   // each must be allocated
  void set_up(int node, bool up);

 private:
  struct Node {
    bool up = true;
    int group = 0;
    int free = 0;       // free_bits when up, else 0
    int free_bits = 0;  // bits set in the node's words of free_words_
  };
  bool whole_free(const Node& n) const { return n.up && n.free_bits == gpus_per_node_; }
  std::size_t word_index(int gpu) const {
    return static_cast<std::size_t>(gpu / gpus_per_node_) * words_per_node_ + (gpu % gpus_per_node_) / 64;
  }
  static int free_of(const Node& n) { return n.free; }
  // Moves a node between buckets and group counts after its mask or state changed (old values given).
  void reindex(int node, int old_free, bool old_whole);
  void change(const std::vector<int>& gpus, bool to_free);  // allocate (false) or release (true)

  int gpus_per_node_ = 0;
  std::size_t words_per_node_ = 1;
  std::vector<Node> nodes_;
  std::vector<std::uint64_t> free_words_;  // node-major; bit (local % 64) of word local / 64: local GPU free
  std::vector<std::vector<int>> group_nodes_;
  std::vector<int> whole_free_in_group_;
  int max_group_size_ = 0;
  std::vector<std::vector<std::uint64_t>> group_bucket_;  // group_bucket_[whole free nodes][group / 64]
  std::vector<int> group_bucket_count_;
  std::vector<std::vector<std::uint64_t>> bucket_;  // bucket_[free][node / 64] bit node % 64
  std::vector<int> bucket_count_;
  int whole_free_total_ = 0;
  int free_total_ = 0;
  int up_nodes_ = 0;
  int allocated_ = 0;
  std::uint64_t changes_ = 0;
};

}  // namespace tt
