#include "io/store/store_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "io/store/journal.h"
#include "io/store/snapshot_store.h"

namespace locsched {

namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The start of the header record a new journal begins with, cut short by a
// crash: a small length, then a prefix of {"gen":N}.
bool IsTornHeader(std::string_view image) {
  if (image.find_first_not_of('\0') == std::string_view::npos) return true;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(image[i]); };
  if (byte(0) < 9 || byte(0) > 40) return false;
  for (size_t i = 1; i < 4 && i < image.size(); ++i)
    if (byte(i) != 0) return false;
  if (image.size() <= 8) return true;
  const std::string_view payload = image.substr(8);
  if (payload.size() >= byte(0)) return false;  // a whole record would have parsed
  const std::string_view gen = "{\"gen\":";
  const size_t n = std::min(payload.size(), gen.size());
  if (payload.substr(0, n) != gen.substr(0, n)) return false;
  return payload.substr(n).find_first_not_of("0123456789") == std::string_view::npos;
}

// A journal: empty, a valid record at the start or later (a damaged one), or a
// header torn by a crash.
bool LooksLikeJournal(std::string_view image) {
  if (image.empty()) return true;
  const JournalScan scan = ScanJournal(image);
  return !scan.records.empty() || scan.resync_at != 0 || IsTornHeader(image);
}

// True if the file's first record is whole and checks out (read from its first 64 KiB).
bool StartsWithRecord(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1 << 16];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  ::close(fd);
  if (n < 8) return false;
  const std::string_view head(buf, static_cast<size_t>(n));
  uint32_t len = 0, crc = 0;
  for (int i = 3; i >= 0; --i) {
    len = len << 8 | static_cast<unsigned char>(head[i]);
    crc = crc << 8 | static_cast<unsigned char>(head[4 + i]);
  }
  return len <= head.size() - 8 && Crc32c(head.substr(8, len)) == crc;
}

Status CheckFile(const std::string& file, bool journal, bool device_ok) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::IoError(file, "stat: " + ErrnoText(errno));
  }
  if (device_ok && S_ISCHR(st.st_mode)) return Status::Ok();
  if (S_ISDIR(st.st_mode))
    return Status::InvalidArgument(file, "is a directory, not a journal file; it is left as it is");
  if (!S_ISREG(st.st_mode))
    return Status::InvalidArgument(file, "is not a regular file; it is left as it is");
  if (!journal) return Status::Ok();
  if (StartsWithRecord(file)) return Status::Ok();  // the usual case, without reading it all
  std::string image;
  if (Status s = ReadFileImage(file, &image); !s.ok()) return s;
  if (LooksLikeJournal(image)) return Status::Ok();
  return Status::InvalidArgument(
      file, "holds no journal record (is it another program's file?); it is left as it is");
}

// The generation in a {"gen":N} header, or -1.
int64_t HeaderGen(std::string_view record) {
  const std::string_view prefix = "{\"gen\":";
  if (record.substr(0, prefix.size()) != prefix || record.size() < prefix.size() + 2 ||
      record.back() != '}')
    return -1;
  int64_t g = 0;
  for (const char c : record.substr(prefix.size(), record.size() - prefix.size() - 1)) {
    if (c < '0' || c > '9') return -1;
    g = g * 10 + (c - '0');
  }
  return g;
}

// One journal file as --recover reads it.
struct Salvaged {
  std::string path;
  bool present = false;
  bool damaged = false;  // valid records after a bad stretch
  int64_t gen = -1;      // from its header; -1 if it has none (or it was lost)
  bool header_lost = false;
  JournalSalvage sv;
};

Status ReadSalvaged(const std::string& path, Salvaged* f) {
  f->path = path;
  std::string image;
  const Status s = ReadFileImage(path, &image);
  if (s.code() == Status::Code::kNotFound) return Status::Ok();
  if (!s.ok()) return s;
  f->present = true;
  f->damaged = ScanJournal(image).resync_at != 0;
  f->sv = SalvageJournal(image);
  if (!f->sv.records.empty() && f->sv.offsets.front() == 0) f->gen = HeaderGen(f->sv.records[0]);
  f->header_lost = !f->sv.lost.empty() && f->sv.lost.front().offset == 0;
  return Status::Ok();
}

// The generation P.snap starts, or -1.
int64_t SnapshotGen(const std::string& path) {
  JournalScan scan;
  if (!ReadJournalFile(path + ".snap", &scan).ok() || scan.records.empty()) return -1;
  const std::string_view r = scan.records.front();
  const std::string_view prefix = "{\"snapshot\":";
  if (r.substr(0, prefix.size()) != prefix) return -1;
  return HeaderGen("{\"gen\":" + std::string(r.substr(prefix.size())));
}

