// Journal framing and files: records round-trip; a tail torn at any byte is cut
// at the last good record; a flipped byte in any part of any record loses that
// record only (salvage resynchronises on the next one) and is never cut when
// valid records follow; a full disk is an error that leaves the file as it was
// and keeps the batch for a retry.
#include "io/store/journal.h"

#include <unistd.h>

#include <algorithm>
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
    CHECK(scan.torn == (len != two));
    CHECK(scan.resync_at == 0);
  }
}

TEST_CASE("zeros after the last record (a crash after the size grew) are a torn tail") {
  const std::string whole = Image({"first", "second"}) + std::string(300, '\0');
  const JournalScan scan = ScanJournal(whole);
  CHECK(scan.records == std::vector<std::string>{"first", "second"});
  CHECK(scan.cut_bytes == 300);
  CHECK(scan.torn);
}

// Records of assorted sizes, like the daemon's JSON lines.
std::vector<std::string> Records(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("{\"t\":" + std::to_string(i) + ",\"line\":\"" +
                  std::string(5 + (i * 37) % 90, 'a' + i % 26) + "\"}");
  return out;
}

// Every record except those listed is in `got`, in order, and nothing else is.
void CheckAllBut(const std::vector<std::string>& all, const std::vector<size_t>& lost,
                 const std::vector<std::string>& got) {
  std::vector<std::string> want;
  for (size_t i = 0; i < all.size(); ++i)
    if (std::find(lost.begin(), lost.end(), i) == lost.end()) want.push_back(all[i]);
  CHECK(got == want);
}

TEST_CASE("a flipped byte in the header, length, checksum or payload of any record loses only it") {
  const std::vector<std::string> recs = Records(8);
  const std::string whole = Image(recs);
  size_t start = 0;
  for (size_t k = 0; k < recs.size(); ++k) {
    const size_t end = start + 8 + recs[k].size();
    for (size_t at = start; at < end; ++at) {
      for (const int bit : {0, 3, 7}) {
        std::string bad = whole;
        bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
        INFO("record " << k << " byte " << at - start << " bit " << bit);
        const JournalScan scan = ScanJournal(bad);
        CHECK(scan.valid_bytes == start);
        // Damage before the last record is never mistaken for a torn tail.
        CHECK((scan.resync_at == end) == (k + 1 < recs.size()));
        const JournalSalvage sv = SalvageJournal(bad);
        CheckAllBut(recs, {k}, sv.records);
        REQUIRE(sv.lost.size() == 1);
        CHECK(sv.lost[0].offset == start);
        CHECK(sv.lost[0].bytes == end - start);
      }
    }
    start = end;
  }
}

TEST_CASE("bytes flipped at random places lose at most the records they hit") {
  const std::vector<std::string> recs = Records(60);
  const std::string whole = Image(recs);
  std::vector<size_t> starts;
  for (size_t i = 0, at = 0; i < recs.size(); at += 8 + recs[i].size(), ++i) starts.push_back(at);
  uint64_t seed = 12345;
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = whole;
    std::vector<size_t> hit;
    for (int f = 0; f < 1 + trial % 4; ++f) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const size_t at = (seed >> 20) % bad.size();
      bad[at] = static_cast<char>(bad[at] ^ (1 + (seed >> 8) % 255));
      hit.push_back(static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), at) -
                                        starts.begin() - 1));
    }
    INFO("trial " << trial);
    CheckAllBut(recs, hit, SalvageJournal(bad).records);
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
  CHECK(s.message() == "/dev/full: write: No space left on device (ENOSPC)");

  std::string disk;
  MemJournal mem(&disk, 20);
  mem.Append("0123456789");
  REQUIRE(mem.Sync().ok());
  mem.Append("0123456789");
  CHECK_FALSE(mem.Sync().ok());
  CHECK(ScanJournal(disk).records.size() == 1);  // the failed batch left no trace
  mem.set_capacity(1000);  // space returns: the kept batch is written by the retry
  REQUIRE(mem.Sync().ok());
  CHECK(ScanJournal(disk).records.size() == 2);
}

TEST_CASE("a file journal never cuts damage that valid records follow") {
  const std::string path = TempPath();
  std::string image = Image(Records(5));
  image[20] = static_cast<char>(image[20] ^ 1);
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << image; }
  std::unique_ptr<FileJournal> j;
  JournalScan scan;
  const Status s = FileJournal::Open(path, SyncMode::kBatched, 0, &j, &scan);
  CHECK(s.code() == Status::Code::kFailedPrecondition);
  std::ifstream in(path, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(after == image);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace locsched
