// The gradient all-reduce of a job's ranks. The Gloo implementation rendezvouses through a gloo::rendezvous::FileStore
// in a directory every rank of the attempt shares (the job's run directory), and connects a full mesh over Gloo's TCP
// transport bound to 127.0.0.1 only. The sum is Gloo's ring all-reduce: its reduction order depends only on the world
// size and the buffer size, so results are bit-reproducible run to run.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>

namespace tt::real {

class GradientAllReduce {
 public:
  virtual ~GradientAllReduce() = default;
  // In place: every rank ends with the elementwise sum over ranks. Throws on a communication error or timeout.
  virtual void sum(float* data, std::size_t n) = 0;
};

// world == 1 gives a no-op. Throws std::runtime_error naming the store and rank when rendezvous fails.
std::unique_ptr<GradientAllReduce> connect_gloo(const std::filesystem::path& store_dir, int rank, int world,
                                                std::chrono::milliseconds timeout);

}  // namespace tt::real
