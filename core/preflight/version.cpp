#include "core/preflight/version.hpp"

namespace tt::preflight {

std::optional<Version> Version::parse(std::string_view text) {
  Version v;
  v.text_ = std::string(text);
  std::size_t i = 0;
  while (true) {
    std::size_t start = i;
    long long value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value = value * 10 + (text[i] - '0');
      if (value >= 1000000000) return std::nullopt;
      ++i;
    }
    if (i == start) return std::nullopt;
    v.parts_.push_back(static_cast<int>(value));
    if (v.parts_.size() > 6) return std::nullopt;
    if (i == text.size()) return v;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  const std::size_t n = std::max(parts_.size(), other.parts_.size());
  for (std::size_t i = 0; i < n; ++i)
    if (auto c = component(i) <=> other.component(i); c != 0) return c;
  return std::strong_ordering::equal;
}

bool same_major_minor(const Version& a, const Version& b) {
  return a.component(0) == b.component(0) && a.component(1) == b.component(1);
}

}  // namespace tt::preflight
