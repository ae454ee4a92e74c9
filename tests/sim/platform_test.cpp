// The platform: SimGrid's routes are the topology's fewest-hops paths, spread over parallel spines; cables are full
// duplex; the network model is pinned.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <set>
#include <simgrid/s4u.hpp>

#include "core/io/scenario_reader.hpp"
#include "sim/isolated.hpp"
#include "sim/session.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;

TEST_CASE("sim: SimGrid routes have the hop count of Topology::path and spread over spines", "[sim]") {
  // Two leaf groups of 4 nodes x 8 GPUs, 8 spines.
  Topology topo = make_rail_optimized(tt::testing::fabric(8, 8, 4));
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(topo);
    sim::Platform& p = session.platform();
    nlohmann::json out = nlohmann::json::array();
    std::set<std::string> spines_used;
    const std::vector<std::pair<int, int>> pairs = {{0, 8}, {0, 1}, {0, 9}, {0, 32}, {5, 47}, {63, 0}, {12, 50}};
    for (auto [a, b] : pairs) {
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      p.gpu(a)->route_to(p.gpu(b), links, &latency);
      const sim::Route& r = p.route(p.gpu(a), p.gpu(b));
      Path path = topo.path(topo.gpu_vertex(a / 8, a % 8), topo.gpu_vertex(b / 8, b % 8));
      out.push_back({{"pair", {a, b}},
                     {"simgrid_hops", links.size()},
                     {"same_links", links == r.links},
                     {"same_route_by_gpu", &p.gpu_route(a, b) == &r},  // one route object per pair, however asked
                     {"entry_known", p.gpu_route_entry(a, b) != nullptr},  // the pair's row has its table now
                     {"topology_hops", path.size()},
                     {"latency", r.latency.value},
                     {"cables_latency", [&] {
                        double sum = 0;
                        for (int c : r.cables) sum += topo.link(c).latency.value;
                        return sum;
                      }()}});
    }
    // Every GPU of group 0 to its rail peer in group 1: the flows should not all take one spine (the route names the
    // cables its hash chose; in SimGrid a leaf's spine cables are one bonded link, platform.cpp).
    for (int node = 0; node < 4; ++node)
      for (int local = 0; local < 8; ++local) {
        const sim::Route& r = p.route(p.gpu(node * 8 + local), p.gpu((node + 4) * 8 + local));
        for (int c : r.cables) {
          const std::string& name = topo.link(c).name;
          if (name.find("spine") != std::string::npos) spines_used.insert(name.substr(name.find("spine")));
        }
      }
    const bool off_range = p.gpu_route_entry(-1, 0) == nullptr && p.gpu_route_entry(0, 64) == nullptr;
    return nlohmann::json{{"pairs", out}, {"spine_links", spines_used.size()}, {"no_entry_off_range", off_range}}
        .dump();
  }));
  for (const auto& pair : j["pairs"]) {
    INFO(pair.dump());
    CHECK(pair["simgrid_hops"] == pair["topology_hops"]);
    CHECK(pair["same_links"] == true);
    CHECK(pair["same_route_by_gpu"] == true);
    CHECK(pair["entry_known"] == true);
    // Ties may pick another fewest-hops path than Topology::path() (e.g. through a spine instead of NVLink), so the
    // latency is that of the route's own cables.
    CHECK(pair["latency"].get<double>() == Approx(pair["cables_latency"].get<double>()));
  }
  CHECK(j["spine_links"].get<int>() > 2);
  CHECK(j["no_entry_off_range"] == true);  // a GPU index off the fabric: no entry, no throw
}

