#include "core/drive/preflight_effects.hpp"

#include <catch2/catch.hpp>

#include "core/io/scenario_reader.hpp"

namespace {

// Records what the decorator hands the backend.
struct Recorder final : tt::Executor {
  std::vector<tt::Action> executed;
  std::vector<std::pair<tt::FaultSpec, tt::FaultTarget>> injected;
  void execute(const tt::Action& a, tt::Seconds) override { executed.push_back(a); }
  void inject(const tt::FaultChange&, const tt::FaultSpec& f, const tt::FaultTarget& t, tt::Seconds) override {
    injected.emplace_back(f, t);
  }
  std::optional<tt::Event> next_event() override { return std::nullopt; }
};

tt::Launch launch_on(std::vector<int> nodes) {
  tt::Launch l;
  for (int n : nodes)
    for (int g = 0; g < 8; ++g) l.gpus.push_back(n * 8 + g);
  return l;
}

}  // namespace

TEST_CASE("preflight effects: a launch across NCCL versions deadlocks at once, one on one version does not",
          "[unit][preflight]") {
  auto sc = tt::read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/drill-partial-upgrade-ungated.json");
  Recorder backend;
  tt::PreflightEffects effects(sc, backend);
  effects.execute(launch_on({0, 1, 2, 3}), tt::Seconds(0));
  effects.execute(launch_on({4, 5}), tt::Seconds(0));
  CHECK(backend.injected.empty());
  effects.execute(launch_on({2, 3, 4, 5}), tt::Seconds(60));
  CHECK(backend.executed.size() == 3);  // every action still reaches the backend
  REQUIRE(backend.injected.size() == 1);
  CHECK(backend.injected[0].first.kind == tt::FaultKind::Deadlock);
  CHECK(backend.injected[0].first.target == "n2");
  CHECK_THAT(backend.injected[0].first.cause, Catch::Contains("2.18.3 on n4"));
  CHECK(backend.injected[0].second.gpus.size() == 8);
  CHECK(effects.setup_hangs() == 1);
}

TEST_CASE("preflight effects: attention fallback nodes straggle from the start, once", "[unit][preflight]") {
  auto sc = tt::read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/drill-partial-upgrade.json");
  sc.preflight.matrix->releases[0].cuda_runtime = *tt::preflight::Version::parse("11.8");
  Recorder backend;
  tt::PreflightEffects effects(sc, backend);
  effects.observe(tt::Seconds(0));
  effects.observe(tt::Seconds(1));
  REQUIRE(backend.injected.size() == 4 * 8);  // n4-n7 run release 2026.08
  for (const auto& [f, t] : backend.injected) {
    CHECK(f.kind == tt::FaultKind::Straggler);
    CHECK(f.fraction == 0.7);
    CHECK(t.gpus.size() == 1);
  }
  CHECK(backend.injected.front().first.target == "n4/gpu0");
}
