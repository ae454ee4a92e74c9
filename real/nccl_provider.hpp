// Which collective library a real run's workers use, and the files that carry its setup from the driver to them:
// "gloo" (CPU devices: a Gloo file store in the attempt directory) or "nccl" (CUDA devices: the driver writes a fresh
// NCCL unique id, the planner's NCCL environment and the node's NCCL_TOPO_FILE into the attempt directory; each
// worker applies the environment, reads the id and joins the communicator on its GPU). See docs/cuda.md.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "core/control/events.hpp"
#include "core/model/scenario.hpp"
#include "real/collective.hpp"

namespace tt::real {

// Driver side, once per attempt, before its workers start. nccl: writes ATTEMPT_DIR/nccl-id, nccl-env (NAME=VALUE
// lines) and nccl-topo.xml. Throws std::invalid_argument for an unknown provider, std::runtime_error when NCCL fails.
void prepare_provider(const std::string& provider, const std::filesystem::path& attempt_dir, const Scenario& scenario,
                      const Launch& launch);

// Worker side: the rank's all-reduce over the provider (gloo: ATTEMPT_DIR/gloo-store; nccl: the files above, on CUDA
// device `device`).
std::unique_ptr<GradientAllReduce> connect_provider(const std::string& provider,
                                                    const std::filesystem::path& attempt_dir, int rank, int world,
                                                    int device, std::chrono::milliseconds timeout);

}  // namespace tt::real