TEST_CASE("sim: a reservation leaves flows the rest of a link, at least a pair's share, all of it once given back",
          "[sim]") {
  Topology topo = make_rail_optimized(tt::testing::fabric(8, 8, 4));
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(topo);
    sim::Platform& p = session.platform();
    // The first hop (the GPU's own NIC cable, a link of its own) of a route from group 0 to group 1.
    const sim::Route& r = p.route(p.gpu(0), p.gpu(32));
    const int cable = r.cables.at(0);
    const bool forward = r.links[1] == p.link(cable, true);
    const int link = 2 * cable + (forward ? 0 : 1);
    const double c = topo.link(cable).bandwidth.value;
    auto left = [&] { return p.link(cable, forward)->get_bandwidth() / c; };
    nlohmann::json out;
    p.reserve(link, 0.25 * c, 4);
    out["one"] = left();
    p.reserve(link, 0.5 * c, 4);
    out["two"] = left();
    p.reserve(link, 0.5 * c, 2);  // 1.25 x the link over 10 pairs: flows keep a pair's share, 1/11
    out["over"] = left();
    out["other_direction"] = p.link(cable, !forward)->get_bandwidth() / c;
    p.set_bandwidth_factor(cable, 0.5);  // 0.625 x the link now
    out["slow_over"] = left();
    p.reserve(link, -0.5 * c, -2);
    p.reserve(link, -0.5 * c, -4);
    out["slow_one"] = left();
    p.reserve(link, -0.25 * c, -4);
    p.set_bandwidth_factor(cable, 1.0);
    out["none"] = left();
    return out.dump();
  }));
  CHECK(j["one"].get<double>() == Approx(0.75));
  CHECK(j["two"].get<double>() == Approx(0.25));
  CHECK(j["over"].get<double>() == Approx(1.0 / 11));
  CHECK(j["other_direction"].get<double>() == 1.0);
  CHECK(j["slow_over"].get<double>() == Approx(0.5 / 11));
  CHECK(j["slow_one"].get<double>() == Approx(0.25));
  CHECK(j["none"].get<double>() == 1.0);
}

TEST_CASE("sim: reservations made together leave each bonded link what they leave made one after the other",
          "[sim]") {
  Topology topo = make_rail_optimized(tt::testing::fabric(8, 8, 4));
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(topo);
    sim::Platform& p = session.platform();
    // The leaf-to-spine hops of routes from GPU 0 (rail 0, group 0) to the rail-0 GPUs of group 1: members of one
    // bond (a leaf's spine cables), a member twice where two routes hash onto it.
    std::vector<int> links, pairs;
    std::vector<double> bytes;
    std::set<int> members;
    for (int node = 4; node < 8; ++node) {
      const sim::Route& r = p.route(p.gpu(0), p.gpu(node * 8));
      const int cable = r.cables.at(1);
      members.insert(cable);
      links.push_back(2 * cable + (r.links[1] == p.link(cable, true) ? 0 : 1));
      bytes.push_back(1e9 * (node - 3));
      pairs.push_back(node - 3);
    }
    const simgrid::s4u::Link* bond = p.route(p.gpu(0), p.gpu(32)).links.at(1);
    nlohmann::json out;
    out["members"] = members.size();
    out["before"] = bond->get_bandwidth();
    for (std::size_t i = 0; i < links.size(); ++i) p.reserve(links[i], bytes[i] / 3.0, pairs[i]);
    out["one_by_one"] = bond->get_bandwidth();
    for (std::size_t i = 0; i < links.size(); ++i) p.reserve(links[i], -bytes[i] / 3.0, -pairs[i]);
    out["given_back"] = bond->get_bandwidth();
    p.reserve(links, bytes, 3.0, pairs, +1);
    out["together"] = bond->get_bandwidth();
    p.reserve(links, bytes, 3.0, pairs, -1);
    out["together_back"] = bond->get_bandwidth();
    return out.dump();
  }));
  INFO(j.dump());
  CHECK(j["members"].get<int>() >= 2);
  CHECK(j["one_by_one"].get<double>() < j["before"].get<double>());
  CHECK(j["together"].get<double>() == j["one_by_one"].get<double>());  // bit for bit
  CHECK(j["given_back"].get<double>() == j["before"].get<double>());
  CHECK(j["together_back"].get<double>() == j["before"].get<double>());
}

