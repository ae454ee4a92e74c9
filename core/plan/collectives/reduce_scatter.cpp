// reduce_scatter: `size` is the whole input; rank i ends with the sum of block i (size / n) over all ranks.
// Ring: n - 1 steps of size/n per edge. NVLS: the switch reads every GPU's whole input once (size out of each GPU).
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kReduceScatter{
    Collective::ReduceScatter,
    "ReduceScatter",
    true,
    false,
    [](int n) { return (n - 1.0) / n; },
    {Algorithm::Ring, Algorithm::Nvls},
    [](int n) { return (n - 1.0) / n; },
    [](int n) { return n - 1; },
    [](int nodes) { return nodes - 1; },
    [](int n) { return 1.0 / (n - 1); },
    [](int) { return 1.0; },
};

}  // namespace tt
