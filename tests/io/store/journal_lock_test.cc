// JournalLock: one holder per journal (a second open of the same lock file is
// refused naming the journal and the holder's pid), the lock goes with its
// holder while the file stays, a stale pid never blocks, a lock path that is
// not a regular file is refused and left alone, and /dev/null needs no lock.
#include "io/store/journal_lock.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace locsched {
namespace {

namespace fs = std::filesystem;

struct Dir {
  Dir() {
    char tmpl[] = "/tmp/journal_lock_test.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Dir() { fs::remove_all(path); }
  std::string path;
};

std::string Contents(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("JournalLock: a second holder is refused naming the journal and the pid") {
  Dir d;
  const std::string journal = d.path + "/journal";
  std::unique_ptr<JournalLock> first, second;
  REQUIRE(JournalLock::Acquire(journal, &first).ok());
  REQUIRE(first);
  CHECK(first->path() == journal + ".lock");
  CHECK(Contents(journal + ".lock") == std::to_string(getpid()) + "\n");
  // flock locks belong to the open file: a second open is refused even in this process.
  const Status s = JournalLock::Acquire(journal, &second);
  CHECK(s.code() == Status::Code::kFailedPrecondition);
  CHECK(s.message().find(journal + ": is in use by pid " + std::to_string(getpid())) == 0);
  CHECK(s.message().find(journal + ".lock") != std::string::npos);
  CHECK_FALSE(second);
  first.reset();  // released; the file stays
  CHECK(fs::exists(journal + ".lock"));
  REQUIRE(JournalLock::Acquire(journal, &second).ok());
}

TEST_CASE("JournalLock: a stale pid is overwritten, not obeyed") {
  Dir d;
  const std::string journal = d.path + "/journal";
  std::ofstream(journal + ".lock") << "999999999\nleftover text\n";
  std::unique_ptr<JournalLock> lock;
  REQUIRE(JournalLock::Acquire(journal, &lock).ok());
  CHECK(Contents(journal + ".lock") == std::to_string(getpid()) + "\n");
}

TEST_CASE("JournalLock: a lock path that is not a regular file is refused and left alone") {
  Dir d;
  const std::string journal = d.path + "/journal";
  std::unique_ptr<JournalLock> lock;
  fs::create_directory(journal + ".lock");
  Status s = JournalLock::Acquire(journal, &lock);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("not a regular file") != std::string::npos);
  CHECK(fs::is_directory(journal + ".lock"));
  fs::remove(journal + ".lock");
  std::ofstream(d.path + "/elsewhere") << "keep me\n";
  fs::create_symlink(d.path + "/elsewhere", journal + ".lock");
  s = JournalLock::Acquire(journal, &lock);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(Contents(d.path + "/elsewhere") == "keep me\n");
}

TEST_CASE("JournalLock: a character-device journal takes no lock") {
  std::unique_ptr<JournalLock> lock;
  REQUIRE(JournalLock::Acquire("/dev/null", &lock).ok());
  CHECK_FALSE(lock);
  CHECK_FALSE(fs::exists("/dev/null.lock"));
}

}  // namespace
}  // namespace locsched