TEST_CASE("sim: a bond's bandwidth is, bit for bit, the sum of what its members that are up leave, in cable order",
          "[sim]") {
  // The platform keeps each bond's terms as its members change (Platform::Impl::refresh); this recomputes them from
  // the operations made, after each of a random sequence of reservations (both forms), factors, downs and ups. On a
  // generated rail fabric (a leaf's spine cables) and on a hand-wired one whose leaf1 has three spine cables of two
  // bandwidths, one of them written spine -> leaf (its directions read against the bond's the other way round).
  const Topology rail = make_rail_optimized(tt::testing::fabric(8, 8, 4));
  const Topology wired = read_topology(nlohmann::json::parse(R"({
    "name": "bond-directions", "generator": "explicit", "gpu": "A100-SXM", "gpus_per_node": 2,
    "nodes": [{"name": "a0", "group": 0}, {"name": "a1", "group": 1}],
    "switches": [{"name": "leaf0", "kind": "leaf", "group": 0}, {"name": "leaf1", "kind": "leaf", "group": 1},
                 {"name": "spine0", "kind": "spine"}, {"name": "spine1", "kind": "spine"}],
    "links": [
      {"from": "a0/gpu0", "to": "leaf0", "bandwidth": "200Gbps"},
      {"from": "a0/gpu1", "to": "leaf0", "bandwidth": "200Gbps"},
      {"from": "a1/gpu0", "to": "leaf1", "bandwidth": "200Gbps"},
      {"from": "a1/gpu1", "to": "leaf1", "bandwidth": "200Gbps"},
      {"from": "leaf0", "to": "spine0", "bandwidth": "200Gbps"},
      {"from": "leaf0", "to": "spine1", "bandwidth": "200Gbps"},
      {"name": "l1s0a", "from": "leaf1", "to": "spine0", "bandwidth": "100Gbps"},
      {"name": "l1s0b", "from": "spine0", "to": "leaf1", "bandwidth": "200Gbps"},
      {"from": "leaf1", "to": "spine1", "bandwidth": "100Gbps"}
    ],
    "storage": {"bandwidth": "50GB/s", "attach": "spine1"}})"), "bond-directions.json", "");
  const auto [topo_name, topo, to_gpu, hop] =
      GENERATE_REF(std::make_tuple(std::string("rail"), &rail, 32, 1),
                   std::make_tuple(std::string("wired"), &wired, 2, 2));
  INFO(topo_name);
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(*topo);
    sim::Platform& p = session.platform();
    // A leaf's spine cables in one direction: leaf0's up on the rail fabric, leaf1's down on the wired one.
    simgrid::s4u::Link* bond = p.route(p.gpu(0), p.gpu(to_gpu)).links.at(static_cast<std::size_t>(hop));
    std::vector<int> members, toward;  // in cable order; each member's directional link that is part of `bond`
    for (int c = 0; c < static_cast<int>(topo->edges().size()); ++c)
      for (int dir = 0; dir < 2; ++dir)
        if (p.link(c, dir == 0) == bond) {
          members.push_back(c);
          toward.push_back(2 * c + dir);
        }
    std::map<int, double> reserved, factor;
    std::map<int, int> pairs, down;
    for (int c : members) factor[c] = 1.0;
    auto expected = [&] {
      double sum = 0;
      for (std::size_t k = 0; k < members.size(); ++k) {
        const int c = members[k], link = toward[k];
        if (down[c] > 0) continue;
        const double nominal = topo->link(c).bandwidth.value * factor[c];
        sum += std::max(nominal - reserved[link], nominal / (pairs[link] + 1));
      }
      return sum;
    };
    std::mt19937 rng(7);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    int checked = 0, mismatches = 0, downs_seen = 0;
    for (int step = 0; step < 400; ++step) {
      const std::size_t k = pick(members.size());
      const int c = members[k], link = toward[k];
      switch (pick(6)) {  // ups twice as likely as downs: the bond is mostly on
        case 0: {  // one link, a pair more or back
          const int n = pairs[link] > 0 && pick(2) == 0 ? -1 : 1;
          const double rate = 1e9 * static_cast<double>(1 + pick(40)) * n;
          p.reserve(link, rate, n);
          pairs[link] += n;
          reserved[link] = pairs[link] == 0 ? 0.0 : reserved[link] + rate;
          break;
        }
        case 1: {  // several links together, as a job's fast-forward load (sim/job.cpp), then maybe given back
          std::vector<int> links, counts;
          std::vector<double> bytes;
          for (int n = 0; n < 3; ++n) {
            const std::size_t m = pick(members.size());
            links.push_back(toward[m]);
            counts.push_back(1 + static_cast<int>(pick(3)));
            bytes.push_back(1e9 * static_cast<double>(1 + pick(90)));
          }
          const double seconds = 0.5 + static_cast<double>(pick(4));
          for (int sign : {+1, -1}) {
            p.reserve(links, bytes, seconds, counts, sign);
            for (std::size_t i = 0; i < links.size(); ++i) {
              pairs[links[i]] += sign * counts[i];
              double& r = reserved[links[i]];
              r = pairs[links[i]] == 0 ? 0.0 : r + (sign < 0 ? -bytes[i] : bytes[i]) / seconds;
            }
            if (pick(2) == 0) break;  // kept
          }
          break;
        }
        case 2:
          factor[c] = 0.25 * static_cast<double>(1 + pick(4));
          p.set_bandwidth_factor(c, factor[c]);
          break;
        case 3:
          p.cable_down(c);
          ++down[c];
          ++downs_seen;
          break;
        default:
          if (down[c] > 0) {
            p.cable_up(c);
            --down[c];
          }
      }
      const bool any_up = std::any_of(members.begin(), members.end(), [&](int m) { return down[m] == 0; });
      if (!any_up) continue;  // the bond is off
      ++checked;
      if (bond->get_bandwidth() != expected()) ++mismatches;
    }
    int directions = 0;  // members whose link in the bond is their target -> source one
    for (int link : toward) directions += link % 2;
    return nlohmann::json{{"members", members.size()}, {"checked", checked}, {"mismatches", mismatches},
                          {"downs", downs_seen}, {"reversed", directions}}
        .dump();
  }));
  INFO(j.dump());
  CHECK(j["members"].get<int>() >= 2);
  CHECK(j["checked"].get<int>() > 250);
  CHECK(j["downs"].get<int>() > 20);
  if (topo_name == "wired") {  // both orientations among the members
    CHECK(j["reversed"].get<int>() >= 1);
    CHECK(j["reversed"].get<int>() < j["members"].get<int>());
  }
  CHECK(j["mismatches"].get<int>() == 0);
}