Status WriteSalvaged(const Salvaged& f, int64_t gen, std::string* kept) {
  if (Status s = CreateAside(f.path + ".damaged", "", f.path, kept); !s.ok()) return s;
  std::string image;
  const bool has_header = !f.sv.records.empty() && HeaderGen(f.sv.records.front()) >= 0;
  if (!has_header && f.header_lost && gen >= 0)
    FrameRecord(SnapshotStore::JournalHeader(static_cast<uint64_t>(gen)), &image);
  for (const std::string& r : f.sv.records) FrameRecord(r, &image);
  std::string tmp;
  if (Status s = CreateAside(f.path + ".salvaged", image, "", &tmp); !s.ok()) return s;
  if (::rename(tmp.c_str(), f.path.c_str()) != 0)
    return Status::IoError(tmp, "rename to " + f.path + ": " + ErrnoText(errno));
  const int dir = ::open(DirOf(f.path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

void Report(const Salvaged& f, const std::string& kept, SalvageReport* report) {
  uint64_t lost = 0;
  for (const LostRange& r : f.sv.lost) {
    lost += r.records ? r.records : 1;
    report->lines.push_back(
        f.path + ": lost bytes " + std::to_string(r.offset) + ".." +
        std::to_string(r.offset + r.bytes) + " (" + std::to_string(r.bytes) + " bytes, " +
        (r.records ? std::to_string(r.records) + (r.records == 1 ? " record" : " records")
                   : std::string("at least one record")) +
        "): " + r.reason);
  }
  report->lines.push_back(f.path + ": kept aside untouched as " + kept + "; " +
                          std::to_string(f.sv.records.size()) + " valid records written back, " +
                          std::to_string(lost) + " lost");
  ++report->files_repaired;
  report->records_kept += f.sv.records.size();
  report->records_lost += lost;
}

}  // namespace

Status CheckStorePaths(const std::string& path) {
  const std::string dir = DirOf(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::InvalidArgument(path, "its directory " + dir + " does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return Status::PermissionDenied(path, "its directory " + dir + " is not writable by this user");
  if (Status s = CheckFile(path, true, true); !s.ok()) return s;
  if (Status s = CheckFile(path + ".prev", true, false); !s.ok()) return s;
  for (const char* suffix : {".next", ".snap", ".snap.prev", ".snap.tmp"})
    if (Status s = CheckFile(path + suffix, false, false); !s.ok()) return s;
  return Status::Ok();
}

Status CreateAside(const std::string& base, std::string_view bytes, const std::string& link_from,
                   std::string* made) {
  for (int n = 1; n < 1000; ++n) {
    *made = base + "." + std::to_string(n);
    if (!link_from.empty()) {
      if (::link(link_from.c_str(), made->c_str()) == 0) return Status::Ok();
      if (errno == EEXIST) continue;
      return Status::IoError(*made, "link from " + link_from + ": " + ErrnoText(errno));
    }
    const int fd = ::open(made->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return Status::IoError(*made, "create: " + ErrnoText(errno));
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      done += static_cast<size_t>(w);
    }
    const bool ok = done == bytes.size() && ::fdatasync(fd) == 0;
    const int err = errno;
    ::close(fd);
    return ok ? Status::Ok() : Status::IoError(*made, "write: " + ErrnoText(err));
  }
  return Status::AlreadyExists(base, "999 files kept aside already; move them away");
}

// A lost header takes its generation from the neighbour: P.prev is one before
// P, P is one after P.prev (or the generation P.snap starts).
Status SalvageStore(const std::string& path, SalvageReport* report) {
  *report = SalvageReport{};
  if (Status s = CheckStorePaths(path); !s.ok()) return s;
  Salvaged prev, cur;
  if (Status s = ReadSalvaged(path + ".prev", &prev); !s.ok()) return s;
  if (Status s = ReadSalvaged(path, &cur); !s.ok()) return s;
  if (prev.gen < 0 && cur.gen > 0) prev.gen = cur.gen - 1;
  if (cur.gen < 0) cur.gen = prev.gen >= 0 ? prev.gen + 1 : SnapshotGen(path);
  for (const Salvaged* f : {&prev, &cur}) {
    if (!f->present || !f->damaged) continue;
    std::string kept;
    if (Status s = WriteSalvaged(*f, f->gen, &kept); !s.ok()) return s;
    Report(*f, kept, report);
  }
  if (report->files_repaired == 0)
    report->lines.push_back(path + ": no damage with valid records after it; nothing to salvage");
  return Status::Ok();
}

}  // namespace locsched
