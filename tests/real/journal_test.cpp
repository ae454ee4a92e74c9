#include "real/journal.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "real_support.hpp"

using namespace tt::real;
using tt::testing::overwrite;
using tt::testing::real_scratch;
using tt::testing::slurp;
namespace fs = std::filesystem;

namespace {

struct Written {
  fs::path file;
  std::string bytes;       // the whole journal
  std::uint64_t last = 0;  // offset of the last record
};

// Three records; the last one is what the tests tear and corrupt.
Written write_three(const fs::path& dir) {
  Written w{dir / "journal", "", 0};
  Journal j = Journal::create(w.file);
  j.append('S', R"({"scenario":"first"})");
  j.append('E', std::string(300, 'x'));
  w.last = j.size();
  j.append('A', R"(["launch",0,1,[0,1]])");
  w.bytes = slurp(w.file);
  return w;
}

void expect_first_two(const JournalContents& c) {
  REQUIRE(c.records.size() == 2);
  CHECK(c.records[0].type == 'S');
  CHECK(c.records[0].payload == R"({"scenario":"first"})");
  CHECK(c.records[1].type == 'E');
  CHECK(c.records[1].payload == std::string(300, 'x'));
}

}  // namespace

TEST_CASE("a journal reads back what was appended, and a record appended after reopening", "[real][unit]") {
  const Written w = write_three(real_scratch("journal-roundtrip"));
  JournalContents c = read_journal(w.file);
  REQUIRE(c.records.size() == 3);
  CHECK(c.cut_bytes == 0);
  CHECK(c.cut_reason.empty());
  CHECK(c.records[2].payload == R"(["launch",0,1,[0,1]])");
  CHECK(c.records[2].offset == w.last);
  CHECK(c.valid_bytes == w.bytes.size());
  {
    JournalContents opened;
    Journal j = Journal::open(w.file, opened);
    CHECK(opened.records.size() == 3);
    j.append('R', "{}", /*sync=*/false);
    j.append('E', "{\"t\":1}");
  }
  c = read_journal(w.file);
  REQUIRE(c.records.size() == 5);
  CHECK(c.records[3].type == 'R');
  CHECK(c.records[4].payload == "{\"t\":1}");
}

namespace {

// Opens `bytes` as a journal: it must come back as the first two records, cut to them on storage, and go on.
void expect_cut_to_two(const fs::path& file, const std::string& bytes, const Written& w) {
  overwrite(file, bytes);
  JournalContents c;
  Journal j = Journal::open(file, c);
  expect_first_two(c);
  CHECK(c.valid_bytes == w.last);
  CHECK(c.cut_bytes == bytes.size() - w.last);
  CHECK(c.cut_reason.empty() == (bytes.size() == w.last));
  CHECK(fs::file_size(file) == w.last);  // the tail is gone from the file, not only skipped
  j.append('A', "after");
  const JournalContents again = read_journal(file);
  REQUIRE(again.records.size() == 3);
  CHECK(again.records[2].payload == "after");
}

}  // namespace

TEST_CASE("a journal torn anywhere in its last record is cut back to the record before", "[real][unit]") {
  const fs::path dir = real_scratch("journal-torn");
  const Written w = write_three(dir);
  for (std::uint64_t size = w.last; size < w.bytes.size(); ++size) {
    INFO("journal cut to " << size << " of " << w.bytes.size() << " bytes");
    expect_cut_to_two(dir / "torn", w.bytes.substr(0, size), w);
  }
}

TEST_CASE("a journal with any byte of its last record flipped is cut back to the record before", "[real][unit]") {
  const fs::path dir = real_scratch("journal-corrupt");
  const Written w = write_three(dir);
  for (std::uint64_t at = w.last; at < w.bytes.size(); ++at)
    for (unsigned char mask : {0x01, 0x80, 0xFF}) {
      INFO("byte " << at << " of " << w.bytes.size() << " xor " << int(mask));
      std::string bytes = w.bytes;
      bytes[at] = static_cast<char>(bytes[at] ^ mask);
      expect_cut_to_two(dir / "corrupt", bytes, w);
    }
}

TEST_CASE("a corrupt record in the middle ends the journal there, a file that is no journal is refused",
          "[real][unit]") {
  const fs::path dir = real_scratch("journal-middle");
  const Written w = write_three(dir);
  std::string bytes = w.bytes;
  bytes[8 + 8 + 3] ^= 0x10;  // in the first record's body
  overwrite(w.file, bytes);
  const JournalContents c = read_journal(w.file);
  CHECK(c.records.empty());
  CHECK(c.valid_bytes == 8);
  CHECK_THAT(c.cut_reason, Catch::Contains("offset 8 fails its CRC-32C"));
  overwrite(w.file, "{\"not\": \"a journal\"}");
  CHECK_THROWS_WITH(read_journal(w.file), Catch::Contains("is not a traintwin journal"));
}
