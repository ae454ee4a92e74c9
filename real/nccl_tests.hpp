// nccl-tests' connectivity and all-reduce check, run on this machine: N ranks as threads of one process, on CPU
// devices (Gloo over TCP on 127.0.0.1, rendezvous through a file store) or on CUDA GPUs (one thread per GPU, NCCL
// communicators from one unique id; real/nccl_collective.hpp). Per size it times the out-of-place and the in-place
// all-reduce (sum of floats) and counts the elements that differ from the exact sum on any rank.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tt::real {

struct CommTestOptions {
  int ranks = 2;
  std::vector<std::int64_t> sizes;  // bytes per rank; whole floats
  std::filesystem::path store_dir;  // Gloo's file store (a fresh, private directory)
  std::chrono::milliseconds timeout{60000};
  int corrupt_rank = -1;  // test hook: this rank adds 1 to its first input element, so every result there is wrong
};

struct CommTestPass {
  double us = 0;           // mean time of one call, the slowest rank's
  double algbw = 0;        // bytes / s: size / time
  double busbw = 0;        // algbw x 2 (n - 1) / n, nccl-tests' all-reduce factor
  std::int64_t wrong = 0;  // elements differing from the exact sum, over all ranks
};

struct CommTestRow {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  CommTestPass out_of_place, in_place;
};

// Inputs: rank r holds (r + 1) x (i mod 251 + 1) at element i, so the sum is exact in fp32 for up to 180 ranks.
float commtest_input(int rank, std::int64_t i);
float commtest_expected(int ranks, std::int64_t i);
// Iterations per size: 20 for small buffers, fewer as they grow (at least 1), after one warm-up call.
int commtest_iterations(std::int64_t bytes);
double busbw_factor(int ranks);

// One rank's measurements, per size: mean microseconds per call and wrong elements of its result.
struct CommTestRankResult {
  std::vector<double> oop_us, ip_us;
  std::vector<std::int64_t> oop_wrong, ip_wrong;
};
std::int64_t commtest_wrong(const std::vector<float>& result, int ranks);
// Folds the ranks' results into rows: the slowest rank's time, wrong elements summed over ranks.
std::vector<CommTestRow> commtest_rows(const CommTestOptions& o, const std::vector<CommTestRankResult>& ranks);

// Throws std::runtime_error (rank and cause) when a rank fails to connect or a collective fails.
std::vector<CommTestRow> run_commtest_gloo(const CommTestOptions& o);
// One rank per visible GPU (o.ranks of them); throws when NCCL or CUDA fails (host, file and line) or when this binary
// was built without CUDA.
std::vector<CommTestRow> run_commtest_nccl(const CommTestOptions& o);

}  // namespace tt::real
