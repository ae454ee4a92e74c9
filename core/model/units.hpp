// Units as types: Seconds, Bytes, BytesPerSecond, Flops, FlopsPerSecond, and parsing of human units
// ("400Gbps", "50GB/s", "80GiB", "2us", "30m", "989TFLOPS"). Parsing returns std::nullopt on a malformed string;
// the caller (core/io) turns that into an error naming the file and JSON pointer.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace tt {

template <class Tag>
struct Quantity {
  double value = 0.0;
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr double operator/(Quantity o) const { return value / o.value; }
  constexpr Quantity& operator+=(Quantity o) { value += o.value; return *this; }
  constexpr Quantity& operator-=(Quantity o) { value -= o.value; return *this; }
  constexpr auto operator<=>(const Quantity&) const = default;
};
template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) { return q * k; }

using Seconds = Quantity<struct SecondsTag>;
using Bytes = Quantity<struct BytesTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using Flops = Quantity<struct FlopsTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value / r.value); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value / r.value); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.value * t.value); }
constexpr Flops operator*(FlopsPerSecond r, Seconds t) { return Flops(r.value * t.value); }

// "2us", "1.5ms", "30s", "30m", "48h", "7d", "1h30m"; a bare number is rejected (units are required).
std::optional<Seconds> parse_seconds(std::string_view text);
// "80GiB", "80GB", "512MiB", "1.5TB", "4096B".
std::optional<Bytes> parse_bytes(std::string_view text);
// "400Gbps" (bits), "50GB/s", "900GiB/s", "100Mbps".
std::optional<BytesPerSecond> parse_bandwidth(std::string_view text);
// "989TFLOPS", "2.25PFLOPS", "312e12FLOPS".
std::optional<FlopsPerSecond> parse_flops_rate(std::string_view text);

// Short human forms for terminal output: "1h 02m", "12.5 GiB", "400 Gb/s".
std::string format_seconds(Seconds s);
std::string format_bytes(Bytes b);
std::string format_bandwidth(BytesPerSecond r);

}  // namespace tt
