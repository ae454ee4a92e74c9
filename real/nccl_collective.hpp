// The NCCL provider of the real driver's collectives: a GradientAllReduce over an NCCL communicator of one rank per
// GPU, created from a unique id the driver makes and hands to every rank (a file in the attempt's directory), with
// the planner's NCCL environment (NCCL_* variables, NCCL_TOPO_FILE) applied before the first NCCL call. Every CUDA and
// NCCL call is checked (the error names host, file and line); on any failure or timeout the communicator is aborted
// (ncclCommAbort), so a dead peer cannot hang the job. Built only with CUDA (docs/cuda.md); otherwise every function
// but nccl_built() throws.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "real/collective.hpp"

namespace tt::real {

bool nccl_built();
// "NCCL 2.28.9" of the library linked in.
std::string nccl_version();

// A fresh ncclUniqueId as 256 hex digits (what ncclGetUniqueId fills: it also starts the bootstrap listener of this
// process, so the driver that creates it must stay alive while the ranks connect).
std::string nccl_new_unique_id();
// Writes the id to `file` (mode 0600, atomically through a rename) / waits up to `timeout` for it and reads it.
void write_nccl_unique_id(const std::filesystem::path& file, const std::string& hex);
std::string read_nccl_unique_id(const std::filesystem::path& file, std::chrono::milliseconds timeout);

// setenv() of each pair (overwriting), e.g. nccl_env() of core/plan/nccl_settings.hpp; before the first NCCL call.
void apply_nccl_env(const std::vector<std::pair<std::string, std::string>>& env);

// Rank `rank` of `world` on CUDA device `device`. sum() copies the host buffer to the device, all-reduces in place
// and copies back; waits at most `timeout` for a collective, then aborts the communicator and throws.
std::unique_ptr<GradientAllReduce> connect_nccl(const std::string& unique_id_hex, int rank, int world, int device,
                                                std::chrono::milliseconds timeout);

}  // namespace tt::real
