// The NCCL provider: the unique id's file and the environment everywhere; the all-reduce itself on GPUs ([gpu], skipped
// where there is none: tests/skip.hpp).
#include "real/nccl_collective.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kernels/attention_cuda.hpp"
#include "real/nccl_tests.hpp"
#include "tests/skip.hpp"

using namespace tt::real;

namespace {
std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::path(TT_BINARY_DIR) / "test-out" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("the NCCL unique id travels through a private file", "[unit][real]") {
  const auto dir = fresh_dir("nccl-id");
  const std::string hex(256, 'a');
  std::string read;
  // Usually the reader waits for the file to appear; the generous timeout only matters on a machine that does not run
  // this thread for a minute.
  std::thread reader([&] {
    try {
      read = read_nccl_unique_id(dir / "nccl-id", std::chrono::seconds(60));
    } catch (const std::exception& e) {
      read = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  write_nccl_unique_id(dir / "nccl-id", hex);
  reader.join();
  CHECK(read == hex);
  CHECK((std::filesystem::status(dir / "nccl-id").permissions() & std::filesystem::perms::others_read) ==
        std::filesystem::perms::none);
  std::ofstream(dir / "bad") << "xyz\n";
  CHECK_THROWS_WITH(read_nccl_unique_id(dir / "bad", std::chrono::seconds(1)), Catch::Contains("256 hex digits"));
  CHECK_THROWS_WITH(read_nccl_unique_id(dir / "missing", std::chrono::milliseconds(50)), Catch::Contains("in time"));
}

TEST_CASE("the planner's NCCL environment is applied to the process", "[unit][real]") {
  apply_nccl_env({{"NCCL_TT_TEST_A", "Ring"}, {"NCCL_TT_TEST_B", "/tmp/topo.xml"}});
  CHECK(std::string(std::getenv("NCCL_TT_TEST_A")) == "Ring");
  CHECK(std::string(std::getenv("NCCL_TT_TEST_B")) == "/tmp/topo.xml");
  apply_nccl_env({{"NCCL_TT_TEST_A", "Tree"}});
  CHECK(std::string(std::getenv("NCCL_TT_TEST_A")) == "Tree");
}

TEST_CASE("commtest's inputs sum exactly in fp32 and the check counts wrong elements", "[unit][real]") {
  for (int ranks : {1, 2, 8, 180}) {
    std::vector<float> sum(600, 0.0f);
    for (int r = 0; r < ranks; ++r)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += commtest_input(r, std::int64_t(i));
    CHECK(commtest_wrong(sum, ranks) == 0);
    sum[5] += 1.0f;
    sum[599] = 0.0f;
    CHECK(commtest_wrong(sum, ranks) == 2);
  }
  CHECK(busbw_factor(4) == Approx(1.5));
  CHECK(commtest_iterations(8) == 20);
  CHECK(commtest_iterations(std::int64_t{1} << 30) == 1);
}

TEST_CASE("NCCL all-reduce sums over the GPUs' ranks", "[gpu][real]") {
  const int gpus = tt::kernels::cuda_device_count();
  if (gpus == 0) TT_SKIP("no CUDA device (" + tt::kernels::cuda_device_description() + ")");
  REQUIRE(nccl_built());
  const int world = std::min(gpus, 2);
  const std::string id = nccl_new_unique_id();
  CHECK(id.size() == 256);
  std::vector<std::vector<float>> data(static_cast<std::size_t>(world), std::vector<float>(1000));
  std::vector<std::string> errors(static_cast<std::size_t>(world));
  {
    std::vector<std::jthread> ranks;
    for (int r = 0; r < world; ++r)
      ranks.emplace_back([&, r] {
        try {
          auto comm = connect_nccl(id, r, world, r, std::chrono::seconds(60));
          auto& x = data[static_cast<std::size_t>(r)];
          for (std::size_t i = 0; i < x.size(); ++i) x[i] = commtest_input(r, std::int64_t(i));
          comm->sum(x.data(), x.size());
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(r)] = e.what();
        }
      });
  }
  for (int r = 0; r < world; ++r) {
    INFO("rank " << r << ": " << errors[static_cast<std::size_t>(r)]);
    CHECK(errors[static_cast<std::size_t>(r)].empty());
    CHECK(commtest_wrong(data[static_cast<std::size_t>(r)], world) == 0);
  }
}
