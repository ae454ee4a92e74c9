// SharedText: an immutable string that copies share. A fleet month logs millions of decisions whose kinds, jobs and
// reasons repeat (a waiting job's reason as it changes back and forth); each decision holds handles to one copy of
// each text instead of copies of its own. One pointer wide (the count lives beside the text); reads as a const
// std::string&; an empty text allocates nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace tt {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string s) : p_(s.empty() ? nullptr : new Rep{{1}, std::move(s)}) {}
  SharedText(const char* s) : SharedText(std::string(s)) {}
  SharedText(const SharedText& o) noexcept : p_(o.p_) {
    if (p_) p_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  SharedText(SharedText&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  SharedText& operator=(SharedText o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~SharedText() {
    if (p_ && p_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }

  const std::string& str() const { return p_ ? p_->text : none(); }
  operator const std::string&() const { return str(); }
  operator std::string_view() const { return str(); }
  bool empty() const { return !p_; }
  std::size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  std::size_t find(std::string_view s, std::size_t pos = 0) const { return str().find(s, pos); }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.p_ == b.p_ || a.str() == b.str(); }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend std::string operator+(const std::string& a, const SharedText& b) { return a + b.str(); }
  friend std::string operator+(const char* a, const SharedText& b) { return a + b.str(); }
  friend std::string operator+(const SharedText& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const SharedText& a, const char* b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.str(); }

 private:
  struct Rep {
    std::atomic<std::uint32_t> refs;
    std::string text;
  };
  static const std::string& none() {
    static const std::string empty;
    return empty;
  }
  Rep* p_ = nullptr;
};

}  // namespace tt
