// Text helpers shared by the report views: XML/HTML escaping, CSV quoting and number formatting that gives the same
// bytes on every machine (shortest round-trip form, independent of the locale). Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace tt {

// Escapes & < > " ' and line breaks as character references; control characters that XML 1.0 forbids and bytes that
// are not valid UTF-8 become U+FFFD. Safe in XML/HTML text and in double- or single-quoted attributes.
std::string xml_escape(std::string_view text);
// The same for element text, keeping line breaks and tabs as they are (more readable; not for attributes).
std::string xml_escape_text(std::string_view text);
// The text with every byte that is not part of valid UTF-8 replaced by U+FFFD; everything else kept as it is.
std::string utf8_valid(std::string_view text);
// A CSV field (RFC 4180): quoted only when it holds a comma, quote or line break.
std::string csv_field(std::string_view text);
// Shortest form that reads back to the same double: 0.1 -> "0.1", 60 -> "60"; "nan"/"inf" for non-finite values.
std::string format_number(double value);
// A duration for people: "0 s", "12.5 s", "41m 40s", "4h 23m", "3d 04h".
std::string format_duration(double seconds);
// Fixed decimals: format_fixed(0.12345, 2) -> "0.12".
std::string format_fixed(double value, int decimals);

}  // namespace tt
