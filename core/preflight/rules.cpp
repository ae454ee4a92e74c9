#include "core/preflight/rules.hpp"

#include <cassert>

namespace tt::preflight {

const char* to_string(Severity s) { return s == Severity::Blocking ? "blocking" : "warning"; }

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"cuda-driver-floor", Severity::Blocking,
       "the driver is at least the minimum driver of the CUDA runtime's major version, and supports that major",
       "every CUDA call fails with cudaErrorInsufficientDriver (35, \"CUDA driver version is insufficient for CUDA "
       "runtime version\"): no process starts training",
       "NVIDIA, CUDA Compatibility guide, \"Minor Version Compatibility\" (Table: CUDA 11.x >= 450.80.02, 12.x >= "
       "525.60.13, 13.x >= 580) and CUDA Toolkit Release Notes, Table 3 (minimum required driver per toolkit)"},
      {"cuda-minor-compat", Severity::Warning,
       "the runtime is no newer (major.minor) than the CUDA version the driver supports",
       "the runtime runs under minor-version compatibility with a limited feature set: PTX compiled by the newer "
       "toolkit fails to JIT with cudaErrorUnsupportedPtxVersion (222)",
       "NVIDIA, CUDA Compatibility guide, \"Minor Version Compatibility\": limitations (PTX JIT)"},
      {"nccl-cuda-driver", Severity::Blocking,
       "the driver supports the CUDA major version NCCL was built for",
       "ncclCommInitRank fails with ncclUnhandledCudaError (\"Cuda failure 'CUDA driver version is insufficient for "
       "CUDA runtime version'\"): the job's communicator never forms",
       "NVIDIA, NCCL Installation Guide (NCCL packages are built per CUDA version) and the CUDA driver floors above"},
      {"nccl-cuda-runtime", Severity::Warning,
       "NCCL was built for a CUDA no newer (major.minor) than the runtime in use",
       "an untested pairing: NCCL brings its own CUDA runtime, so the process runs two runtimes; the NCCL package "
       "must match the CUDA version (NCCL Installation Guide)",
       "NVIDIA, NCCL Installation Guide, \"Installing NCCL\": choose the package built for your CUDA version"},
      {"attention-requirements", Severity::Warning,
       "the attention library's release line supports the node's GPU architecture and CUDA runtime",
       "the FlashAttention kernel refuses the GPU (\"FlashAttention only supports Ampere GPUs or newer.\") and the "
       "framework falls back to a slower attention path (PyTorch SDPA's memory-efficient or math kernel): slower "
       "iterations on this node",
       "Dao-AILab/flash-attention README: FlashAttention-2 needs Ampere, Ada or Hopper GPUs (compute capability >= "
       "8.0) and CUDA >= 12.0; FlashAttention-3 needs H100/H800 (9.0) and CUDA >= 12.3"},
      {"nccl-same-version", Severity::Blocking,
       "every node (every rank of a job) runs the same NCCL version",
       "communicator setup fails or hangs: ncclCommInitRank reports ncclInvalidUsage (\"Mismatched NCCL version "
       "detected\") or waits in bootstrap until the job's watchdog kills it",
       "NVIDIA NCCL, init.cc bootstrap version check (the message above is in libnccl.so.2); NCCL Troubleshooting"},
  };
  return table;
}

const Rule& rule(const std::string& id) {
  for (const auto& r : rules())
    if (id == r.id) return r;
  assert(false && "unknown preflight rule");
  return rules().front();
}

const std::vector<DriverFloor>& driver_floors() {
  static const std::vector<DriverFloor> table = {{11, "450.80.02"}, {12, "525.60.13"}, {13, "580.65.06"}};
  return table;
}

std::optional<Version> driver_floor(int cuda_major) {
  for (const auto& f : driver_floors())
    if (f.cuda_major == cuda_major) return Version::parse(f.driver);
  return std::nullopt;
}

const std::vector<AttentionRequirement>& attention_requirements() {
  static const std::vector<AttentionRequirement> table = {
      {"flash-attn", 2, "8.0", "", "12.0"},
      {"flash-attn", 3, "9.0", "9.0", "12.3"},
  };
  return table;
}

