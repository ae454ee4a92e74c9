// World::drifted(): after an answer of no it looks again only at the links whose load changed since
// (JobRun::drift_clear), and must answer as a check of every shared link would, through other attempts' new paces,
// capacity changes and an attempt's own new figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <memory>
#include <random>

#include "sim/isolated.hpp"
#include "sim/job.hpp"
#include "sim/session.hpp"
#include "sim/world.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;

TEST_CASE("sim: drifted() after a no looks at the changed links only and answers as the whole check", "[sim]") {
  Topology topo = make_rail_optimized(tt::testing::fabric(8, 8, 4));
  auto j = nlohmann::json::parse(sim::run_isolated([&] {
    sim::Session session(topo);
    sim::Platform& p = session.platform();
    Scenario s = tt::testing::sim_scenario(topo, {});
    sim::World w(s, p);
    std::mt19937 rng(11);
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };

    // A pool of SimGrid links, each one a cable's direction (so that a bandwidth factor moves its capacity).
    const int cables = static_cast<int>(topo.edges().size());
    std::vector<int> pool_cables, pool;
    for (int c = 0; c < cables && pool.size() < 20; c += 3) {
      const int id = p.link_id(2 * c);
      if (id < 0 || std::find(pool.begin(), pool.end(), id) != pool.end()) continue;
      pool_cables.push_back(c);
      pool.push_back(id);
    }
    std::vector<std::unique_ptr<sim::JobRun>> runs;
    auto measure = [&](sim::JobRun& r) {  // what a measurement leaves: the load seen, the peaks and busy shares
      w.snapshot_seen(r);
      for (std::size_t i = 0; i < r.shared.size(); ++i) {
        r.peak.push_back(uniform(0.05, 0.7) * p.capacity(r.shared[i]));
        r.busy.push_back(uniform(0.1, 1.0));
      }
      r.forget_drift();
    };
    for (int k = 0; k < 8; ++k) {
      auto r = std::make_unique<sim::JobRun>();
      std::vector<int> links = pool;
      std::shuffle(links.begin(), links.end(), rng);
      links.resize(6 + static_cast<std::size_t>(pick(10)));
      std::sort(links.begin(), links.end());
      for (int l : links) {
        r->shared.push_back(l);
        r->shared_bytes.push_back(uniform(0.02, 0.2) * p.capacity(l));  // bytes of one iteration
      }
      w.join(*r);
      runs.push_back(std::move(r));
    }
    for (auto& r : runs) {
      w.set_nominal(*r, uniform(2.0, 8.0), false);
      measure(*r);
    }
    int checks = 0, yes = 0, mismatches = 0;
    for (int step = 0; step < 20000; ++step) {
      sim::JobRun& r = *runs[static_cast<std::size_t>(pick(static_cast<int>(runs.size())))];
      const int action = pick(100);
      if (action < 55) {  // a new pace (none, now and then), with or without checking the neighbours
        w.set_nominal(r, pick(10) == 0 ? 0.0 : uniform(1.0, 10.0), pick(2) == 0);
        for (auto& o : runs) o->dirty = false;
      } else if (action < 62) {
        measure(r);
      } else if (action < 65) {
        const std::size_t c = static_cast<std::size_t>(pick(static_cast<int>(pool_cables.size())));
        p.set_bandwidth_factor(pool_cables[c], uniform(0.5, 1.0));
      } else {
        bool whole = false;
        for (std::size_t i = 0; i < r.shared.size(); ++i) whole = whole || w.drifted_on(r, i);
        const bool answer = w.drifted(r);
        ++checks;
        yes += answer;
        mismatches += answer != whole;
      }
    }
    return nlohmann::json{{"checks", checks}, {"yes", yes}, {"mismatches", mismatches}}.dump();
  }));
  INFO(j.dump());
  CHECK(j["mismatches"] == 0);
  // Both answers occur, or the check says nothing.
  CHECK(j["yes"].get<int>() > j["checks"].get<int>() / 20);
  CHECK(j["yes"].get<int>() < j["checks"].get<int>() * 19 / 20);
}
