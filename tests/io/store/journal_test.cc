// Journal framing and files: records round-trip; a tail torn at any byte, or
// corrupted anywhere, is cut at the last good record; a full disk is an error
// that leaves the file as it was.
#include "io/store/journal.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace locsched {
namespace {

std::string Image(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) FrameRecord(r, &out);
  return out;
}

TEST_CASE("CRC-32C matches the standard check value") {
  CHECK(Crc32c("123456789") == 0xE3069283u);
  CHECK(Crc32c("") == 0);
}

TEST_CASE("records round-trip, including empty and binary ones") {
  const std::vector<std::string> recs = {"a", "", std::string("x\0y\n", 4),
                                         std::string(70000, 'z')};
  const JournalScan scan = ScanJournal(Image(recs));
  CHECK(scan.records == recs);
  CHECK(scan.cut_bytes == 0);
  CHECK(scan.cut_reason.empty());
}

TEST_CASE("a tail torn at any byte is cut at the last whole record") {
  const std::string whole = Image({"first", "second record", "third"});
  const size_t two = Image({"first", "second record"}).size();
  for (size_t len = two; len < whole.size(); ++len) {
    const JournalScan scan = ScanJournal(std::string_view(whole).substr(0, len));
    INFO(len);
    CHECK(scan.records.size() == 2);
    CHECK(scan.valid_bytes == two);
    CHECK(scan.cut_bytes == len - two);
    CHECK(scan.cut_reason.empty() == (len == two));
  }
}

TEST_CASE("a flipped bit anywhere in the last record is caught") {
  const std::string whole = Image({"first", "second"});
  const size_t one = Image({"first"}).size();
  for (size_t at = one; at < whole.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = whole;
      bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
      const JournalScan scan = ScanJournal(bad);
      INFO(at << " bit " << bit);
      CHECK(scan.records == std::vector<std::string>{"first"});
    }
  }
}

std::string TempPath() {
  char tmpl[] = "/tmp/locsched-journal-XXXXXX";
  const int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  close(fd);
  return tmpl;
}

TEST_CASE("a file journal reopens with its records and cuts a torn tail from the file") {
  const std::string path = TempPath();
  for (const SyncMode mode : {SyncMode::kAlways, SyncMode::kBatched, SyncMode::kInterval}) {
    std::remove(path.c_str());
    {
      std::unique_ptr<FileJournal> j;
      JournalScan scan;
      REQUIRE(FileJournal::Open(path, mode, 0.01, &j, &scan).ok());
      CHECK(scan.records.empty());
      j->Append("one");
      j->Append("two");
      REQUIRE(j->Sync().ok());
    }
    { std::ofstream(path, std::ios::app) << std::string("\x05\x00\x00", 3); }  // a torn header
    std::unique_ptr<FileJournal> j;
    JournalScan scan;
    REQUIRE(FileJournal::Open(path, mode, 0.01, &j, &scan).ok());
    CHECK(scan.records == std::vector<std::string>{"one", "two"});
    CHECK(scan.cut_bytes == 3);
    j->Append("three");
    REQUIRE(j->Sync().ok());
    j.reset();
    REQUIRE(FileJournal::Open(path, mode, 0.01, &j, &scan).ok());
    CHECK(scan.records == std::vector<std::string>{"one", "two", "three"});
    CHECK(scan.cut_bytes == 0);
  }
  std::remove(path.c_str());
}

TEST_CASE("a full disk fails the sync with a clear error") {
  std::unique_ptr<FileJournal> j;
  JournalScan scan;
  REQUIRE(FileJournal::Open("/dev/full", SyncMode::kAlways, 0, &j, &scan).ok());
  j->Append("event");
  const Status s = j->Sync();
  CHECK(s.code() == Status::Code::kIoError);
  CHECK(s.message() == "/dev/full: write: disk full (ENOSPC)");

  std::string disk;
  MemJournal mem(&disk, 20);
  mem.Append("0123456789");
  REQUIRE(mem.Sync().ok());
  mem.Append("0123456789");
  CHECK_FALSE(mem.Sync().ok());
  CHECK(ScanJournal(disk).records.size() == 1);  // the failed batch left no trace
}

}  // namespace
}  // namespace locsched
