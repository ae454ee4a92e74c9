// SharedText: an immutable string that copies share. A fleet month logs millions of decisions whose reasons repeat a
// few thousand texts (a waiting job's reason as it changes back and forth); each decision holds a handle to one
// copy of its text instead of a copy of its own. Reads as a const std::string&; an empty text allocates nothing.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace tt {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string s) : p_(s.empty() ? nullptr : std::make_shared<const std::string>(std::move(s))) {}
  SharedText(const char* s) : SharedText(std::string(s)) {}

  const std::string& str() const { return p_ ? *p_ : none(); }
  operator const std::string&() const { return str(); }
  bool empty() const { return !p_; }
  std::size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  std::size_t find(std::string_view s, std::size_t pos = 0) const { return str().find(s, pos); }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.p_ == b.p_ || a.str() == b.str();
  }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend std::string operator+(const std::string& a, const SharedText& b) { return a + b.str(); }
  friend std::string operator+(const char* a, const SharedText& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.str(); }

 private:
  static const std::string& none() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> p_;
};

}  // namespace tt
