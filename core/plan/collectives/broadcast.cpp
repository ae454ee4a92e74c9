// broadcast: the root's `size` bytes reach every rank. Ring: a pipelined chain from the root along the ring; each of
// the n - 1 chain edges carries size.
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kBroadcast{
    Collective::Broadcast,
    "Broadcast",
    false,
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
