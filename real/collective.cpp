#include "real/collective.hpp"

#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <stdexcept>
#include <string>

namespace tt::real {
namespace {

class NoOp : public GradientAllReduce {
 public:
  void sum(float*, std::size_t) override {}
};

class GlooAllReduce : public GradientAllReduce {
 public:
  GlooAllReduce(const std::filesystem::path& store_dir, int rank, int world, std::chrono::milliseconds timeout)
      : timeout_(timeout) {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    attr.ai_family = AF_INET;
    device_ = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore store(store_dir.string());
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, world);
    context->setTimeout(timeout);
    context->connectFullMesh(store, device_);
    context_ = std::move(context);
  }

  void sum(float* data, std::size_t n) override {
    gloo::AllreduceOptions opts(context_);
    opts.setOutput(data, n);
    opts.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, std::size_t)>(&gloo::sum<float>));
    opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
    opts.setTag(tag_++);
    opts.setTimeout(timeout_);
    gloo::allreduce(opts);
  }

 private:
  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
  std::uint32_t tag_ = 0;
};

}  // namespace

std::unique_ptr<GradientAllReduce> connect_gloo(const std::filesystem::path& store_dir, int rank, int world,
                                                std::chrono::milliseconds timeout) {
  if (world <= 1) return std::make_unique<NoOp>();
  try {
    return std::make_unique<GlooAllReduce>(store_dir, rank, world, timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error("Gloo rendezvous of rank " + std::to_string(rank) + " of " + std::to_string(world) +
                             " through file store " + store_dir.string() + " failed: " + e.what());
  }
}

}  // namespace tt::real
