// The numerics gate of the attention kernels, as FlashAttention's own tests apply it: on fresh random bf16/fp16
// inputs, a kernel's max abs error against an fp64 reference must be at most twice that of the same computation done
// naively in the input precision (every tensor rounded to it, as a framework's unfused attention would), plus a tiny
// absolute slack; no output may be NaN or left unwritten (outputs are poisoned with NaN first). Runs the CPU kernels
// (fp32 on the rounded inputs) or the CUDA kernels, and times them (FLOPs by FlashAttention's formula).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention.hpp"
#include "kernels/attention_cuda.hpp"

namespace tt::kernels {

enum class CheckDevice { cpu, cuda };

struct CheckCase {
  AttentionShape shape;
  Precision precision = Precision::bf16;
};

// One pass (forward or backward) of one case. error/bound are those of `worst`, the output tensor with the largest
// error / bound ratio.
struct CheckRow {
  CheckCase c;
  bool backward = false;
  std::string worst;
  double error = 0;
  double bound = 0;
  double ms = 0;        // median device (or wall, on the CPU) time of one call
  double tflops = 0;    // TFLOP/s by FlashAttention's count (AttentionShape::forward_flops)
  std::string scope;    // what was compared: "full", or "rows" (sampled query rows; backward then gates dQ only)
  std::string failure;  // empty when the row passed
  bool ok() const { return failure.empty(); }
};

// cpu: batch 2, heads 2, both precisions and both masks over `seqlens` x `head_dims` (small: it runs in seconds).
// cuda: bf16 over `seqlens` x `head_dims` x causal, 16k tokens per batch and 2048 / head_dim heads (FlashAttention's
// benchmark layout), plus fp16 at seq 1024.
std::vector<CheckCase> check_grid(CheckDevice d, const std::vector<int>& seqlens, const std::vector<int>& head_dims);

// Runs the gate for one case with inputs drawn from `seed`; the rows of its forward and (where supported) backward
// pass. Throws CudaError when the device fails, std::invalid_argument for a shape the device does not take.
std::vector<CheckRow> run_check(CheckDevice d, const CheckCase& c, std::uint64_t seed, int timing_repeats = 5);

// The naive attention of one (batch, head) slice in fp64 arithmetic, each tensor rounded to `round_to` at the same
// points as an unfused framework implementation: Q x scale, S, P, O, dP, dS, dQ, dK, dV (nullopt: no rounding, the
// fp64 reference). Rows `rows` only (every row when empty: then dK and dV are filled, else left empty).
struct SliceResult {
  std::vector<double> o, lse, dq, dk, dv;  // o, lse, dq: [rows.size() or n][d]; dk, dv: [n][d] or empty
};
SliceResult naive_attention_slice(int n, int d, bool causal, const double* q, const double* k, const double* v,
                                  const double* d_o, const std::vector<int>& rows, const Precision* round_to);

// x rounded to the precision (round to nearest even), as a double.
double round_to_precision(double x, Precision p);

}  // namespace tt::kernels
