// all_reduce: every rank ends with the sum of every rank's buffer of `size` bytes.
// Ring: a reduce-scatter then an all-gather, 2(n-1) steps of size/n: each edge carries 2(n-1)/n x size.
// NVLS: each GPU reads its 1/n reduced by the switch and multicasts it back: (1 + 1/n) x size through its NVLink
// each way, spread here over the n - 1 peers; algbw = B x n/(n+1).
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kAllReduce{
    Collective::AllReduce,
    "AllReduce",
    true,
    false,
    [](int n) { return 2.0 * (n - 1) / n; },
    {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree, Algorithm::Hierarchical},
    [](int n) { return 2.0 * (n - 1) / n; },
    [](int n) { return 2 * (n - 1); },
    [](int nodes) { return nodes > 1 ? 2 * nodes : 0; },
    [](int n) { return (n + 1.0) / (static_cast<double>(n) * (n - 1)); },
    [](int n) { return n / (n + 1.0); },
};

}  // namespace tt
