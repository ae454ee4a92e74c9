// Journal: an append-only file of records that survives the crash of the process writing it. The file opens with the
// 8 bytes "TTJRNL01"; each record is a 4-byte length of its body, the 4-byte CRC-32C of its body (real/checksum.hpp),
// both little-endian, then the body: one type byte and the payload. append() writes a record with one write(2) and
// returns once fdatasync(2) has put it on storage, so a record that append() returned for is never lost (a record
// appended without sync is on storage with the next synced one).
// open() reads every record from the start; the first one that runs past the end of the file (a torn write), has an
// impossible length or fails its CRC (a corrupt one) ends the journal: the file is cut there (truncate, fsync) and
// what was cut is reported. Nothing after a bad record is trusted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "real/sys.hpp"

namespace tt::real {

struct JournalRecord {
  char type = 0;
  std::string payload;
  std::uint64_t offset = 0;  // of the record's length field in the file
};

struct JournalContents {
  std::vector<JournalRecord> records;
  std::uint64_t valid_bytes = 0;  // the magic and every good record
  std::uint64_t cut_bytes = 0;    // bytes after them: a torn or corrupt tail (0: none)
  std::string cut_reason;         // what was wrong at valid_bytes, empty when nothing was
};

// The largest record body a journal accepts.
constexpr std::uint32_t kJournalMaxRecord = 64u << 20;

// Reads and checks a journal without changing it. SysError when it cannot be read; std::invalid_argument when the
// file is not a journal (no magic).
JournalContents read_journal(const std::filesystem::path& file);

class Journal {
 public:
  // A new, empty journal (an older file of that name is replaced); the file and its directory are synced.
  static Journal create(const std::filesystem::path& file);
  // Opens an existing journal to append to it, after reading it (read_journal) and cutting a bad tail off the file.
  static Journal open(const std::filesystem::path& file, JournalContents& contents);

  // Writes one record and, with `sync`, syncs it and every record before it (see above). SysError when storage fails
  // us.
  void append(char type, std::string_view payload, bool sync = true);
  const std::filesystem::path& file() const { return file_; }
  std::uint64_t size() const { return size_; }
  long long records_appended() const { return appended_; }

 private:
  Journal(std::filesystem::path file, Fd fd, std::uint64_t size);
  std::filesystem::path file_;
  Fd fd_;
  std::uint64_t size_ = 0;
  long long appended_ = 0;
};

}  // namespace tt::real