TEST_CASE("sim: parallel cables are one bonded link, the sum of the members that are up", "[sim]") {
  // explicit-2x2-example: leaf1 -> spine0 over two parallel 100 Gb/s cables, #a and #b.
  const Topology topo = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/explicit-2x2-example.json");
  auto cable = [&](const std::string& name) {
    for (int c = 0; c < static_cast<int>(topo.edges().size()); ++c)
      if (topo.link(c).name == name) return c;
    FAIL("no cable " << name);
    return -1;
  };
  const int a = cable("leaf1~spine0#a"), b = cable("leaf1~spine0#b");
  const int nic = cable("a0/gpu0~leaf0"), other_nic = cable("a0/gpu1~leaf0");
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(topo);
    sim::Platform& p = session.platform();
    const double c = topo.link(a).bandwidth.value;
    nlohmann::json out;
    out["shared"] = p.link(a, true) == p.link(b, true) && p.link(a, false) == p.link(b, false);
    out["nic_alone"] = p.link(nic, true) != p.link(other_nic, true);
    out["both"] = p.link(a, true)->get_bandwidth() / c;
    p.reserve(2 * a, 0.5 * c, 1);  // half of #a set aside: the bond keeps #b and the rest of #a
    out["reserved"] = p.link(b, true)->get_bandwidth() / c;
    out["other_direction"] = p.link(b, false)->get_bandwidth() / c;
    p.reserve(2 * a, -0.5 * c, -1);
    p.cable_down(a);
    out["one_down"] = p.link(a, true)->get_bandwidth() / c;
    out["one_down_on"] = p.link(a, true)->is_on();
    p.cable_down(b);
    out["both_down_on"] = p.link(a, true)->is_on();
    p.cable_up(a);
    out["a_back"] = p.link(b, true)->get_bandwidth() / c;
    out["a_back_on"] = p.link(b, true)->is_on();
    p.cable_up(b);
    out["all_back"] = p.link(b, false)->get_bandwidth() / c;
    // A pair across the bond names the member its hash chose; with that member down it takes the other one.
    const sim::Route& r = p.route(p.gpu(0), p.gpu(2));
    int member = -1;
    for (int x : r.cables) member = x == a || x == b ? x : member;
    out["member"] = member >= 0;
    p.cable_down(member);
    const sim::Route& around = p.route(p.gpu(0), p.gpu(2));
    out["around"] = std::find(around.cables.begin(), around.cables.end(), a + b - member) != around.cables.end();
    p.cable_up(member);
    return out.dump();
  }));
  INFO(j.dump());
  CHECK(j["shared"] == true);
  CHECK(j["nic_alone"] == true);
  CHECK(j["both"].get<double>() == Approx(2.0));
  CHECK(j["reserved"].get<double>() == Approx(1.5));
  CHECK(j["other_direction"].get<double>() == Approx(2.0));
  CHECK(j["one_down"].get<double>() == Approx(1.0));
  CHECK(j["one_down_on"] == true);
  CHECK(j["both_down_on"] == false);
  CHECK(j["a_back"].get<double>() == Approx(1.0));
  CHECK(j["a_back_on"] == true);
  CHECK(j["all_back"].get<double>() == Approx(2.0));
  CHECK(j["member"] == true);
  CHECK(j["around"] == true);
}