namespace {

// The driver must support `cuda` (its major) and be at least that major's floor.
std::optional<Violation> driver_supports(const Inventory& inv, const Version& cuda, const char* id,
                                         const std::string& what) {
  if (!inv.driver) return Violation{id, "no NVIDIA driver", "a driver for " + what + " " + cuda.text()};
  auto floor = driver_floor(cuda.major());
  if (floor && *inv.driver < *floor)
    return Violation{id, "driver " + inv.driver->text(),
                     "driver >= " + floor->text() + " for " + what + " " + cuda.text()};
  if (inv.driver_cuda && inv.driver_cuda->major() < cuda.major())
    return Violation{id, "driver " + inv.driver->text() + " (CUDA " + inv.driver_cuda->text() + ")",
                     "a driver supporting CUDA " + std::to_string(cuda.major()) + ".x for " + what + " " +
                         cuda.text()};
  return std::nullopt;
}

bool newer_major_minor(const Version& a, const Version& b) {
  return a.component(0) != b.component(0) ? a.component(0) > b.component(0) : a.component(1) > b.component(1);
}

void check_attention(const Inventory& inv, std::vector<Violation>& out) {
  if (!inv.attention) return;
  for (const auto& req : attention_requirements()) {
    if (inv.attention->name != req.library || inv.attention->version.major() != req.major) continue;
    const std::string what = inv.attention->name + " " + inv.attention->version.text();
    auto min_cc = *Version::parse(req.min_capability);
    std::string needs = "compute capability >= " + min_cc.text();
    if (*req.max_capability) needs = std::string("compute capability ") + req.max_capability;
    needs += " and CUDA >= " + std::string(req.min_cuda) + " for " + what;
    const auto& cc = inv.gpu ? inv.gpu->compute_capability : std::nullopt;
    const bool cc_ok = cc && *cc >= min_cc && (!*req.max_capability || *cc <= *Version::parse(req.max_capability));
    const bool cuda_ok = inv.cuda_runtime && *inv.cuda_runtime >= *Version::parse(req.min_cuda);
    if (!cc_ok || !cuda_ok)
      out.push_back({"attention-requirements",
                     "GPU " + (inv.gpu ? inv.gpu->model + " (" + (cc ? cc->text() : "unknown capability") + ")"
                                       : std::string("absent")) +
                         ", CUDA " + (inv.cuda_runtime ? inv.cuda_runtime->text() : std::string("absent")),
                     needs});
  }
}

}  // namespace

std::vector<Violation> check_node(const Inventory& inv) {
  std::vector<Violation> out;
  if (inv.cuda_runtime && inv.gpu) {  // a node without a GPU runs no CUDA, whatever is installed
    if (auto v = driver_supports(inv, *inv.cuda_runtime, "cuda-driver-floor", "CUDA runtime")) out.push_back(*v);
    else if (inv.driver_cuda && newer_major_minor(*inv.cuda_runtime, *inv.driver_cuda))
      out.push_back({"cuda-minor-compat", "runtime " + inv.cuda_runtime->text() + " on a driver for CUDA " +
                                              inv.driver_cuda->text(),
                     "a driver supporting CUDA " + inv.cuda_runtime->text() + " or newer"});
  }
  if (inv.nccl && inv.nccl->cuda && inv.gpu) {
    if (auto v = driver_supports(inv, *inv.nccl->cuda, "nccl-cuda-driver", "NCCL built for CUDA")) out.push_back(*v);
    if (inv.cuda_runtime && newer_major_minor(*inv.nccl->cuda, *inv.cuda_runtime))
      out.push_back({"nccl-cuda-runtime",
                     "NCCL " + inv.nccl->version.text() + " built for CUDA " + inv.nccl->cuda->text() +
                         " with runtime " + inv.cuda_runtime->text(),
                     "an NCCL build for CUDA " + inv.cuda_runtime->text() + " or older"});
  }
  check_attention(inv, out);
  return out;
}

}  // namespace tt::preflight
