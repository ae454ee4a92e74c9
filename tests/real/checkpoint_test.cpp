#include "real/checkpoint.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "real/checksum.hpp"
#include "real/sys.hpp"
#include "real_support.hpp"

using namespace tt::real;
using tt::testing::overwrite;
using tt::testing::real_scratch;
using tt::testing::slurp;

namespace {

std::string state_of(int rank, std::int64_t iteration) {
  return "state of rank " + std::to_string(rank) + " after " + std::to_string(iteration) + std::string(1000, 'x');
}

void write_all_ranks(const std::filesystem::path& job, std::int64_t iteration, int world) {
  for (int r = 0; r < world; ++r) write_rank_checkpoint(job, iteration, r, world, state_of(r, iteration));
}

mode_t mode_of(const std::filesystem::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

}  // namespace

TEST_CASE("CRC-32C matches the standard check value", "[real][unit]") {
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c("") == 0u);
  // Chaining equals one pass, across the 8-byte fast path and the tail.
  std::string long_text(1000, 'q');
  long_text[517] = 'z';
  CHECK(crc32c(long_text.substr(300), crc32c(long_text.substr(0, 300))) == crc32c(long_text));
}

TEST_CASE("a checkpoint written by every rank verifies and reads back", "[real][unit]") {
  auto job = real_scratch("ckpt-roundtrip");
  write_all_ranks(job, 20, 3);
  CHECK(checkpoint_complete(job, 20, 3));
  CHECK(verify_checkpoint(job, 20, 3).empty());
  for (int r = 0; r < 3; ++r) CHECK(read_rank_state(job, 20, r, 3) == state_of(r, 20));
  // Directories are private; no temporary file is left behind.
  CHECK(mode_of(checkpoints_root(job)) == 0700);
  CHECK(mode_of(checkpoint_path(job, 20)) == 0700);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(checkpoint_path(job, 20))) {
    CHECK(e.path().string().find(".tmp") == std::string::npos);
    CHECK(mode_of(e.path()) == 0600);
    ++files;
  }
  CHECK(files == 6);
}

TEST_CASE("a checkpoint counts only when every rank's manifest is in place", "[real][unit]") {
  auto job = real_scratch("ckpt-partial");
  write_rank_checkpoint(job, 10, 0, 2, state_of(0, 10));
  CHECK_FALSE(checkpoint_complete(job, 10, 2));
  std::string why = verify_checkpoint(job, 10, 2);
  CHECK_THAT(why, Catch::Contains("rank-00001.manifest") && Catch::Contains("missing (partial checkpoint)"));
  // A state file without its manifest (the rank died between the two renames) is still partial.
  write_file_durably(checkpoint_path(job, 10) / state_file_name(1), state_of(1, 10));
  CHECK_FALSE(checkpoint_complete(job, 10, 2));
  RestorePoint rp = choose_restore(job, 2, 10);
  CHECK(rp.iteration == 0);
  REQUIRE(rp.refused.size() == 1);
  CHECK_THAT(rp.refused[0], Catch::StartsWith("checkpoint after iteration 10 refused: "));
}

