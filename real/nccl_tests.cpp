#include "real/nccl_tests.hpp"

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tt::real {

float commtest_input(int rank, std::int64_t i) { return static_cast<float>((rank + 1) * (i % 251 + 1)); }
float commtest_expected(int ranks, std::int64_t i) {
  return static_cast<float>(static_cast<std::int64_t>(ranks) * (ranks + 1) / 2 * (i % 251 + 1));
}
int commtest_iterations(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{64} << 20) / std::max<std::int64_t>(bytes, 1), 1, 20));
}
double busbw_factor(int ranks) { return 2.0 * (ranks - 1) / ranks; }

std::int64_t commtest_wrong(const std::vector<float>& recv, int ranks) {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < recv.size(); ++i) wrong += recv[i] != commtest_expected(ranks, std::int64_t(i)) ? 1 : 0;
  return wrong;
}

namespace {

CommTestRankResult gloo_rank(const CommTestOptions& o, int rank) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  attr.ai_family = AF_INET;
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(o.store_dir.string());
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, o.ranks);
  context->setTimeout(o.timeout);
  context->connectFullMesh(store, device);

  CommTestRankResult out;
  std::uint32_t tag = 0;
  const auto barrier = [&] {
    gloo::BarrierOptions b(context);
    b.setTag(tag++);
    b.setTimeout(o.timeout);
    gloo::barrier(b);
  };
  const auto allreduce = [&](const float* in, float* result, std::size_t n) {
    gloo::AllreduceOptions opts(context);
    if (in != result) opts.setInput(const_cast<float*>(in), n);
    opts.setOutput(result, n);
    opts.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, std::size_t)>(&gloo::sum<float>));
    opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
    opts.setTag(tag++);
    opts.setTimeout(o.timeout);
    gloo::allreduce(opts);
  };
  for (const std::int64_t bytes : o.sizes) {
    const auto count = static_cast<std::size_t>(bytes / 4);
    std::vector<float> send(count), recv(count);
    for (std::size_t i = 0; i < count; ++i) send[i] = commtest_input(rank, std::int64_t(i));
    if (rank == o.corrupt_rank && count > 0) send[0] += 1.0f;
    const int iters = commtest_iterations(bytes);
    for (const bool in_place : {false, true}) {
      const auto run_once = [&] {
        if (in_place) {
          recv = send;
          allreduce(recv.data(), recv.data(), count);
        } else {
          allreduce(send.data(), recv.data(), count);
        }
      };
      run_once();  // warm-up
      barrier();
      double seconds = 0;
      for (int it = 0; it < iters; ++it) {
        // In place, the buffer is refilled before each call (outside the timed region).
        if (in_place) recv = send;
        const auto t0 = std::chrono::steady_clock::now();
        if (in_place) {
          allreduce(recv.data(), recv.data(), count);
        } else {
          allreduce(send.data(), recv.data(), count);
        }
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      const std::int64_t wrong = commtest_wrong(recv, o.ranks);
      (in_place ? out.ip_us : out.oop_us).push_back(seconds / iters * 1e6);
      (in_place ? out.ip_wrong : out.oop_wrong).push_back(wrong);
    }
  }
  return out;
}

}  // namespace

std::vector<CommTestRow> commtest_rows(const CommTestOptions& o, const std::vector<CommTestRankResult>& ranks) {
  std::vector<CommTestRow> rows;
  for (std::size_t s = 0; s < o.sizes.size(); ++s) {
    CommTestRow row;
    row.bytes = o.sizes[s] / 4 * 4;
    row.count = o.sizes[s] / 4;
    for (const CommTestRankResult& r : ranks) {
      row.out_of_place.us = std::max(row.out_of_place.us, r.oop_us[s]);
      row.in_place.us = std::max(row.in_place.us, r.ip_us[s]);
      row.out_of_place.wrong += r.oop_wrong[s];
      row.in_place.wrong += r.ip_wrong[s];
    }
    for (CommTestPass* p : {&row.out_of_place, &row.in_place}) {
      p->algbw = p->us > 0 ? static_cast<double>(row.bytes) / (p->us * 1e-6) : 0;
      p->busbw = p->algbw * busbw_factor(o.ranks);
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<CommTestRow> run_commtest_gloo(const CommTestOptions& o) {
  if (o.ranks < 1) throw std::invalid_argument("commtest: at least one rank");
  std::vector<CommTestRankResult> results(static_cast<std::size_t>(o.ranks));
  std::vector<std::string> errors(static_cast<std::size_t>(o.ranks));
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < o.ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          results[static_cast<std::size_t>(r)] = gloo_rank(o, r);
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(r)] = e.what();
        }
      });
  }
  for (int r = 0; r < o.ranks; ++r)
    if (!errors[static_cast<std::size_t>(r)].empty())
      throw std::runtime_error("Gloo rank " + std::to_string(r) + " of " + std::to_string(o.ranks) + " (store " +
                               o.store_dir.string() + "): " + errors[static_cast<std::size_t>(r)]);
  return commtest_rows(o, results);
}

}  // namespace tt::real
