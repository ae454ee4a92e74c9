// CRC-32C (Castagnoli polynomial, reflected, as in iSCSI and ext4 metadata): the checksum of checkpoint files.
// crc32c("123456789") == 0xE3069283. Chain calls by passing the previous result as `crc`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tt::real {

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0);
inline std::uint32_t crc32c(std::string_view s, std::uint32_t crc = 0) { return crc32c(s.data(), s.size(), crc); }

}  // namespace tt::real
