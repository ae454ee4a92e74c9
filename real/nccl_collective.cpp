// NCCL and CUDA behind real/nccl_collective.hpp and run_commtest_nccl (real/nccl_tests.hpp).
#include "real/nccl_collective.hpp"

#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "real/nccl_tests.hpp"

namespace tt::real {
namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string where(const char* file, int line) { return host_name() + ": " + file + ":" + std::to_string(line) + ": "; }

#define TT_CUDA(call)                                                                                 \
  do {                                                                                                \
    const cudaError_t tt_e_ = (call);                                                                 \
    if (tt_e_ != cudaSuccess)                                                                         \
      throw std::runtime_error(where(__FILE__, __LINE__) + #call + ": " + cudaGetErrorString(tt_e_)); \
  } while (0)

#define TT_NCCL(call)                                                                                         \
  do {                                                                                                        \
    const ncclResult_t tt_r_ = (call);                                                                        \
    if (tt_r_ != ncclSuccess && tt_r_ != ncclInProgress)                                                      \
      throw std::runtime_error(                                                                               \
          where(__FILE__, __LINE__) + #call + ": " + ncclGetErrorString(tt_r_) +                              \
          (ncclGetLastError(nullptr) ? std::string(" (") + ncclGetLastError(nullptr) + ")" : std::string())); \
  } while (0)

std::string to_hex(const ncclUniqueId& id) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : id.internal) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

ncclUniqueId from_hex(const std::string& hex) {
  ncclUniqueId id{};
  if (hex.size() != 2 * sizeof id.internal) throw std::invalid_argument("an NCCL unique id is 256 hex digits");
  for (std::size_t i = 0; i < sizeof id.internal; ++i)
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

// A non-blocking communicator (every NCCL call returns at once and is settled by polling, with a deadline) that is
// aborted, not destroyed, when anything went wrong: ncclCommAbort returns even when a peer is dead, where
// ncclCommDestroy, or a blocking ncclCommInitRank waiting for a peer that never comes, would wait for ever.
class Communicator {
 public:
  Communicator(const ncclUniqueId& id, int rank, int world, int device, std::chrono::milliseconds timeout)
      : device_(device) {
    try {
      TT_CUDA(cudaSetDevice(device));
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      TT_NCCL(ncclCommInitRankConfig(&comm_, world, id, rank, &config));
      settle(timeout, "ncclCommInitRank");
      TT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    } catch (...) {
      abort();  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~Communicator() {
    if (stream_) cudaStreamDestroy(stream_);
    if (comm_) {
      if (healthy_)
        ncclCommDestroy(comm_);
      else
        ncclCommAbort(comm_);
    }
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // After each NCCL call: waits until the communicator is no longer ncclInProgress (the call has been carried out or
  // enqueued); an error or the deadline aborts it and throws.
  void settle(std::chrono::milliseconds timeout, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      ncclResult_t state = ncclInProgress;
      const ncclResult_t queried = ncclCommGetAsyncError(comm_, &state);
      std::string failure;
      if (queried != ncclSuccess)
        failure = std::string("ncclCommGetAsyncError: ") + ncclGetErrorString(queried);
      else if (state == ncclSuccess)
        return;
      else if (state != ncclInProgress)
        failure = std::string("NCCL: ") + ncclGetErrorString(state);
      else if (std::chrono::steady_clock::now() > deadline)
        failure = "not done in time (a peer is gone or hung)";
      if (!failure.empty()) fail(what, failure);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }

  // Waits for the stream, polling NCCL's asynchronous error; a failure or the timeout aborts the communicator.
  void wait(std::chrono::milliseconds timeout, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const cudaError_t done = cudaStreamQuery(stream_);
      if (done == cudaSuccess) return;
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      std::string failure;
      if (done != cudaErrorNotReady)
        failure = std::string("CUDA: ") + cudaGetErrorString(done);
      else if (async != ncclSuccess && async != ncclInProgress)
        failure = std::string("NCCL: ") + ncclGetErrorString(async);
      else if (std::chrono::steady_clock::now() > deadline)
        failure = "no completion in time (a peer is gone or hung)";
      if (!failure.empty()) fail(what, failure);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  void abort() {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    healthy_ = false;
  }
  [[noreturn]] void fail(const char* what, const std::string& failure) {
    abort();
    throw std::runtime_error(host_name() + ": " + what + " on device " + std::to_string(device_) + ": " + failure +
                             "; communicator aborted");
  }

 private:
  int device_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool healthy_ = true;
};

class NcclAllReduce : public GradientAllReduce {
 public:
  NcclAllReduce(const ncclUniqueId& id, int rank, int world, int device, std::chrono::milliseconds timeout)
      : comm_(id, rank, world, device, timeout), timeout_(timeout) {}
  ~NcclAllReduce() override {
    if (buffer_) cudaFree(buffer_);
  }

  void sum(float* data, std::size_t n) override {
    try {
      if (n > capacity_) {
        if (buffer_) TT_CUDA(cudaFree(buffer_));
        buffer_ = nullptr;
        TT_CUDA(cudaMalloc(&buffer_, n * sizeof(float)));
        capacity_ = n;
      }
      TT_CUDA(cudaMemcpyAsync(buffer_, data, n * sizeof(float), cudaMemcpyHostToDevice, comm_.stream()));
      TT_NCCL(ncclAllReduce(buffer_, buffer_, n, ncclFloat, ncclSum, comm_.comm(), comm_.stream()));
      comm_.settle(timeout_, "ncclAllReduce");
      TT_CUDA(cudaMemcpyAsync(data, buffer_, n * sizeof(float), cudaMemcpyDeviceToHost, comm_.stream()));
      comm_.wait(timeout_, "NCCL all-reduce");
    } catch (...) {
      comm_.abort();
      throw;
    }
  }

 private:
  Communicator comm_;
  std::chrono::milliseconds timeout_;
  float* buffer_ = nullptr;
  std::size_t capacity_ = 0;
};

CommTestRankResult nccl_rank(const CommTestOptions& o, const ncclUniqueId& id, int rank) {
  Communicator comm(id, rank, o.ranks, rank, o.timeout);
  CommTestRankResult out;
  try {
    cudaEvent_t start = nullptr, stop = nullptr;
    TT_CUDA(cudaEventCreate(&start));
    TT_CUDA(cudaEventCreate(&stop));
    for (const std::int64_t bytes : o.sizes) {
      const auto count = static_cast<std::size_t>(bytes / 4);
      std::vector<float> send(count), result(count);
      for (std::size_t i = 0; i < count; ++i) send[i] = commtest_input(rank, std::int64_t(i));
      if (rank == o.corrupt_rank && count > 0) send[0] += 1.0f;
      float *d_send = nullptr, *d_recv = nullptr;
      TT_CUDA(cudaMalloc(&d_send, std::max<std::size_t>(count, 1) * sizeof(float)));
      TT_CUDA(cudaMalloc(&d_recv, std::max<std::size_t>(count, 1) * sizeof(float)));
      TT_CUDA(cudaMemcpy(d_send, send.data(), count * sizeof(float), cudaMemcpyHostToDevice));
      const int iters = commtest_iterations(bytes);
      for (const bool in_place : {false, true}) {
        float* target = in_place ? d_send : d_recv;
        const auto refill = [&] {
          if (in_place)
            TT_CUDA(cudaMemcpyAsync(d_send, send.data(), count * sizeof(float), cudaMemcpyHostToDevice, comm.stream()));
        };
        refill();
        TT_NCCL(ncclAllReduce(d_send, target, count, ncclFloat, ncclSum, comm.comm(), comm.stream()));  // warm-up
        comm.settle(o.timeout, "ncclAllReduce");
        comm.wait(o.timeout, "NCCL all-reduce (warm-up)");
        float total_ms = 0;
        for (int it = 0; it < iters; ++it) {
          refill();
          TT_CUDA(cudaEventRecord(start, comm.stream()));
          TT_NCCL(ncclAllReduce(d_send, target, count, ncclFloat, ncclSum, comm.comm(), comm.stream()));
          comm.settle(o.timeout, "ncclAllReduce");  // enqueued before the stop event is
          TT_CUDA(cudaEventRecord(stop, comm.stream()));
          comm.wait(o.timeout, "NCCL all-reduce");
          float ms = 0;
          TT_CUDA(cudaEventElapsedTime(&ms, start, stop));
          total_ms += ms;
        }
        TT_CUDA(cudaMemcpy(result.data(), target, count * sizeof(float), cudaMemcpyDeviceToHost));
        (in_place ? out.ip_us : out.oop_us).push_back(total_ms / iters * 1e3);
        (in_place ? out.ip_wrong : out.oop_wrong).push_back(commtest_wrong(result, o.ranks));
      }
      TT_CUDA(cudaFree(d_send));
      TT_CUDA(cudaFree(d_recv));
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  } catch (...) {
    comm.abort();
    throw;
  }
  return out;
}

}  // namespace

bool nccl_built() { return true; }

std::string nccl_version() {
  int v = 0;
  TT_NCCL(ncclGetVersion(&v));
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string nccl_new_unique_id() {
  ncclUniqueId id;
  TT_NCCL(ncclGetUniqueId(&id));
  return to_hex(id);
}

std::unique_ptr<GradientAllReduce> connect_nccl(const std::string& unique_id_hex, int rank, int world, int device,
                                                std::chrono::milliseconds timeout) {
  return std::make_unique<NcclAllReduce>(from_hex(unique_id_hex), rank, world, device, timeout);
}

std::vector<CommTestRow> run_commtest_nccl(const CommTestOptions& o) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    devices = 0;
  }
  if (devices < o.ranks)
    throw std::invalid_argument("commtest: " + std::to_string(o.ranks) + " ranks need as many CUDA devices; " +
                                std::to_string(devices) + " visible");
  ncclUniqueId id;
  TT_NCCL(ncclGetUniqueId(&id));
  std::vector<CommTestRankResult> results(static_cast<std::size_t>(o.ranks));
  std::vector<std::string> errors(static_cast<std::size_t>(o.ranks));
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < o.ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          results[static_cast<std::size_t>(r)] = nccl_rank(o, id, r);
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(r)] = e.what();
        }
      });
  }
  for (int r = 0; r < o.ranks; ++r)
    if (!errors[static_cast<std::size_t>(r)].empty())
      throw std::runtime_error("NCCL rank " + std::to_string(r) + ": " + errors[static_cast<std::size_t>(r)]);
  return commtest_rows(o, results);
}

}  // namespace tt::real
