#include "core/plan/comm_layout.hpp"

#include <algorithm>
#include <map>

namespace tt {

int GroupLayout::size() const {
  int n = 0;
  for (const auto& m : members) n += static_cast<int>(m.size());
  return n;
}

GroupLayout layout_of(const std::vector<int>& gpus, int gpus_per_node) {
  GroupLayout l;
  l.gpus_per_node = gpus_per_node;
  std::map<int, std::vector<int>> by_node;
  for (int g : gpus) by_node[g / gpus_per_node].push_back(g);
  for (auto& [node, members] : by_node) {
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    l.nodes.push_back(node);
    l.members.push_back(std::move(members));
  }
  auto rails = [&](const std::vector<int>& m) {
    std::vector<int> r;
    for (int g : m) r.push_back(g % gpus_per_node);
    return r;
  };
  for (std::size_t i = 1; i < l.members.size(); ++i)
    if (rails(l.members[i]) != rails(l.members[0])) l.uniform = false;
  return l;
}

namespace {

// Members of one node from rail position `in` to rail position `out` (positions index the node's members), visiting
// every member once: in, the others in rotation order, out last.
std::vector<int> node_path(const std::vector<int>& members, int in, int out) {
  const int k = static_cast<int>(members.size());
  std::vector<int> path{members[in]};
  for (int step = 1; step < k; ++step) {
    int pos = (in + step) % k;
    if (pos != out) path.push_back(members[pos]);
  }
  if (out != in) path.push_back(members[out]);
  return path;
}

}  // namespace

std::vector<std::vector<int>> ring_channels(const GroupLayout& l) {
  std::vector<std::vector<int>> rings;
  const int m = static_cast<int>(l.nodes.size());
  if (m == 0) return rings;
  const int k = static_cast<int>(l.members[0].size());
  if (m == 1 || !l.uniform || k == 1) {
    std::vector<int> ring;
    for (const auto& members : l.members) ring.insert(ring.end(), members.begin(), members.end());
    rings.push_back(std::move(ring));
    return rings;
  }
  for (int c = 0; c < k; ++c) {
    // Entry positions: alternate c and c+1; an odd count of nodes ends on a third position when there is one.
    std::vector<int> entry(m);
    for (int i = 0; i < m; ++i) entry[i] = (i % 2 == 0) ? c : (c + 1) % k;
    if (m % 2 == 1 && m > 1 && k >= 3) entry[m - 1] = (c + 2) % k;
    std::vector<int> ring;
    for (int i = 0; i < m; ++i) {
      int in = entry[i];
      int out = entry[(i + 1) % m];
      if (out == in) out = (in + k - 1) % k;  // k == 2 with an odd count: the closing edge changes rail
      auto path = node_path(l.members[i], in, out);
      ring.insert(ring.end(), path.begin(), path.end());
    }
    rings.push_back(std::move(ring));
  }
  return rings;
}

std::vector<TreeChannel> tree_channels(const GroupLayout& l) {
  std::vector<TreeChannel> out;
  const int m = static_cast<int>(l.nodes.size());
  if (m == 0) return out;
  const int channels = l.uniform ? static_cast<int>(l.members[0].size()) : 1;
  for (int c = 0; c < channels; ++c)
    for (int tree = 0; tree < 2; ++tree) {
      TreeChannel t;
      for (int i = 0; i < m; ++i) {
        const auto& members = l.members[i];
        const int k = static_cast<int>(members.size());
        std::vector<int> chain;
        for (int step = 0; step < k; ++step) chain.push_back(members[(c + step) % k]);
        t.chains.push_back(std::move(chain));
      }
      t.parent.assign(m, -1);
      for (int i = 0; i < m; ++i) {
        int pos = tree == 0 ? i : m - 1 - i;  // heap position: tree B numbers the nodes backwards
        if (pos == 0) continue;
        int parent_pos = (pos - 1) / 2;
        t.parent[i] = tree == 0 ? parent_pos : m - 1 - parent_pos;
      }
      out.push_back(std::move(t));
    }
  return out;
}

bool rail_aligned(const std::vector<int>& ring, int gpus_per_node) {
  const auto n = ring.size();
  for (std::size_t i = 0; i < n; ++i) {
    int a = ring[i], b = ring[(i + 1) % n];
    if (a / gpus_per_node != b / gpus_per_node && a % gpus_per_node != b % gpus_per_node) return false;
  }
  return true;
}

}  // namespace tt
