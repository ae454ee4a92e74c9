// real/nccl_collective.hpp and run_commtest_nccl in a build without CUDA: they say so.
#include <stdexcept>

#include "real/nccl_collective.hpp"
#include "real/nccl_tests.hpp"

namespace tt::real {

namespace {
[[noreturn]] void not_built() {
  throw std::runtime_error("this traintwin was built without CUDA and NCCL (configure with -DTRAINTWIN_CUDA=ON)");
}
}  // namespace

bool nccl_built() { return false; }
std::string nccl_version() { return "none (built without CUDA)"; }
std::string nccl_new_unique_id() { not_built(); }
std::unique_ptr<GradientAllReduce> connect_nccl(const std::string&, int, int, int, std::chrono::milliseconds) {
  not_built();
}
std::vector<CommTestRow> run_commtest_nccl(const CommTestOptions&) { not_built(); }

}  // namespace tt::real
