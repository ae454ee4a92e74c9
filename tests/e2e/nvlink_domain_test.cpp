// NVLink domains beyond 64 GPUs end to end: single nodes of every awkward size up to the reader's limit run a job
// that fills the node and one that nearly does (exit 0, both launched); none exits 3.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

using namespace tt::testing;

TEST_CASE("e2e: single nodes of 65 to 576 GPUs place jobs, no size exits 3", "[e2e]") {
  const auto dir = scratch_dir("nvlink-domain");
  for (int gpus : {65, 72, 128, 129, 130, 160, 200, 576}) {
    auto job = [&](const std::string& name, int n, double submit) {
      int tp = 1;
      for (int t : {8, 4, 2})
        if (n % t == 0) {
          tp = t;
          break;
        }
      return nlohmann::json{{"name", name},
                            {"queue", "q"},
                            {"priority", 1},
                            {"submit", std::to_string(submit) + "s"},
                            {"gpus", n},
                            {"model", "llama3-8b"},
                            {"parallel", {{"tp", tp}, {"pp", 1}, {"dp", n / tp}}},
                            {"iterations", 3},
                            {"global_batch", n / tp},
                            {"seq_len", 1024}};
    };
    nlohmann::json s = {{"name", "node-" + std::to_string(gpus)},
                        {"seed", 1},
                        {"topology",
                         {{"name", "one"},
                          {"generator", "single-node"},
                          {"gpu", "B200"},
                          {"gpus", gpus},
                          {"storage", {{"bandwidth", "25GB/s"}}}}},
                        {"queues", {{{"name", "q"}, {"gpu_quota", gpus}}}},
                        {"jobs", {job("whole", gpus, 0), job("most", gpus - 1, 1)}},
                        {"checks", {{{"metric", "cluster.unfinished_jobs"}, {"op", "=="}, {"value", 0}}}}};
    const auto file = dir / ("node-" + std::to_string(gpus) + ".json");
    std::ofstream(file) << s.dump(2);
    CAPTURE(gpus);
    auto r = run_cli("run " + file.string() + " --quiet --out " + (dir / std::to_string(gpus)).string());
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("internal error") == std::string::npos);
    const auto decisions = read_file(dir / std::to_string(gpus) / "decisions.txt");
    CHECK(decisions.find("launch  whole  n0") != std::string::npos);
    CHECK(decisions.find("launch  most  n0") != std::string::npos);
  }
}
