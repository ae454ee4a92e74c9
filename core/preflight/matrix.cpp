#include "core/preflight/matrix.hpp"

namespace tt::preflight {

const Release* Matrix::find(const std::string& name) const {
  for (const auto& r : releases)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace tt::preflight
