#include "real/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "real/checksum.hpp"

namespace tt::real {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'T', 'T', 'J', 'R', 'N', 'L', '0', '1'};
constexpr std::size_t kHeader = 8;  // length + CRC

std::uint32_t load_le32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void store_le32(char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

void sync_directory(const fs::path& file) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d) throw_errno("open directory " + dir.string());
  if (::fsync(d.get()) != 0) throw_errno("fsync directory " + dir.string());
}

}  // namespace

JournalContents read_journal(const fs::path& file) {
  const std::string data = read_whole_file(file);
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw std::invalid_argument(file.string() + " is not a traintwin journal (it does not open with \"TTJRNL01\")");
  JournalContents c;
  std::size_t at = sizeof kMagic;
  while (at < data.size()) {
    const std::size_t left = data.size() - at;
    if (left < kHeader) {
      c.cut_reason = "torn: " + std::to_string(left) + " bytes of a record header at offset " + std::to_string(at);
      break;
    }
    const std::uint32_t length = load_le32(data.data() + at);
    const std::uint32_t crc = load_le32(data.data() + at + 4);
    if (length == 0 || length > kJournalMaxRecord) {
      c.cut_reason = "corrupt: a record length of " + std::to_string(length) + " at offset " + std::to_string(at);
      break;
    }
    if (length > left - kHeader) {
      c.cut_reason = "torn: a record of " + std::to_string(length) + " bytes at offset " + std::to_string(at) +
                     " runs past the end of the file (" + std::to_string(data.size()) + " bytes)";
      break;
    }
    const char* body = data.data() + at + kHeader;
    if (crc32c(body, std::size_t{length}) != crc) {
      c.cut_reason = "corrupt: the record at offset " + std::to_string(at) + " fails its CRC-32C";
      break;
    }
    c.records.push_back({body[0], std::string(body + 1, length - 1), at});
    at += kHeader + length;
  }
  c.valid_bytes = at;
  c.cut_bytes = data.size() - c.valid_bytes;
  return c;
}

Journal::Journal(fs::path file, Fd fd, std::uint64_t size) : file_(std::move(file)), fd_(std::move(fd)), size_(size) {}

Journal Journal::create(const fs::path& file) {
  Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
  if (!fd) throw_errno("create journal " + file.string());
  write_all(fd.get(), kMagic, sizeof kMagic, "journal " + file.string());
  if (::fsync(fd.get()) != 0) throw_errno("fsync journal " + file.string());
  sync_directory(file);
  return Journal(file, std::move(fd), sizeof kMagic);
}

Journal Journal::open(const fs::path& file, JournalContents& contents) {
  contents = read_journal(file);
  Fd fd(::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!fd) throw_errno("open journal " + file.string());
  if (contents.cut_bytes > 0) {
    if (::ftruncate(fd.get(), static_cast<off_t>(contents.valid_bytes)) != 0)
      throw_errno("cut the tail of journal " + file.string());
    if (::fsync(fd.get()) != 0) throw_errno("fsync journal " + file.string());
  }
  return Journal(file, std::move(fd), contents.valid_bytes);
}

void Journal::append(char type, std::string_view payload, bool sync) {
  const std::size_t length = payload.size() + 1;
  if (length > kJournalMaxRecord)
    throw std::invalid_argument("a journal record of " + std::to_string(length) + " bytes (at most " +
                                std::to_string(kJournalMaxRecord) + ")");
  std::string rec(kHeader + length, '\0');
  rec[kHeader] = type;
  std::memcpy(rec.data() + kHeader + 1, payload.data(), payload.size());
  store_le32(rec.data(), static_cast<std::uint32_t>(length));
  store_le32(rec.data() + 4, crc32c(rec.data() + kHeader, length));
  write_all(fd_.get(), rec.data(), rec.size(), "journal " + file_.string());
  if (sync && ::fdatasync(fd_.get()) != 0) throw_errno("fdatasync journal " + file_.string());
  size_ += rec.size();
  ++appended_;
}

}  // namespace tt::real
