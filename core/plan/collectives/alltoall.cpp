// alltoall: every rank sends size / n to every rank (`size` is its whole send buffer): point-to-point transfers.
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kAllToAll{
    Collective::AllToAll,
    "AllToAll",
    false,
    false,
    [](int n) { return (n - 1.0) / n; },
    {Algorithm::P2p},
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace tt
