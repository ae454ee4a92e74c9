// A node's release as worker settings (real/worker_release.hpp, real/driver_release.hpp): the settings travel on the
// worker's command line, the hang falls on the call the simulator draws, and the stretch is the release's speeds over
// the plan's compute share.
#include <catch2/catch.hpp>

#include "core/drive/release_effects.hpp"
#include "real/driver_release.hpp"
#include "real/worker.hpp"
#include "real/worker_release.hpp"

using namespace tt;
using namespace tt::real;

TEST_CASE("worker release: settings round-trip through the command line and are checked", "[unit][real]") {
  WorkerConfig c;
  c.world = 2;
  c.rank = 1;
  c.iterations = 50;
  c.workload.params = 64;
  c.release = "2027.02";
  c.release_stretch = 1.0526;
  c.hang_per_collective = 2e-5;
  c.collectives_per_iteration = 1024;
  c.hang_rank = 0;
  c.hang_seed = 5;
  const WorkerConfig back = parse_worker_arguments(worker_arguments(c));
  CHECK(back.release == "2027.02");
  CHECK(back.release_stretch == c.release_stretch);
  CHECK(back.hang_per_collective == c.hang_per_collective);
  CHECK(back.collectives_per_iteration == 1024);
  CHECK(back.hang_rank == 0);
  CHECK(back.hang_seed == 5);
  for (auto [flag, value] : {std::pair<std::string, std::string>{"--release-stretch", "0"},
                             {"--hang-per-collective", "1.5"}, {"--hang-rank", "2"}}) {
    auto args = worker_arguments(c);
    for (std::size_t i = 0; i + 1 < args.size(); i += 2)
      if (args[i] == flag) args[i + 1] = value;
    INFO(flag << " " << value);
    CHECK_THROWS_WITH(parse_worker_arguments(args), Catch::Contains("inconsistent"));
  }
}

TEST_CASE("worker release: the hanging collective is the one the simulator draws", "[unit][real]") {
  WorkerConfig c;
  c.job = 1;
  c.attempt = 2;
  c.iterations = 1000000;
  c.start_iteration = 40;
  c.hang_seed = 5;
  c.hang_per_collective = 2e-5;
  c.collectives_per_iteration = 1024;
  CHECK(hang_iteration(c) == -1);  // no hanging rank: no release of the job hangs
  c.hang_rank = 0;
  const double calls = collective_calls_before_hang(5, 1, 2, 2e-5);
  CHECK(hang_iteration(c) == 40 + static_cast<std::int64_t>(calls / 1024));
  // Another attempt draws afresh; the draw is the seed's, not the rank's.
  c.attempt = 3;
  CHECK(hang_iteration(c) == 40 + static_cast<std::int64_t>(collective_calls_before_hang(5, 1, 3, 2e-5) / 1024));
  c.rank = 1;
  CHECK(hang_iteration(c) == 40 + static_cast<std::int64_t>(collective_calls_before_hang(5, 1, 3, 2e-5) / 1024));
  // Beyond the job's last iteration: it never hangs.
  c.iterations = hang_iteration(c);
  CHECK(hang_iteration(c) == -1);
  // Every call hangs: the first one.
  c.iterations = 100;
  c.hang_per_collective = 1;
  CHECK(hang_iteration(c) == 40);
  // Over many draws the mean number of calls before the hang is (1 - p) / p.
  double sum = 0;
  for (int a = 1; a <= 4000; ++a) sum += collective_calls_before_hang(9, 0, a, 0.01);
  CHECK(sum / 4000 == Approx(99).epsilon(0.08));
}

TEST_CASE("worker release: the stretch is the release's speeds over the plan's compute share", "[unit][real]") {
  Scenario sc;
  rollout::ReleaseEffects e;
  e.release = "slow";
  e.compute_speed = 0.8;
  e.comm_speed = 0.5;
  sc.rollout.effects.push_back(e);
  IterationPlan plan;
  plan.compute = Seconds(3);
  plan.predicted_iteration = Seconds(4);
  CHECK(release_stretch(sc, "slow", plan) == Approx(0.75 / 0.8 + 0.25 / 0.5));
  CHECK(release_stretch(sc, "other", plan) == 1.0);  // a release without effects
  plan.predicted_iteration = Seconds(0);
  CHECK(release_stretch(sc, "slow", plan) == Approx(1 / 0.8));
}
