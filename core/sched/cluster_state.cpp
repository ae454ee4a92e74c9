#include "core/sched/cluster_state.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

namespace tt {

ClusterState::ClusterState(const Topology& topo) : gpus_per_node_(topo.gpus_per_node()) {
  assert(gpus_per_node_ > 0);
  words_per_node_ = (static_cast<std::size_t>(gpus_per_node_) + 63) / 64;
  int groups = 0;
  for (const auto& info : topo.nodes()) {
    nodes_.push_back(Node{true, info.group, gpus_per_node_, gpus_per_node_});
    groups = std::max(groups, info.group + 1);
  }
  const int n = nodes();
  free_words_.assign(static_cast<std::size_t>(n) * words_per_node_, ~std::uint64_t{0});
  if (const int tail = gpus_per_node_ % 64; tail != 0)
    for (int i = 0; i < n; ++i) free_words_[(i + 1) * words_per_node_ - 1] = (std::uint64_t{1} << tail) - 1;
  group_nodes_.resize(groups);
  whole_free_in_group_.assign(groups, 0);
  bucket_.assign(gpus_per_node_ + 1, std::vector<std::uint64_t>((n + 63) / 64, 0));
  bucket_count_.assign(gpus_per_node_ + 1, 0);
  for (int i = 0; i < n; ++i) {
    group_nodes_[nodes_[i].group].push_back(i);
    ++whole_free_in_group_[nodes_[i].group];
    bucket_[gpus_per_node_][i / 64] |= std::uint64_t{1} << (i % 64);
  }
  bucket_count_[gpus_per_node_] = n;
  for (int g = 0; g < groups; ++g) max_group_size_ = std::max(max_group_size_, whole_free_in_group_[g]);
  group_bucket_.assign(max_group_size_ + 1, std::vector<std::uint64_t>((groups + 63) / 64, 0));
  group_bucket_count_.assign(max_group_size_ + 1, 0);
  for (int g = 0; g < groups; ++g) {
    group_bucket_[whole_free_in_group_[g]][g / 64] |= std::uint64_t{1} << (g % 64);
    ++group_bucket_count_[whole_free_in_group_[g]];
  }
  whole_free_total_ = n;
  free_total_ = n * gpus_per_node_;
  up_nodes_ = n;
}

bool ClusterState::gpu_free(int gpu) const {
  const Node& n = nodes_[gpu / gpus_per_node_];
  return n.up && (free_words_[word_index(gpu)] >> (gpu % gpus_per_node_ % 64) & 1);
}

int ClusterState::max_free_on_a_node() const {
  for (int c = gpus_per_node_; c > 0; --c)
    if (bucket_count_[c] > 0) return c;
  return 0;
}

int ClusterState::next_node_with_free(int count, int after) const {
  if (bucket_count_[count] == 0) return -1;
  const auto& bits = bucket_[count];
  int start = after + 1;
  std::size_t w = static_cast<std::size_t>(start) / 64;
  if (w >= bits.size()) return -1;
  std::uint64_t word = bits[w] & (~std::uint64_t{0} << (start % 64));
  while (true) {
    if (word) return static_cast<int>(w * 64 + std::countr_zero(word));
    if (++w >= bits.size()) return -1;
    word = bits[w];
  }
}

int ClusterState::best_fit_group(int whole_nodes) const {
  for (int w = std::max(whole_nodes, 0); w <= max_group_size_; ++w) {
    if (group_bucket_count_[w] == 0) continue;
    const auto& bits = group_bucket_[w];
    for (std::size_t i = 0; i < bits.size(); ++i)
      if (bits[i]) return static_cast<int>(i * 64 + std::countr_zero(bits[i]));
  }
  return -1;
}

double ClusterState::fragmentation() const {
  if (free_total_ == 0) return 0;
  return static_cast<double>(free_total_ - whole_free_total_ * gpus_per_node_) / free_total_;
}

void ClusterState::reindex(int node, int old_free, bool old_whole) {
  const Node& n = nodes_[node];
  int now_free = free_of(n);
  if (now_free != old_free) {
    bucket_[old_free][node / 64] &= ~(std::uint64_t{1} << (node % 64));
    bucket_[now_free][node / 64] |= std::uint64_t{1} << (node % 64);
    --bucket_count_[old_free];
    ++bucket_count_[now_free];
    free_total_ += now_free - old_free;
  }
  bool now_whole = whole_free(n);
  if (now_whole != old_whole) {
    const int g = n.group;
    int& w = whole_free_in_group_[g];
    const std::uint64_t bit = std::uint64_t{1} << (g % 64);
    group_bucket_[w][g / 64] &= ~bit;
    --group_bucket_count_[w];
    w += now_whole ? 1 : -1;
    group_bucket_[w][g / 64] |= bit;
    ++group_bucket_count_[w];
    whole_free_total_ += now_whole ? 1 : -1;
  }
}

void ClusterState::allocate(const std::vector<int>& gpus) { change(gpus, false); }

void ClusterState::release(const std::vector<int>& gpus) { change(gpus, true); }

// A run of GPUs on one node is indexed once (a job's GPUs come node by node), and flipped as one mask per word.
void ClusterState::change(const std::vector<int>& gpus, bool to_free) {
  ++changes_;
  const int step = to_free ? 1 : -1;
  for (std::size_t i = 0; i < gpus.size();) {
    const int node = gpus[i] / gpus_per_node_;
    const int first = node * gpus_per_node_;
    Node& n = nodes_[node];
    const int old_free = free_of(n);
    const bool old_whole = whole_free(n);
    int count = 0;
    for (; i < gpus.size() && gpus[i] >= first && gpus[i] < first + gpus_per_node_;) {
      // The run's GPUs within one 64-GPU word of the node, as one mask.
      const int word = (gpus[i] - first) / 64;
      const int word_first = first + word * 64;
      const int word_end = std::min(word_first + 64, first + gpus_per_node_);
      std::uint64_t mask = 0;
      for (; i < gpus.size() && gpus[i] >= word_first && gpus[i] < word_end; ++i) {
        const std::uint64_t bit = std::uint64_t{1} << ((gpus[i] - first) % 64);
        assert((mask & bit) == 0 && "GPU listed twice");
        mask |= bit;
        ++count;
      }
      std::uint64_t& w = free_words_[static_cast<std::size_t>(node) * words_per_node_ + static_cast<std::size_t>(word)];
      assert((to_free ? (w & mask) == 0 : (w & mask) == mask) && "GPU given or released twice");
      w ^= mask;
    }
    n.free_bits += step * count;
    // A node that went down under a running job: backfill and preemption release its GPUs to try a placement and
    // give them back; `free` stays 0 both ways (it went to -1 and indexed bucket_[-1]: the fleet month's crash).
    if (n.up) n.free += step * count;
    allocated_ -= step * count;
    reindex(node, old_free, old_whole);
  }
}

void ClusterState::set_up(int node, bool up) {
  Node& n = nodes_[node];
  if (n.up == up) return;
  ++changes_;
  int old_free = free_of(n);
  bool old_whole = whole_free(n);
  n.up = up;
  n.free = up ? n.free_bits : 0;
  up_nodes_ += up ? 1 : -1;
  reindex(node, old_free, old_whole);
}

}  // namespace tt
