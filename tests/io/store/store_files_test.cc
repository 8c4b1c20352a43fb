// StoreFiles: paths that are not the daemon's are refused and left as they are;
// damage in the middle of a journal refuses the start without changing a byte;
// --recover (SalvageStore) keeps the damaged file aside untouched and writes
// back every other record, rebuilding a lost generation header; P.prev is never
// truncated.
#include "io/store/store_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/store/journal.h"
#include "io/store/snapshot_store.h"

namespace locsched {
namespace {

namespace fs = std::filesystem;

struct Dir {
  Dir() {
    char tmpl[] = "/tmp/store_files_test.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Dir() { fs::remove_all(path); }
  std::string File(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

Status Open(const std::string& p, Recovery* rec) {
  std::unique_ptr<SnapshotStore> store;
  return SnapshotStore::Open(p, SyncMode::kBatched, 0, &store, rec);
}

// A journal of generation 0 with events e0..e{n-1}, as the daemon writes it.
void WriteJournal(const std::string& p, int n) {
  Recovery rec;
  std::unique_ptr<SnapshotStore> store;
  REQUIRE(SnapshotStore::Open(p, SyncMode::kBatched, 0, &store, &rec).ok());
  for (int i = 0; i < n; ++i) store->journal().Append("{\"e\":" + std::to_string(i) + "}");
  REQUIRE(store->journal().Sync().ok());
}

std::vector<std::string> Events(int n, std::vector<int> skip = {}) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    if (std::find(skip.begin(), skip.end(), i) == skip.end())
      out.push_back("{\"e\":" + std::to_string(i) + "}");
  return out;
}

// The offset of event i's record in a journal WriteJournal wrote (after the header).
size_t OffsetOf(const std::string& image, int i) {
  const size_t at = image.find("{\"e\":" + std::to_string(i) + "}");
  REQUIRE(at != std::string::npos);
  return at - 8;
}

TEST_CASE("StoreFiles: a directory, a foreign file or a missing directory is refused, untouched") {
  Dir d;
  const std::string p = d.File("journal.log");
  fs::create_directory(p);
  Status s = CheckStorePaths(p);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("is a directory") != std::string::npos);
  Recovery rec;
  CHECK_FALSE(Open(p, &rec).ok());
  CHECK(fs::is_directory(p));
  CHECK_FALSE(fs::exists(p + ".prev"));
  fs::remove(p);

  Write(p, "user notes, not a journal\n");
  s = CheckStorePaths(p);
  CHECK(s.message().find("holds no journal record") != std::string::npos);
  CHECK_FALSE(Open(p, &rec).ok());
  CHECK(Slurp(p) == "user notes, not a journal\n");
  Write(p, "hi\n");  // short enough to look like a torn header, but it is not one
  CHECK_FALSE(CheckStorePaths(p).ok());
  fs::remove(p);

  fs::create_directory(p + ".snap");
  CHECK(CheckStorePaths(p).message().find(".snap") != std::string::npos);
  fs::remove(p + ".snap");

  CHECK(CheckStorePaths(d.File("no/such/dir/journal.log")).message().find("does not exist") !=
        std::string::npos);
  CHECK(CheckStorePaths(p).ok());
  CHECK(CheckStorePaths("/dev/null").ok());
}

TEST_CASE("StoreFiles: damage in the middle refuses the start, and the file keeps every byte") {
  Dir d;
  const std::string p = d.File("journal.log");
  WriteJournal(p, 10);
  std::string image = Slurp(p);
  const size_t at = OffsetOf(image, 4);
  image[at + 10] ^= 0x20;
  Write(p, image);
  Recovery rec;
  const Status s = Open(p, &rec);
  CHECK(s.code() == Status::Code::kFailedPrecondition);
  CHECK(s.message().find("damaged at byte " + std::to_string(at)) != std::string::npos);
  CHECK(s.message().find("--recover") != std::string::npos);
  CHECK(Slurp(p) == image);
}

TEST_CASE("StoreFiles: --recover keeps the file aside and salvages every other record") {
  for (const char* part : {"length", "checksum", "payload", "header record"}) {
    Dir d;
    const std::string p = d.File("journal.log");
    WriteJournal(p, 10);
    std::string image = Slurp(p);
    const std::string what = part;
    const int victim = 6;
    const size_t at = what == "length"     ? OffsetOf(image, victim) + 1
                      : what == "checksum" ? OffsetOf(image, victim) + 5
                      : what == "payload"  ? OffsetOf(image, victim) + 9
                                           : 9;  // inside {"gen":0}
    image[at] ^= 0x11;
    Write(p, image);
    INFO(what);
    SalvageReport report;
    REQUIRE(SalvageStore(p, &report).ok());
    CHECK(report.files_repaired == 1);
    CHECK(report.records_lost == 1);
    CHECK(Slurp(p + ".damaged.1") == image);  // the original, untouched
    Recovery rec;
    const Status s = Open(p, &rec);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(rec.events == (what == "header record" ? Events(10) : Events(10, {victim})));
    CHECK(rec.generation == 0);
  }
}

TEST_CASE("StoreFiles: a lost header takes its generation from the older journal") {
  Dir d;
  const std::string p = d.File("journal.log");
  {
    Recovery rec;
    std::unique_ptr<SnapshotStore> store;
    REQUIRE(SnapshotStore::Open(p, SyncMode::kBatched, 0, &store, &rec).ok());
    store->journal().Append("{\"e\":0}");
    REQUIRE(store->journal().Sync().ok());
    SnapshotInfo info;
    REQUIRE(store->Snapshot([](const SnapshotSink& emit) { emit("S"); }, &info).ok());
    for (int i = 1; i < 5; ++i) store->journal().Append("{\"e\":" + std::to_string(i) + "}");
    REQUIRE(store->journal().Sync().ok());
  }
  std::string image = Slurp(p);
  image[3] ^= 0x40;  // the header's length
  Write(p, image);
  SalvageReport report;
  REQUIRE(SalvageStore(p, &report).ok());
  Recovery rec;
  REQUIRE(Open(p, &rec).ok());
  CHECK(rec.generation == 1);
  CHECK(rec.snapshot == std::vector<std::string>{"S"});
  CHECK(rec.events ==
        std::vector<std::string>({"{\"e\":1}", "{\"e\":2}", "{\"e\":3}", "{\"e\":4}"}));
}

TEST_CASE(
    "StoreFiles: a torn tail is cut from P, more than a torn record is kept, P.prev is not cut") {
  Dir d;
  const std::string p = d.File("journal.log");
  WriteJournal(p, 3);
  std::string garbage;
  FrameRecord("{\"e\":99}", &garbage);
  garbage[garbage.size() - 2] ^= 1;  // a whole record with a bad checksum: not a torn write
  const std::string image = Slurp(p);
  Write(p, image + garbage);
  Recovery rec;
  REQUIRE(Open(p, &rec).ok());
  CHECK(rec.events == Events(3));
  CHECK(Slurp(p) == image);
  CHECK(Slurp(p + ".tail.1") == garbage);

  // An older journal with junk after its records is read, never cut.
  fs::rename(p, p + ".prev");
  Write(p + ".prev", image + garbage);
  {
    std::string next;
    FrameRecord(SnapshotStore::JournalHeader(1), &next);
    Write(p, next);
  }
  Write(p + ".snap", "");
  fs::remove(p + ".snap");
  REQUIRE(Open(p, &rec).ok());
  CHECK(Slurp(p + ".prev") == image + garbage);
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

TEST_CASE("StoreFiles: an empty or torn P.next (a kill as a snapshot starts it) hides nothing") {
  for (const std::string& next : {std::string(), std::string("\x09\x00", 2)}) {
    Dir d;
    const std::string p = d.File("journal.log");
    WriteJournal(p, 3);
    Write(p + ".next", next);
    Recovery rec;
    const Status s = Open(p, &rec);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(rec.events == Events(3));
    CHECK(Slurp(p).size() > 0);
    CHECK_FALSE(fs::exists(p + ".next"));
  }
}

}  // namespace
}  // namespace locsched
