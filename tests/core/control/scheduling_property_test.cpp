// Property test: seeded random workloads and policies driven through the Controller; after every event the invariants
// of the scheduler hold, checked against the scenario (not against the scheduler's own bookkeeping).
#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <map>
#include <set>

#include "core/control/controller.hpp"
#include "core/control/synthetic_driver.hpp"
#include "core/model/random.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;

namespace {

Scenario random_scenario(std::uint64_t seed) {
  Random rng(seed);
  const int nodes = rng.uniform_int(4, 12);
  std::vector<QueueSpec> queues;
  const int nq = rng.uniform_int(2, 4);
  for (int q = 0; q < nq; ++q) {
    QueueSpec qs{"q" + std::to_string(q), 8 * rng.uniform_int(1, 6)};
    if (q < nq - 1 || rng.uniform() < 0.5) {
      qs.cohort = "c";
      if (rng.uniform() < 0.4) qs.borrowing_limit = 8 * rng.uniform_int(0, 3);
      if (rng.uniform() < 0.4) qs.lending_limit = 8 * rng.uniform_int(0, qs.gpu_quota / 8);
      qs.reclaim = static_cast<ReclaimPreemption>(rng.uniform_int(0, 2));
    }
    qs.within_queue = static_cast<WithinQueuePreemption>(rng.uniform_int(0, 2));
    if (!qs.cohort.empty() && rng.uniform() < 0.4) {
      qs.borrow_within_cohort = true;
      if (rng.uniform() < 0.5) qs.max_priority_threshold = 10 * rng.uniform_int(0, 1);
    }
    qs.strategy = rng.uniform() < 0.3 ? QueueingStrategy::StrictFifo : QueueingStrategy::BestEffortFifo;
    queues.push_back(qs);
  }
  std::vector<JobSpec> jobs;
  const int sizes[] = {1, 2, 4, 8, 8, 16, 24, 32};
  const int njobs = rng.uniform_int(10, 40);
  for (int i = 0; i < njobs; ++i) {
    int q = rng.uniform_int(0, nq - 1);
    int g = std::min(sizes[rng.uniform_int(0, 7)], nodes * 8);
    int cap = queues[q].gpu_quota;  // keep every job runnable in its own quota
    if (g > cap) g = cap;
    JobSpec j =
        testing::job("j" + std::to_string(i), queues[q].name, g, rng.uniform_int(0, 2) * 10, rng.uniform(0, 2000));
    j.estimated_runtime = Seconds(rng.uniform(50, 1500));
    if (g > 8 && rng.uniform() < 0.4) {
      j.topology.max_leaf_groups = rng.uniform_int(1, 2);
      j.topology.required = rng.uniform() < 0.7;
      if (j.topology.required && rng.uniform() < 0.6) j.topology.max_wait = Seconds(rng.uniform(10, 600));
      // A required constraint without max_wait must be satisfiable (the reader rejects it otherwise).
      if (j.topology.required && !j.topology.max_wait && j.topology.max_leaf_groups * 4 * 8 < g)
        j.topology.max_wait = Seconds(100);
    }
    jobs.push_back(j);
  }
  Scenario s = testing::scenario(testing::rail_cluster(nodes, 4), queues, jobs);
  s.scheduler.backfill = rng.uniform() < 0.6;
  s.scheduler.ordering = rng.uniform() < 0.5 ? QueueOrdering::Priority : QueueOrdering::FairShare;
  s.scheduler.fair_share_half_life = Seconds(600);
  s.scheduler.placement = rng.uniform() < 0.7 ? PlacementKind::Pack : PlacementKind::Spread;
  s.scheduler.victim_order = rng.uniform() < 0.7 ? VictimOrder::Kueue : VictimOrder::LeastWorkLost;
  s.scheduler.preemption_exempt_time = Seconds(std::vector<double>{0, 0, 120, 600}[rng.uniform_int(0, 3)]);
  return s;
}

void check_invariants(const Scenario& s, const Controller& c, Seconds now) {
  const RunRecord& r = c.record();
  const int gpn = s.topology.gpus_per_node();
  std::map<std::string, int> used;
  std::set<int> given;
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobSpec& spec = s.jobs[j];
    const JobRecord& jr = r.jobs[j];
    if (jr.state == JobStatus::Running) {
      const auto& gpus = c.job_gpus(static_cast<int>(j));
      INFO("job " << spec.name);
      REQUIRE(static_cast<int>(gpus.size()) == spec.gpus);  // gang: all or nothing
      std::map<int, int> per_node;
      for (int g : gpus) {
        REQUIRE(given.insert(g).second);  // no GPU given twice
        ++per_node[g / gpn];
      }
      if (spec.gpus <= gpn) {
        REQUIRE(per_node.size() == 1);
      } else {
        for (const auto& [n, k] : per_node) REQUIRE(k == gpn);  // whole nodes
      }
      const auto& t = spec.topology;
      if (t.max_leaf_groups > 0 && t.required && !t.max_wait && spec.gpus > gpn) {
        std::set<int> groups;
        for (const auto& [n, k] : per_node) groups.insert(s.topology.nodes()[n].group);
        REQUIRE(static_cast<int>(groups.size()) <= t.max_leaf_groups);
      }
      used[spec.queue] += spec.gpus;
    } else if (jr.state == JobStatus::Pending && spec.submit <= now) {
      std::string why = c.pending_reason(static_cast<int>(j));
      INFO("job " << spec.name << " at " << now.value);
      REQUIRE(!why.empty());
      REQUIRE(why != "not examined yet");
    }
  }
  // Quotas, from the scenario: a queue holds at most its quota plus its borrowing limit, and a cohort's queues use
  // beyond their guaranteed part no more than the cohort lends.
  std::map<std::string, long long> pool, pool_used;
  for (std::size_t q = 0; q < s.queues.size(); ++q) {
    const QueueSpec& qs = s.queues[q];
    const int u = used[qs.name];
    INFO("queue " << qs.name);
    REQUIRE(c.queue_usage()[q] == u);
    if (qs.cohort.empty()) {
      REQUIRE(u <= qs.gpu_quota);
      continue;
    }
    if (qs.borrowing_limit) REQUIRE(u <= qs.gpu_quota + *qs.borrowing_limit);
    int lend = std::min(qs.gpu_quota, qs.lending_limit.value_or(INT_MAX));
    pool[qs.cohort] += lend;
    pool_used[qs.cohort] += std::max(0, u - (qs.gpu_quota - lend));
  }
  for (const auto& [cohort, p] : pool) REQUIRE(pool_used[cohort] <= p);
}

}  // namespace