TEST_CASE("sim: on generated fabrics no route passes through a third node, as strike() assumes there", "[sim]") {
  // Platform::routes_stay_on_end_nodes(): a crash's cables at a node's GPUs are crossed only by routes from or to the
  // node. Checked on every GPU pair of a two-group rail fabric, a one-group one (no spines: leaves meet only through
  // nodes) and a leaf-spine one; an explicit fabric is not assumed to be so.
  for (int variant = 0; variant < 3; ++variant) {
    FabricParams params = variant == 1 ? tt::testing::fabric(4, 8, 4) : tt::testing::fabric(8, 8, 4);
    const Topology topo = variant == 2 ? make_leaf_spine(params) : make_rail_optimized(params);
    INFO(topo.generator() << ", " << topo.nodes().size() << " nodes");
    const int passes = std::stoi(sim::run_isolated([&] {
      sim::Session session(topo);
      sim::Platform& p = session.platform();
      if (!p.routes_stay_on_end_nodes()) return std::string("-1");
      int through = 0;
      for (int a = 0; a < topo.total_gpus(); ++a)
        for (int b = 0; b < topo.total_gpus(); ++b) {
          if (a == b) continue;
          const sim::Route& r = p.route(p.gpu(a), p.gpu(b));
          for (int cable : r.cables) {
            const EdgeId e = topo.edges()[static_cast<std::size_t>(cable)];
            for (VertexId v : {boost::source(e, topo.graph()), boost::target(e, topo.graph())}) {
              const int node = topo.graph()[v].node;
              if (node >= 0 && node != a / 8 && node != b / 8) ++through;
            }
          }
        }
      return std::to_string(through);
    }));
    CHECK(passes == 0);
  }
  const Topology explicit_fabric =
      read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/explicit-2x2-example.json");
  const std::string says = sim::run_isolated([&] {
    sim::Session session(explicit_fabric);
    return std::string(session.platform().routes_stay_on_end_nodes() ? "yes" : "no");
  });
  CHECK(says == "no");
}
