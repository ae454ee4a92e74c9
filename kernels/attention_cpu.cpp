#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "kernels/attention.hpp"
#include "kernels/tile_math.hpp"

namespace tt::kernels {

namespace {

// Tile sizes: 128 x 128 ran fastest of 64..256 (one AVX-512 core, CPU time): larger tiles amortise Eigen's packing of
// the operands, smaller ones waste less on the causal diagonal.
constexpr int kQueryTile = 128;  // rows of Q (and of O, dO, dQ) per tile
constexpr int kKeyTile = 128;    // rows of K and V (and of dK, dV) per tile

// The backward either runs one thread per (batch, head) over all its tile pairs, 5 products per pair ("fused"), or
// splits into a dK/dV pass over key tiles and a dQ pass over query tiles, 7 products per pair but spread evenly over
// the threads ("split"). Both give the same bits (see backward_tile_pair), so the choice is by speed alone.
bool fused_backward_is_faster(int slices, int threads) {
  const int rounds = (slices + threads - 1) / threads;
  return rounds * 5 * threads <= slices * 7;
}

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstTile = Eigen::Map<const RowMajor>;
using Tile = Eigen::Map<RowMajor>;

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Runs worker(claim) on up to `threads` threads; claim() hands out the items 0..count-1 in order, then -1. Every item
// writes its own outputs, so which thread runs it changes nothing.
template <typename Worker>
void run_parallel(std::int64_t count, int threads, const Worker& worker) {
  std::atomic<std::int64_t> next{0};
  const auto claim = [&] {
    const std::int64_t item = next.fetch_add(1, std::memory_order_relaxed);
    return item < count ? item : std::int64_t{-1};
  };
  const int n = static_cast<int>(std::min<std::int64_t>(resolve_threads(threads), count));
  std::vector<std::jthread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back([&] { worker(claim); });
  worker(claim);
}

// Tiling of one call: slice = one (batch, head) of a tensor.
struct Geometry {
  explicit Geometry(const AttentionShape& s)
      : n(s.seq),
        d(s.head_dim),
        slices(s.batch * s.heads),
        q_tiles((s.seq + kQueryTile - 1) / kQueryTile),
        k_tiles((s.seq + kKeyTile - 1) / kKeyTile),
        causal(s.causal),
        scale(1.0f / std::sqrt(static_cast<float>(s.head_dim))) {}

  std::ptrdiff_t slice_offset(int slice) const { return std::ptrdiff_t{slice} * n * d; }
  int q_rows(int q0) const { return std::min(kQueryTile, n - q0); }
  int k_rows(int k0) const { return std::min(kKeyTile, n - k0); }
  // Causal: the keys past a query tile's last row are masked for all its rows.
  int k_end(int q0) const { return causal ? std::min(n, q0 + kQueryTile) : n; }
  int q_begin(int k0) const { return causal ? k0 / kQueryTile * kQueryTile : 0; }
  // Keys kept for query row i against the key tile at k0 (a prefix of the tile).
  int valid(int i, int k0, int cols) const { return causal ? std::clamp(i - k0 + 1, 0, cols) : cols; }

