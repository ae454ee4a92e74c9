// The CUDA attention kernels: [gpu] cases run the numerics gate on a device and are skipped without one (skip.hpp);
// the [unit] cases check what must hold everywhere: the device query never throws, and a failing CUDA call names the
// host, file and line.
#include "kernels/attention_cuda.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "kernels/kernelcheck.hpp"
#include "tests/skip.hpp"

using namespace tt::kernels;

TEST_CASE("the CUDA device query answers without throwing, also where there is none", "[unit][kernels]") {
  int count = -1;
  REQUIRE_NOTHROW(count = cuda_device_count());
  CHECK(count >= 0);
  CHECK(cuda_device_present() == (count > 0));
  const std::string description = cuda_device_description();
  CHECK(!description.empty());
  if (count == 0) CHECK_THAT(description, Catch::Contains("no CUDA device"));
}

TEST_CASE("CUDA attention takes head_dim 64, 128, 256 forward and 64, 128 backward", "[unit][kernels]") {
  for (int d : {64, 128, 256}) CHECK(cuda_forward_supports({.batch = 1, .heads = 1, .seq = 7, .head_dim = d}));
  CHECK(cuda_backward_supports({.batch = 3, .heads = 5, .seq = 1, .head_dim = 64}));
  CHECK_FALSE(cuda_backward_supports({.batch = 1, .heads = 1, .seq = 64, .head_dim = 256}));
  CHECK_FALSE(cuda_forward_supports({.batch = 1, .heads = 1, .seq = 64, .head_dim = 96}));
  CHECK_FALSE(cuda_forward_supports({.batch = 0, .heads = 1, .seq = 64, .head_dim = 64}));
}

TEST_CASE("without a device, CUDA attention fails with the host, file and line of the call", "[unit][kernels]") {
  if (cuda_device_present()) TT_SKIP("a CUDA device is present: the [gpu] cases cover it");
  try {
    CudaAttention a({.batch = 1, .heads = 1, .seq = 64, .head_dim = 64}, Precision::bf16);
    FAIL("constructing CudaAttention without a device should throw");
  } catch (const CudaError& e) {
    const std::string what = e.what();
    INFO(what);
    if (cuda_built()) {
      CHECK_THAT(what, Catch::Contains("attention_cuda.cu:") && Catch::Contains("cudaMalloc"));
    } else {
      CHECK_THAT(what, Catch::Contains("built without CUDA"));
    }
  }
}

TEST_CASE("CUDA flash attention passes the numerics gate on ragged shapes", "[gpu][kernels]") {
  if (!cuda_device_present()) TT_SKIP("no CUDA device (" + cuda_device_description() + ")");
  std::uint64_t seed = 20261129;
  for (const Precision p : {Precision::bf16, Precision::fp16})
    for (const int d : {64, 128, 256})
      for (const bool causal : {false, true})
        for (const int seq : {1, 77, 200, 600}) {
          const CheckCase c{{.batch = 2, .heads = 3, .seq = seq, .head_dim = d, .causal = causal}, p};
          const auto rows = run_check(CheckDevice::cuda, c, seed += 7, 1);
          REQUIRE(rows.size() == (d == 256 ? 1u : 2u));
          for (const CheckRow& r : rows) {
            INFO(precision_name(p) << " d " << d << " causal " << causal << " seq " << seq << " "
                                   << (r.backward ? "bwd" : "fwd") << " worst " << r.worst << " error " << r.error
                                   << " bound " << r.bound << " " << r.failure);
            CHECK(r.scope == "full");
            CHECK(r.ok());
            CHECK(r.ms > 0);
          }
        }
}

TEST_CASE("CUDA flash attention writes every output element", "[gpu][kernels]") {
  if (!cuda_device_present()) TT_SKIP("no CUDA device (" + cuda_device_description() + ")");
  const AttentionShape s{.batch = 1, .heads = 2, .seq = 130, .head_dim = 64, .causal = true};
  CudaAttention gpu(s, Precision::bf16);
  std::vector<std::uint16_t> x(static_cast<std::size_t>(s.elements()));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint16_t>(0x3c00 + (i * 2654435761u) % 512);
  gpu.upload(x, x, x, x);
  gpu.poison_outputs();
  CHECK(gpu.forward() > 0);
  CHECK(gpu.backward() > 0);
  const auto is_nan16 = [](std::uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0; };  // bf16 NaN
  for (const auto& out : {gpu.o(), gpu.dq(), gpu.dk(), gpu.dv()})
    for (std::uint16_t b : out) REQUIRE_FALSE(is_nan16(b));
  for (float l : gpu.lse()) REQUIRE(std::isfinite(l));
}
