#include "io/store/snapshot_store.h"

#include "io/store/store_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>

namespace locsched {

namespace {

// The number after `prefix` in a record like {"gen":12}; false if it is not one.
bool ParseNumberRecord(std::string_view record, std::string_view prefix, uint64_t* value) {
  if (record.substr(0, prefix.size()) != prefix) return false;
  uint64_t v = 0;
  size_t i = prefix.size();
  if (i >= record.size() || record[i] < '0' || record[i] > '9') return false;
  for (; i < record.size() && record[i] >= '0' && record[i] <= '9'; ++i)
    v = v * 10 + static_cast<uint64_t>(record[i] - '0');
  if (record.substr(i) != "}") return false;
  *value = v;
  return true;
}

std::string NumberRecord(std::string_view prefix, uint64_t value) {
  return std::string(prefix) + std::to_string(value) + "}";
}

constexpr std::string_view kGen = "{\"gen\":";
constexpr std::string_view kSnapshot = "{\"snapshot\":";
constexpr std::string_view kEnd = "{\"end\":";

Status Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return Status::Ok();
  return Status::IoError(from, "rename to " + to + ": " + ErrnoText(errno));
}

bool Exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

// Makes the renames in path's directory durable.
Status SyncDir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(dir, "open: " + ErrnoText(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  return rc == 0 ? Status::Ok() : Status::IoError(dir, "fsync: " + ErrnoText(err));
}

// Writes framed records to a new file, flushing every MiB, and syncs it.
class FileWriter {
 public:
  Status Create(const std::string& path) {
    path_ = path;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    return fd_ >= 0 ? Status::Ok() : Status::IoError(path, "create: " + ErrnoText(errno));
  }
  ~FileWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  void Add(std::string_view record) {
    FrameRecord(record, &buffer_);
    if (buffer_.size() >= (1u << 20)) status_ = Write();
  }
  Status Finish() {
    if (Status s = Write(); !s.ok()) return s;
    if (::fdatasync(fd_) != 0) return Status::IoError(path_, "fdatasync: " + ErrnoText(errno));
    return Status::Ok();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  Status Write() {
    if (!status_.ok()) return status_;
    for (size_t done = 0; done < buffer_.size();) {
      const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::IoError(path_, "write: " + ErrnoText(errno));
      done += static_cast<size_t>(n);
    }
    bytes_ += buffer_.size();
    buffer_.clear();
    return Status::Ok();
  }
  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  uint64_t bytes_ = 0;
  Status status_;
};

// One journal file read at start.
struct JournalFile {
  std::string path;
  uint64_t gen = 0;
  std::vector<std::string> events;
  std::string tail;  // bytes after the valid prefix that are more than a torn record
  bool header = false;
};

// "to keep it aside and salvage": the way out of a damaged journal.
std::string RecoverHint(const std::string& path) {
  return "Nothing was changed. To keep " + path +
         " aside untouched and salvage every valid record, run `locschedd --recover` with the "
         "same --config and --set options (it reports which records are lost), then start again";
}

// Reads a journal file (absent: NotFound); its first record may be a {"gen":g}
// header. A torn tail is reported (the active journal's is cut when it opens);
// damage with valid records after it refuses the start.
Status LoadJournal(const std::string& path, JournalFile* out, Recovery* rec) {
  std::string image;
  if (Status s = ReadFileImage(path, &image); !s.ok()) return s;
  JournalScan scan = ScanJournal(image);
  if (scan.resync_at != 0)
    return Status::FailedPrecondition(
        path, "damaged at byte " + std::to_string(scan.valid_bytes) + " (" + scan.cut_reason +
                  "); valid records follow at byte " + std::to_string(scan.resync_at) +
                  ", so this is damage, not a torn tail. " + RecoverHint(path));
  if (scan.cut_bytes > 0)
    rec->warnings.push_back(path + ": cut " + std::to_string(scan.cut_bytes) +
                            " bytes after the last good record at byte " +
                            std::to_string(scan.valid_bytes) + " (" + scan.cut_reason + "; " +
                            (scan.torn ? "a torn tail" : "more than a torn record") + ")");
  if (scan.cut_bytes > 0 && !scan.torn) out->tail = image.substr(scan.valid_bytes);
  out->path = path;
  out->events = std::move(scan.records);
  out->header = !out->events.empty() && ParseNumberRecord(out->events.front(), kGen, &out->gen);
  if (out->header) out->events.erase(out->events.begin());
  return Status::Ok();
}

// A snapshot file: {"snapshot":g}, its state records, {"end":count}. False if absent or bad.
bool LoadSnapshot(const std::string& path, uint64_t* gen, std::vector<std::string>* records,
                  Recovery* rec) {
  JournalScan scan;
  if (Status s = ReadJournalFile(path, &scan); !s.ok()) {
    if (s.code() == Status::Code::kNotFound) return false;
    rec->warnings.push_back(s.message());
    rec->fell_back = true;
    return false;
  }
  uint64_t count = 0;
  const std::vector<std::string>& r = scan.records;
  if (scan.cut_bytes > 0 || r.size() < 2 || !ParseNumberRecord(r.front(), kSnapshot, gen) ||
      !ParseNumberRecord(r.back(), kEnd, &count) || count != r.size() - 2) {
    rec->warnings.push_back(path + ": corrupt or incomplete snapshot" +
                            (scan.cut_reason.empty() ? "" : " (" + scan.cut_reason + ")") +
                            "; trying an older one");
    rec->fell_back = true;
    return false;
  }
  records->assign(std::make_move_iterator(scan.records.begin() + 1),
                  std::make_move_iterator(scan.records.end() - 1));
  return true;
}

// True if journals g..newest are all present (journals older than g are folded into it).
bool ChainComplete(const std::map<uint64_t, JournalFile>& journals, uint64_t g) {
  const uint64_t newest = journals.empty() ? g : std::max(g, journals.rbegin()->first);
  for (uint64_t k = g + 1; k <= newest; ++k)
    if (!journals.count(k)) return false;
  return journals.count(g) || newest == g;
}

// A snapshot killed after it started its own journal but before its file took
// P.snap's place: P.snap.tmp is complete and journal g exists, and P.prev may already
// hold a journal newer than P.snap needs, so the tmp file is the only usable state.
// Loads it into *rec; false (and nothing reported) for a torn or unstarted tmp file.
bool TakeInterruptedSnapshot(const std::string& path,
                             const std::map<uint64_t, JournalFile>& journals, uint64_t* g,
                             Recovery* rec) {
  const std::string tmp = path + ".snap.tmp";
  Recovery quiet;  // a torn tmp file is the normal trace of a kill while writing it
  std::vector<std::string> records;
  uint64_t gen = 0;
  if (!LoadSnapshot(tmp, &gen, &records, &quiet)) return false;
  if (!journals.count(gen) || !ChainComplete(journals, gen)) return false;
  *g = gen;
  rec->snapshot_file = path + ".snap";
  rec->snapshot = std::move(records);
  rec->warnings.push_back(tmp + ": a snapshot interrupted before it was installed; installing it");
  return true;
}

// Gives an interrupted snapshot the place Snapshot would have: P.snap -> P.snap.prev,
// P.snap.tmp -> P.snap. A crash in between leaves the tmp file to be taken again.
Status InstallSnapshot(const std::string& path) {
  if (Exists(path + ".snap"))
    if (Status s = Rename(path + ".snap", path + ".snap.prev"); !s.ok()) return s;
  if (Status s = Rename(path + ".snap.tmp", path + ".snap"); !s.ok()) return s;
  return SyncDir(path);
}

Status Unlink(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return Status::IoError(path, "unlink: " + ErrnoText(errno));
}

}  // namespace

std::string SnapshotStore::JournalHeader(uint64_t g) {
  return NumberRecord(kGen, g);
}

// Picks the newest usable snapshot, gathers the journal events after it, and
// makes P the journal of the newest generation.
Status SnapshotStore::Open(const std::string& path, SyncMode mode, double interval_seconds,
                           std::unique_ptr<SnapshotStore>* out, Recovery* rec) {
  *rec = Recovery{};
  std::unique_ptr<SnapshotStore> store(new SnapshotStore(path, mode, interval_seconds));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
    // /dev/null (benchmarks without a disk): nothing to recover, nothing to rename.
    store->device_ = true;
    if (Status s = store->OpenJournal(); !s.ok()) return s;
    *out = std::move(store);
    return Status::Ok();
  }
  if (Status s = CheckStorePaths(path); !s.ok()) return s;
  std::map<uint64_t, JournalFile> journals;
  for (const std::string& p : {path + ".prev", path, path + ".next"}) {
    JournalFile f;
    const Status s = LoadJournal(p, &f, rec);
    if (s.code() == Status::Code::kNotFound) continue;
    if (!s.ok()) return s;
    // Empty, or a header torn by a kill (P.next as a snapshot starts it): it holds
    // nothing, and as "generation 0" it would hide the real journal of that generation.
    if (!f.header && f.events.empty() && f.tail.empty()) continue;
    journals[f.gen] = std::move(f);  // a later file wins a tie
  }
  // Candidates, newest first: an interrupted P.snap.tmp, P.snap, P.snap.prev, then the
  // empty state (generation 0).
  uint64_t g = 0;
  const bool from_tmp = TakeInterruptedSnapshot(path, journals, &g, rec);
  bool chosen = from_tmp;
  for (const std::string& p : {path + ".snap", path + ".snap.prev"}) {
    if (chosen) break;
    std::vector<std::string> records;
    if (!LoadSnapshot(p, &g, &records, rec)) continue;
    if (ChainComplete(journals, g)) {
      rec->snapshot_file = p;
      rec->snapshot = std::move(records);
      chosen = true;
      break;
    }
    rec->warnings.push_back(p + ": the journals after it are missing; trying an older one");
    rec->fell_back = true;
  }
  if (!chosen && !ChainComplete(journals, g = 0))
    return Status::FailedPrecondition(
        path, "no usable snapshot and the journal does not start at generation 0; restore " + path +
                  ".snap from a backup");
  for (auto& [k, f] : journals)
    if (k >= g)
      rec->events.insert(rec->events.end(), std::make_move_iterator(f.events.begin()),
                         std::make_move_iterator(f.events.end()));
  store->generation_ = journals.empty() ? g : std::max(g, journals.rbegin()->first);
  const std::string active =
      journals.count(store->generation_) ? journals[store->generation_].path : std::string();
  if (active != path) {
    // P is not the newest journal (a snapshot was interrupted, or only a snapshot
    // was restored): keep P as P.prev, and make the newest one P.
    if (Exists(path) && active != path + ".prev")
      if (Status s = Rename(path, path + ".prev"); !s.ok()) return s;
    if (Status s =
            active.empty() ? store->StartNextJournal(store->generation_) : Rename(active, path);
        !s.ok())
      return s;
  }
  ::unlink((path + ".next").c_str());
  if (Status s = from_tmp ? InstallSnapshot(path) : Unlink(path + ".snap.tmp"); !s.ok()) return s;
  if (journals.count(store->generation_) && !journals[store->generation_].tail.empty()) {
    // More than a torn record after the last good one: cut from P, but kept.
    std::string kept;
    if (Status s = CreateAside(path + ".tail", journals[store->generation_].tail, "", &kept);
        !s.ok())
      return s;
    rec->warnings.push_back(path + ": the bytes after the last good record are kept in " + kept);
  }
  if (Status s = store->OpenJournal(); !s.ok()) return s;
  rec->generation = store->generation_;
  *out = std::move(store);
  return Status::Ok();
}

// Opens P for appending (Open has reported any torn tail it cuts), writing
// its header if it is new.
Status SnapshotStore::OpenJournal() {
  JournalScan scan;
  if (Status s = FileJournal::Open(path_, mode_, interval_, &journal_, &scan); !s.ok()) return s;
  if (!scan.records.empty() || journal_->size() != 0) return Status::Ok();
  journal_->Append(JournalHeader(generation_));
  return journal_->Sync();
}

// Writes P.next holding only the header of generation g, then makes it P
// (the old P becomes P.prev). Every step leaves files Open can recover from.
Status SnapshotStore::StartNextJournal(uint64_t g) {
  const std::string next = path_ + ".next";
  FileWriter w;
  Status s = w.Create(next);
  if (s.ok()) {
    w.Add(JournalHeader(g));
    s = w.Finish();
  }
  if (!s.ok()) {
    ::unlink(next.c_str());
    return s;
  }
  if (Exists(path_))
    if (s = Rename(path_, path_ + ".prev"); !s.ok()) return s;
  return Rename(next, path_);
}

Status SnapshotStore::Snapshot(const std::function<void(const SnapshotSink&)>& save,
                               SnapshotInfo* info) {
  *info = SnapshotInfo{};
  if (device_)
    return Status::FailedPrecondition(path_, "is a device, not a file: snapshots need a file");
  const uint64_t g = generation_ + 1;
  const std::string tmp = path_ + ".snap.tmp";
  FileWriter w;
  Status s = w.Create(tmp);
  if (s.ok()) {
    w.Add(NumberRecord(kSnapshot, g));
    save([&](std::string_view record) {
      w.Add(record);
      ++info->records;
    });
    w.Add(NumberRecord(kEnd, info->records));
    s = w.Finish();
  }
  if (s.ok()) s = StartNextJournal(g);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  // From here on P is journal g; a failed rename below only leaves the older
  // snapshot in place, which P.prev and P still complete.
  info->journal_bytes = journal_->size();
  generation_ = g;
  if (s = OpenJournal(); !s.ok()) return s;
  if (Exists(path_ + ".snap"))
    if (s = Rename(path_ + ".snap", path_ + ".snap.prev"); !s.ok()) return s;
  if (s = Rename(tmp, path_ + ".snap"); !s.ok()) return s;
  info->generation = g;
  info->bytes = w.bytes();
  return SyncDir(path_);
}

}  // namespace locsched
