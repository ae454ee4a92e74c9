// all_gather: `size` is the whole output; every rank contributes size / n and receives all of it.
// Ring: n - 1 steps of size/n per edge. NVLS: each GPU multicasts its block; the switch writes size into each GPU.
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kAllGather{
    Collective::AllGather,
    "AllGather",
    false,
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
