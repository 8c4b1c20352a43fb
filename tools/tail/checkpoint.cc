#include "tools/tail/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace locsched {
namespace {

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(path, std::string("write failed: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status ReadCursors(const nlohmann::json& j, const std::string& path, Checkpoint* out);

Status LoadCheckpoint(const std::string& path, Checkpoint* out) {
  out->clear();
  std::ifstream in(path);
  if (!in) return errno == ENOENT ? Status::Ok() : Status::IoError(path, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return ReadCursors(nlohmann::json::parse(text.str(), nullptr, false), path, out);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    return Status::InvalidArgument(path, std::string("is not a valid checkpoint: ") + e.what());
  }
}

Status ReadCursors(const nlohmann::json& j, const std::string& path, Checkpoint* out) {
  if (j.is_discarded() || !j.is_object() || j.value("version", 0) != 1 || !j.contains("files") ||
      !j["files"].is_object())
    return Status::InvalidArgument(path, "is not a locsched-tail checkpoint (version 1)");
  for (const auto& [file, c] : j["files"].items()) {
    if (!c.is_object())
      return Status::InvalidArgument(path, "entry '" + file + "' is not an object");
    FileCursor& cur = (*out)[file];
    cur.dev = c.value("dev", uint64_t{0});
    cur.ino = c.value("ino", uint64_t{0});
    cur.offset = c.value("offset", uint64_t{0});
    cur.line = c.value("line", uint64_t{1});
    cur.generation = c.value("generation", uint64_t{0});
  }
  return Status::Ok();
}

Status SaveCheckpoint(const std::string& path, const Checkpoint& cp) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [file, c] : cp)
    files[file] = {{"dev", c.dev},
                   {"ino", c.ino},
                   {"offset", c.offset},
                   {"line", c.line},
                   {"generation", c.generation}};
  const std::string data = nlohmann::json{{"version", 1}, {"files", files}}.dump() + "\n";
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError(tmp, std::strerror(errno));
  Status s = WriteAll(fd, data, tmp);
  if (s.ok() && ::fsync(fd) != 0)
    s = Status::IoError(tmp, std::string("fsync: ") + std::strerror(errno));
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0)
    s = Status::IoError(path, std::string("rename: ") + std::strerror(errno));
  if (!s.ok()) return s;
  // The rename itself is durable only once the directory is synced.
  const int dir = ::open(DirOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

}  // namespace locsched
