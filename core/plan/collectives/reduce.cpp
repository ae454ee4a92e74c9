// reduce: the sum of every rank's `size` bytes reaches the root. Ring: a pipelined chain along the ring ending at the
// root; each of the n - 1 chain edges carries size.
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kReduce{
    Collective::Reduce,
    "Reduce",
    true,
    true,
    [](int) { return 1.0; },
    {Algorithm::Ring},
    [](int) { return 1.0; },
    [](int n) { return n; },
    [](int nodes) { return nodes; },
    nullptr,
    nullptr,
};

}  // namespace tt
