// The table each collective fills, as nccl-tests does with one small file per collective (core/plan/collectives/):
// its names, how its buffer is counted, its bus-bandwidth factor, the algorithms that can run it and what each ring
// edge or NVLS exchange carries. Adding a collective is adding a file and one line in collective.cpp.
//
// Bandwidth is defined once, here, as nccl-tests defines it: for a call that moves `size` bytes (nccl-tests' "size"
// column: the per-rank buffer of all_reduce, broadcast, reduce, sendrecv and alltoall; the gathered or scattered whole
// of all_gather and reduce_scatter) in time t, algbw = size / t and busbw = algbw x bus_factor(n).
#pragma once

#include <vector>

#include "core/model/comm.hpp"
#include "core/model/units.hpp"

namespace tt {

struct CollectiveInfo {
  Collective id;
  const char* nccl_name;  // as NCCL's logs and NCCL_TOPO_DUMP spell it: "AllReduce"
  bool reduces;           // takes a reduction operation (nccl-tests' redop column)
  bool rooted;            // has a root (nccl-tests' root column)
  double (*bus_factor)(int n);
  std::vector<Algorithm> algorithms;  // that can run it, in the planner's order (ties go to the earlier)
  // Ring: bytes each ring edge carries per byte of size, and NCCL's step counts (latency model).
  double (*ring_share)(int n);
  int (*ring_steps)(int n);
  int (*ring_inter_steps)(int nodes);
  // NVLS: bytes each GPU pair exchanges per byte of size when every GPU talks to the switch, and the resulting
  // algbw over a GPU's NVLink bandwidth (both null when NVLS cannot run it).
  double (*nvls_share)(int n);
  double (*nvls_ratio)(int n);
};

const CollectiveInfo& collective_info(Collective c);
const std::vector<const CollectiveInfo*>& all_collectives();

struct Bandwidth {
  BytesPerSecond algbw;
  BytesPerSecond busbw;
};
Bandwidth bandwidth(Collective c, int ranks, Bytes size, Seconds time);

}  // namespace tt
