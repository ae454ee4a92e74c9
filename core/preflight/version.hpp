// Version: a dotted version string compared as numbers, component by component ("2.21.5" > "2.9.1"; "535.129.03" is
// 535, 129, 3). A missing component counts as 0 ("12.4" == "12.4.0"). The text is kept as written, for reports.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tt::preflight {

class Version {
 public:
  // Digits separated by single dots, 1 to 6 components, each below 10^9; anything else is nullopt.
  static std::optional<Version> parse(std::string_view text);

  const std::string& text() const { return text_; }
  int major() const { return parts_[0]; }
  int component(std::size_t i) const { return i < parts_.size() ? parts_[i] : 0; }

  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == 0; }

 private:
  std::vector<int> parts_;
  std::string text_;
};

// The version written as "MAJOR.MINOR" (what CUDA versions are compared on).
bool same_major_minor(const Version& a, const Version& b);

}  // namespace tt::preflight