TEST_CASE("a corrupt checkpoint is refused with a clear message and the previous one is used", "[real][unit]") {
  auto job = real_scratch("ckpt-corrupt");
  write_all_ranks(job, 10, 2);
  write_all_ranks(job, 20, 2);
  const auto state1 = checkpoint_path(job, 20) / state_file_name(1);

  SECTION("a flipped byte in a state file") {
    std::string data = slurp(state1);
    data[100] ^= 0x01;
    overwrite(state1, data);
    CHECK_THAT(verify_checkpoint(job, 20, 2),
               Catch::Contains("rank-00001.state") && Catch::Contains("CRC-32C") && Catch::Contains("(corrupt)"));
    CHECK_THROWS_WITH(read_rank_state(job, 20, 1, 2), Catch::Contains("refused") && Catch::Contains("(corrupt)"));
  }
  SECTION("a truncated state file") {
    overwrite(state1, slurp(state1).substr(0, 50));
    CHECK_THAT(verify_checkpoint(job, 20, 2), Catch::Contains("50 bytes, its manifest says"));
  }
  SECTION("a missing state file") {
    std::filesystem::remove(state1);
    CHECK_THAT(verify_checkpoint(job, 20, 2), Catch::Contains("missing, though its manifest is in place"));
  }
  SECTION("an edited manifest") {
    const auto manifest = checkpoint_path(job, 20) / manifest_file_name(0);
    std::string text = slurp(manifest);
    text.replace(text.find("iteration 20"), 12, "iteration 21");
    overwrite(manifest, text);
    CHECK_THAT(verify_checkpoint(job, 20, 2), Catch::Contains("does not match its own CRC-32C"));
  }
  SECTION("a manifest of another rank or world") {
    // Rank 0's manifest copied over rank 1's: well-formed, but it describes the wrong rank.
    const auto dir = checkpoint_path(job, 20);
    overwrite(dir / manifest_file_name(1), slurp(dir / manifest_file_name(0)));
    CHECK_THAT(verify_checkpoint(job, 20, 2), Catch::Contains("describes iteration 20, rank 0 of 2"));
    CHECK_THAT(verify_checkpoint(job, 20, 3), Catch::Contains("expected iteration 20, rank 0 of 3"));
  }
  SECTION("garbage instead of a manifest") {
    overwrite(checkpoint_path(job, 20) / manifest_file_name(0), "hello");
    CHECK_THAT(verify_checkpoint(job, 20, 2), Catch::Contains("not a traintwin checkpoint manifest"));
  }

  RestorePoint rp = choose_restore(job, 2, 20);
  CHECK(rp.iteration == 10);
  REQUIRE(rp.refused.size() == 1);
  CHECK_THAT(rp.refused[0], Catch::StartsWith("checkpoint after iteration 20 refused: "));
  CHECK(read_rank_state(job, 10, 1, 2) == state_of(1, 10));
}

TEST_CASE("restore picks the newest whole checkpoint at or below the asked iteration", "[real][unit]") {
  auto job = real_scratch("ckpt-choose");
  CHECK(choose_restore(job, 2, 100).iteration == 0);  // no checkpoint at all: from the seed
  write_all_ranks(job, 10, 2);
  write_all_ranks(job, 20, 2);
  write_all_ranks(job, 30, 2);
  CHECK(choose_restore(job, 2, 30).iteration == 30);
  CHECK(choose_restore(job, 2, 25).iteration == 20);
  CHECK(choose_restore(job, 2, 5).iteration == 0);
  CHECK(list_checkpoints(job) == std::vector<std::int64_t>{10, 20, 30});
}

TEST_CASE("leftover and old checkpoints are removed", "[real][unit]") {
  auto job = real_scratch("ckpt-prune");
  for (int it : {10, 20, 30, 40}) write_all_ranks(job, it, 2);
  write_rank_checkpoint(job, 50, 0, 2, "partial");
  remove_checkpoints_after(job, 40);
  CHECK(list_checkpoints(job) == std::vector<std::int64_t>{10, 20, 30, 40});
  write_rank_checkpoint(job, 50, 0, 2, "in progress");
  prune_checkpoints(job, 2, 3);  // keeps 20, 30, 40 and the newer one still being written
  CHECK(list_checkpoints(job) == std::vector<std::int64_t>{20, 30, 40, 50});
}

TEST_CASE("private directories are 0700 even when they existed", "[real][unit]") {
  auto root = real_scratch("private-dirs");
  auto dir = root / "a" / "b";
  make_private_dirs(dir);
  CHECK(mode_of(root / "a") == 0700);
  CHECK(mode_of(dir) == 0700);
  REQUIRE(::chmod(dir.c_str(), 0755) == 0);
  make_private_dirs(dir);
  CHECK(mode_of(dir) == 0700);
  overwrite(root / "file", "x");
  CHECK_THROWS_WITH(make_private_dirs(root / "file"), Catch::Contains("file") && Catch::Contains("Not a directory"));
}
