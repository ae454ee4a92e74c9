// A measured step's parts and signatures (job.hpp): groups that share no link, each named by what its time depends on;
// and a whole iteration's (pace_signature).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/job.hpp"

namespace tt::sim {

namespace {

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

Renamer::Renamer(World& w) : slot_(w.link_scratch) {
  if (slot_.empty()) slot_.assign(static_cast<std::size_t>(w.platform.link_count()), -1);
}

Renamer::~Renamer() {
  for (int l : touched_) slot_[static_cast<std::size_t>(l)] = -1;
}

std::pair<int, bool> Renamer::id(int link) {
  int& s = slot_[static_cast<std::size_t>(link)];
  if (s >= 0) return {s, false};
  touched_.push_back(link);
  s = static_cast<int>(touched_.size()) - 1;
  return {s, true};
}

void put_group(std::string& s, const Platform& platform, const FlowGroup& g, Renamer& ids, bool fresh,
               bool capacity) {
  put(s, g.phases);
  put(s, g.latency.value);
  put(s, g.flows.size());
  for (const Flow& f : g.flows) {
    put(s, f.bytes);
    put(s, f.phase);
    const Route& route = fresh ? *f.route : platform.route(f.from, f.to);
    put(s, route.links.size());
    for (std::size_t h = 0; h < route.links.size(); ++h) {
      const auto [id, first] = ids.id(route.link_ids[h]);
      put(s, id);
      if (!first) continue;  // its bandwidth and state are those of its first appearance
      put(s, capacity ? platform.capacity(route.link_ids[h]) : platform.bandwidth(route.link_ids[h]));
      put(s, platform.link_is_on(route.link_ids[h]));  // a flow over a link that is down fails: never a time that ran
    }
  }
}

void make_parts(World& w, JobRun& r, std::size_t i) {
  JobRun::StepParts& p = r.step_parts[i];
  const FlowStep& step = r.steps[i];
  std::vector<std::size_t> parent(step.groups.size());
  for (std::size_t g = 0; g < parent.size(); ++g) parent[g] = g;
  auto find = [&](std::size_t g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  };
  // The flows' routes: as made while no cable changed state since, else looked up (which updates Flow::route).
  const bool current = r.routes_generation == w.platform.generation();
  {
    Renamer owner(w);  // by link: the first group whose flows cross it, as its first-appearance number
    std::vector<std::size_t> group_of;
    for (std::size_t g = 0; g < step.groups.size(); ++g)
      for (const Flow& f : step.groups[g].flows)
        for (int link : (current ? *f.route : w.platform.route(f.from, f.to)).link_ids) {
          const auto [id, first] = owner.id(link);
          if (first) {
            group_of.push_back(g);
            continue;
          }
          const std::size_t a = find(g), b = find(group_of[static_cast<std::size_t>(id)]);
          if (a != b) parent[std::max(a, b)] = std::min(a, b);  // a part is named by its first group
        }
  }
  std::vector<std::size_t> part_of(step.groups.size());
  p.groups.clear();
  for (std::size_t g = 0; g < step.groups.size(); ++g) {
    const std::size_t root = find(g);
    if (root == g) {
      part_of[g] = p.groups.size();
      p.groups.emplace_back();
    } else {
      part_of[g] = part_of[root];
    }
    p.groups[part_of[g]].push_back(g);
  }
  p.signature.assign(p.groups.size(), {});
  for (std::size_t c = 0; c < p.groups.size(); ++c) {
    Renamer ids(w);
    put(p.signature[c], p.groups[c].size());
    for (std::size_t g : p.groups[c]) put_group(p.signature[c], w.platform, step.groups[g], ids, /*fresh=*/true);
  }
  p.made = true;
  p.generation = w.platform.generation();
}

PaceKey pace_signature(World& w, JobRun& r, double compute) {
  std::string& s = w.signature_bytes;  // its capacity kept from one signature to the next
  s.clear();
  put(s, compute);
  const bool shared = !r.links.empty();
  // Flow::route is the pair's route object, current while no cable changed state since the flows were made; else
  // put_group() looks each up, which makes it current.
  const bool fresh = r.routes_generation == w.platform.generation();
  {
    Renamer ids(w);
    for (const FlowStep& step : r.steps) {
      put(s, step.groups.size());
      for (const FlowGroup& g : step.groups) put_group(s, w.platform, g, ids, fresh, shared);
    }
  }
  const PaceKey key = PaceKey::of(s);
  r.shared_order.clear();
  if (!shared) return key;
  std::vector<int> order(r.shared.size(), -1);
  int next = 0;
  for (const FlowStep& step : r.steps)
    for (const FlowGroup& g : step.groups)
      for (const Flow& f : g.flows) {
        const Route& route = *f.route;  // current (above)
        for (std::size_t h = 0; h < route.cables.size(); ++h) {
          if (!w.shared_cable[static_cast<std::size_t>(route.cables[h])]) continue;
          const auto it = std::lower_bound(r.shared.begin(), r.shared.end(), route.link_ids[h]);
          if (it == r.shared.end() || *it != route.link_ids[h]) return key;  // a route moved since they were made
          int& o = order[static_cast<std::size_t>(it - r.shared.begin())];
          if (o < 0) o = next++;
        }
      }
  if (next != static_cast<int>(r.shared.size())) return key;
  r.shared_order = std::move(order);
  return key;
}

}  // namespace tt::sim
