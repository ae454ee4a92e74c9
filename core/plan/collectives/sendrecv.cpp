// sendrecv: `size` bytes sent along a chain of ranks (gpus[i] -> gpus[i+1]); nccl-tests' sendrecv is the chain that
// closes the ring (each rank sends to the next and receives from the previous).
#include "core/plan/collective.hpp"

namespace tt {

extern const CollectiveInfo kSendRecv{
    Collective::SendRecv,
    "SendRecv",
    false,
    false,
    [](int) { return 1.0; },
    {Algorithm::P2p},
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace tt