TEST_CASE("property: random workloads keep quotas, gangs, exclusive GPUs and a reason for every waiting job",
          "[unit][sched][control][property]") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    DYNAMIC_SECTION("seed " << seed) {
      Scenario s = random_scenario(seed);
      Controller c(s);
      SyntheticDriver d(s, c);
      Random rng(seed * 7919);
      int steps = 0;
      d.observer = [&](Seconds now, const std::vector<Action>&) {
        ++steps;
        check_invariants(s, c, now);
        INFO("at " << now.value);
        REQUIRE(c.scheduler_audit(now) == "");  // what the scheduler keeps to skip work agrees with a recount
      };
      // Now and then a running job checkpoints, so preemption victims differ in lost work.
      while (d.step()) {
        if (rng.uniform() < 0.3) {
          int j = rng.uniform_int(0, static_cast<int>(s.jobs.size()) - 1);
          if (c.record().jobs[j].state == JobStatus::Running) {
            const int attempt = static_cast<int>(c.record().jobs[j].segments.size());
            d.inject(CheckpointDone{j, attempt, 10, Seconds(1), Seconds(1)}, d.now());
          }
        }
        REQUIRE(steps < 100000);
      }
      c.finish(d.now());
      for (const auto& jr : c.record().jobs) CHECK(jr.state == JobStatus::Completed);  // nothing starves forever
    }
  }
}

// The pass-over rules (Scheduler::pass_over) skip examinations whose outcome is known: against a scheduler that
// examines every waiting job, the same decisions and, after every event, the same reason for every waiting job.
TEST_CASE("property: passing over waiting jobs decides and explains exactly as examining every one",
          "[unit][sched][control][property]") {
  std::uint64_t saved = 0;    // examinations the rules saved over all seeds
  std::uint64_t changes = 0;  // reasons they changed without an examination
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    {
      Scenario s = random_scenario(seed);
      // Bigger backlogs than the invariants test: every job submitted in the first 200 s.
      for (auto& j : s.jobs) j.submit = Seconds(std::fmod(j.submit.value, 200.0));
      auto run = [&](bool every, std::uint64_t& examinations) {
        Controller c(s);
        c.examine_every_waiting_job(every);
        SyntheticDriver d(s, c);
        std::vector<std::string> seen;  // each waiting job's reason after every event
        d.observer = [&](Seconds now, const std::vector<Action>&) {
          for (std::size_t j = 0; j < s.jobs.size(); ++j)
            if (c.record().jobs[j].state == JobStatus::Pending && s.jobs[j].submit <= now)
              seen.push_back(std::to_string(now.value) + " " + s.jobs[j].name + ": " +
                             c.pending_reason(static_cast<int>(j)));
        };
        while (d.step()) REQUIRE(seen.size() < 2000000);
        c.finish(d.now());
        for (const auto& x : c.record().decisions)
          seen.push_back(std::to_string(x.t.value) + " " + x.kind + " " + x.job + " " + x.reason.str());
        examinations = c.scheduler_examinations();
        changes += c.scheduler_reason_changes();
        return seen;
      };
      std::uint64_t all = 0, passed = 0;
      const auto reference = run(true, all);
      const auto fast = run(false, passed);
      REQUIRE(fast.size() == reference.size());
      for (std::size_t i = 0; i < fast.size(); ++i) REQUIRE(fast[i] == reference[i]);
      REQUIRE(passed <= all);
      saved += all - passed;
    }
  }
  CHECK(saved > 1000);  // the rules were exercised
  CHECK(changes > 300);
}