  int n, d, slices, q_tiles, k_tiles;
  bool causal;
  float scale;
};

void forward_query_tile(const Geometry& g, const float* q, const float* k, const float* v, float* o, float* lse, int q0,
                        float* scores, float* m, float* l) {
  const int br = g.q_rows(q0);
  const ConstTile q_tile(q + std::ptrdiff_t{q0} * g.d, br, g.d);
  Tile o_tile(o + std::ptrdiff_t{q0} * g.d, br, g.d);
  o_tile.setZero();
  std::fill(m, m + br, neg_inf<float>());
  std::fill(l, l + br, 0.0f);
  for (int k0 = 0; k0 < g.k_end(q0); k0 += kKeyTile) {
    const int bc = g.k_rows(k0);
    const ConstTile k_tile(k + std::ptrdiff_t{k0} * g.d, bc, g.d);
    const ConstTile v_tile(v + std::ptrdiff_t{k0} * g.d, bc, g.d);
    Tile s(scores, br, bc);
    s.noalias() = q_tile * k_tile.transpose();
    for (int i = 0; i < br; ++i) {
      const float alpha = online_softmax_row(&s(i, 0), bc, g.valid(q0 + i, k0, bc), g.scale, m[i], l[i]);
      if (alpha != 1.0f) scale_row(&o_tile(i, 0), g.d, alpha);
    }
    o_tile.noalias() += s * v_tile;
  }
  for (int i = 0; i < br; ++i) lse[q0 + i] = finalize_row(&o_tile(i, 0), g.d, m[i], l[i]);
}

struct BackwardInputs {
  const float* q;
  const float* k;
  const float* v;
  const float* lse;
  const float* d_o;
  const float* d_rows;  // D = rowsum(dO * O)
};

// P and the scaled dS of one (query tile, key tile) pair of one slice (pointers already offset to it). The fused and
// the split backward both get every tile pair's dS from here and add it into dQ, dK, dV in ascending tile order, so
// they agree bit for bit.
void backward_tile_pair(const Geometry& g, const BackwardInputs& in, int q0, int k0, Tile& p, Tile& ds) {
  const int br = p.rows();
  const int bc = p.cols();
  const ConstTile q_tile(in.q + std::ptrdiff_t{q0} * g.d, br, g.d);
  const ConstTile k_tile(in.k + std::ptrdiff_t{k0} * g.d, bc, g.d);
  const ConstTile v_tile(in.v + std::ptrdiff_t{k0} * g.d, bc, g.d);
  const ConstTile d_o_tile(in.d_o + std::ptrdiff_t{q0} * g.d, br, g.d);
  p.noalias() = q_tile * k_tile.transpose();
  for (int i = 0; i < br; ++i) recompute_probs_row(&p(i, 0), bc, g.valid(q0 + i, k0, bc), g.scale, in.lse[q0 + i]);
  ds.noalias() = d_o_tile * v_tile.transpose();
  for (int i = 0; i < br; ++i) softmax_grad_row(&ds(i, 0), &p(i, 0), bc, in.d_rows[q0 + i], g.scale);
}

struct BackwardOutputs {
  float* dq;
  float* dk;
  float* dv;
};

void add_key_grads(const Geometry& g, const BackwardInputs& in, const BackwardOutputs& out, int q0, int k0,
                   const Tile& p, const Tile& ds) {
  const int br = p.rows();
  const int bc = p.cols();
  Tile dk_tile(out.dk + std::ptrdiff_t{k0} * g.d, bc, g.d);
  Tile dv_tile(out.dv + std::ptrdiff_t{k0} * g.d, bc, g.d);
  dv_tile.noalias() += p.transpose() * ConstTile(in.d_o + std::ptrdiff_t{q0} * g.d, br, g.d);
  dk_tile.noalias() += ds.transpose() * ConstTile(in.q + std::ptrdiff_t{q0} * g.d, br, g.d);
}

void add_query_grads(const Geometry& g, const BackwardInputs& in, const BackwardOutputs& out, int q0, int k0,
                     const Tile& ds) {
  Tile dq_tile(out.dq + std::ptrdiff_t{q0} * g.d, ds.rows(), g.d);
  dq_tile.noalias() += ds * ConstTile(in.k + std::ptrdiff_t{k0} * g.d, ds.cols(), g.d);
}

struct PairScratch {
  std::vector<float> p = std::vector<float>(kQueryTile * kKeyTile);
  std::vector<float> ds = std::vector<float>(kQueryTile * kKeyTile);
  Tile p_tile(const Geometry& g, int q0, int k0) { return Tile(p.data(), g.q_rows(q0), g.k_rows(k0)); }
  Tile ds_tile(const Geometry& g, int q0, int k0) { return Tile(ds.data(), g.q_rows(q0), g.k_rows(k0)); }
};

BackwardInputs slice_inputs(const Geometry& g, const BackwardInputs& in, int slice) {
  const std::ptrdiff_t at = g.slice_offset(slice);
  const std::ptrdiff_t rows = std::ptrdiff_t{slice} * g.n;
  return {in.q + at, in.k + at, in.v + at, in.lse + rows, in.d_o + at, in.d_rows + rows};
}

BackwardOutputs slice_outputs(const Geometry& g, const BackwardOutputs& out, int slice) {
  const std::ptrdiff_t at = g.slice_offset(slice);
  return {out.dq + at, out.dk + at, out.dv + at};
}

void zero_slice(const Geometry& g, float* x) { std::fill(x, x + g.slice_offset(1), 0.0f); }

void backward_fused(const Geometry& g, const BackwardInputs& all_in, const BackwardOutputs& all_out, int threads) {
  run_parallel(g.slices, threads, [&](const auto& claim) {
    PairScratch scratch;
    for (std::int64_t slice; (slice = claim()) >= 0;) {
      const BackwardInputs in = slice_inputs(g, all_in, static_cast<int>(slice));
      const BackwardOutputs out = slice_outputs(g, all_out, static_cast<int>(slice));
      zero_slice(g, out.dq);
      zero_slice(g, out.dk);
      zero_slice(g, out.dv);
      for (int k0 = 0; k0 < g.n; k0 += kKeyTile) {
        for (int q0 = g.q_begin(k0); q0 < g.n; q0 += kQueryTile) {
          Tile p = scratch.p_tile(g, q0, k0);
          Tile ds = scratch.ds_tile(g, q0, k0);
          backward_tile_pair(g, in, q0, k0, p, ds);
          add_key_grads(g, in, out, q0, k0, p, ds);
          add_query_grads(g, in, out, q0, k0, ds);
        }
      }
    }
  });
}

void backward_split(const Geometry& g, const BackwardInputs& all_in, const BackwardOutputs& all_out, int threads) {
  // Key tiles in ascending order come first: under a causal mask they are the ones with the most query tiles.
  run_parallel(std::int64_t{g.slices} * g.k_tiles, threads, [&](const auto& claim) {
    PairScratch scratch;
    for (std::int64_t item; (item = claim()) >= 0;) {
      const int slice = static_cast<int>(item % g.slices);
      const int k0 = static_cast<int>(item / g.slices) * kKeyTile;
      const BackwardInputs in = slice_inputs(g, all_in, slice);
      const BackwardOutputs out = slice_outputs(g, all_out, slice);
      std::fill(out.dk + std::ptrdiff_t{k0} * g.d, out.dk + std::ptrdiff_t{k0 + g.k_rows(k0)} * g.d, 0.0f);
      std::fill(out.dv + std::ptrdiff_t{k0} * g.d, out.dv + std::ptrdiff_t{k0 + g.k_rows(k0)} * g.d, 0.0f);
      for (int q0 = g.q_begin(k0); q0 < g.n; q0 += kQueryTile) {
        Tile p = scratch.p_tile(g, q0, k0);
        Tile ds = scratch.ds_tile(g, q0, k0);
        backward_tile_pair(g, in, q0, k0, p, ds);
        add_key_grads(g, in, out, q0, k0, p, ds);
      }
    }
  });
  // Query tiles in descending order: under a causal mask the last ones have the most key tiles.
  run_parallel(std::int64_t{g.slices} * g.q_tiles, threads, [&](const auto& claim) {
    PairScratch scratch;
    for (std::int64_t item; (item = claim()) >= 0;) {
      const int slice = static_cast<int>(item % g.slices);
      const int q0 = (g.q_tiles - 1 - static_cast<int>(item / g.slices)) * kQueryTile;
      const BackwardInputs in = slice_inputs(g, all_in, slice);
      const BackwardOutputs out = slice_outputs(g, all_out, slice);
      std::fill(out.dq + std::ptrdiff_t{q0} * g.d, out.dq + std::ptrdiff_t{q0 + g.q_rows(q0)} * g.d, 0.0f);
      for (int k0 = 0; k0 < g.k_end(q0); k0 += kKeyTile) {
        Tile p = scratch.p_tile(g, q0, k0);
        Tile ds = scratch.ds_tile(g, q0, k0);
        backward_tile_pair(g, in, q0, k0, p, ds);
        add_query_grads(g, in, out, q0, k0, ds);
      }
    }
  });
}

}  // namespace

void attention_forward_cpu(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                           float* lse, int threads) {
  const Geometry g(s);
  // Query tiles in descending order: under a causal mask the last ones have the most key tiles.
  run_parallel(std::int64_t{g.slices} * g.q_tiles, threads, [&](const auto& claim) {
    std::vector<float> scores(kQueryTile * kKeyTile);
    std::vector<float> m(kQueryTile);
    std::vector<float> l(kQueryTile);
    for (std::int64_t item; (item = claim()) >= 0;) {
      const int slice = static_cast<int>(item % g.slices);
      const int q0 = (g.q_tiles - 1 - static_cast<int>(item / g.slices)) * kQueryTile;
      const std::ptrdiff_t at = g.slice_offset(slice);
      forward_query_tile(g, q + at, k + at, v + at, o + at, lse + std::ptrdiff_t{slice} * g.n, q0, scores.data(),
                         m.data(), l.data());
    }
  });
}

void attention_backward_cpu(const AttentionShape& s, const float* q, const float* k, const float* v, const float* o,
                            const float* lse, const float* d_o, float* dq, float* dk, float* dv, int threads) {
  const Geometry g(s);
  std::vector<float> d_rows(static_cast<std::size_t>(s.rows()));
  run_parallel(g.slices, threads, [&](const auto& claim) {
    for (std::int64_t slice; (slice = claim()) >= 0;) {
      for (std::int64_t row = slice * g.n; row < (slice + 1) * g.n; ++row)
        d_rows[row] = row_dot(d_o + row * g.d, o + row * g.d, g.d);
    }
  });
  const BackwardInputs in{q, k, v, lse, d_o, d_rows.data()};
  const BackwardOutputs out{dq, dk, dv};
  if (fused_backward_is_faster(g.slices, resolve_threads(threads))) {
    backward_fused(g, in, out, threads);
  } else {
    backward_split(g, in, out, threads);
  }
}

}  // namespace tt::kernels
