#include "io/coord/zk_coordinator.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

namespace locsched {

namespace {

constexpr std::string_view kZkSubject = "ha.zookeeper";

Status Unavailable(const std::string& what) {
  return Status::IoError(std::string(kZkSubject), what);
}

Status Deposed(const std::string& what) {
  return Status::FailedPrecondition(std::string(kFencedSubject), what);
}

// A ZooKeeper error as a Status: a lost session fences, anything else is an outage.
Status FromRc(int rc, const std::string& what) {
  if (rc == ZOK) return Status::Ok();
  if (rc == ZNOAUTH)
    return Status::PermissionDenied(
        "ha.zookeeper_auth_file",
        what + ": ZooKeeper refused access (" + zerror(rc) +
            "): the nodes carry an ACL this instance's credential does not match");
  if (rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE || rc == ZAUTHFAILED)
    return Deposed(what + ": the ZooKeeper session ended (" + zerror(rc) + ")");
  return Unavailable(what + ": " + zerror(rc));
}

void Watcher(zhandle_t*, int type, int state, const char*, void* ctx) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* s = static_cast<std::atomic<CoordSession>*>(ctx);
  if (state == ZOO_CONNECTED_STATE)
    s->store(CoordSession::kConnected);
  else if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE)
    s->store(CoordSession::kExpired);
  else if (s->load() != CoordSession::kExpired)
    s->store(CoordSession::kConnecting);
}

std::string Digits(uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llu", width, static_cast<unsigned long long>(v));
  return buf;
}

// Parses a decimal name; false if it is not one.
bool ParseIndex(std::string_view name, uint64_t* v) {
  if (name.empty() || name.size() > 20) return false;
  uint64_t x = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + static_cast<uint64_t>(c - '0');
  }
  *v = x;
  return true;
}

// One fenced multi-op's parts, kept alive until its completion has run.
struct MultiOp {
  enum Kind { kCreate, kDelete, kSet };
  Kind kind;
  std::string path;
  std::string data;
};

}  // namespace

std::string EncodeEntry(uint64_t epoch, std::string_view data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((epoch >> (8 * i)) & 0xff);
  out.append(data);
  return out;
}

bool DecodeEntry(std::string_view stored, uint64_t* epoch, std::string_view* data) {
  if (stored.size() < 8) return false;
  uint64_t e = 0;
  for (int i = 0; i < 8; ++i) e |= uint64_t{static_cast<unsigned char>(stored[i])} << (8 * i);
  *epoch = e;
  *data = stored.substr(8);
  return true;
}

// One asynchronous call: the completion fills it and wakes the waiting caller.
// Shared, so a completion arriving after the caller gave up finds it alive.
struct ZkCoordinator::Call {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  int rc = ZOK;
  std::string data;
  int version = -1;
  std::vector<std::string> names;
  std::vector<MultiOp> parts;
  std::vector<zoo_op_t> ops;
  std::vector<zoo_op_result_t> results;
  std::vector<char> created;  // the create ops' path buffers
  std::string what;           // for the error message

  void Finish(int code) {
    std::lock_guard<std::mutex> lock(m);
    rc = code;
    done = true;
    cv.notify_all();
  }
  // The completion's context: a heap copy of the shared pointer, freed by it.
  static const void* Context(const std::shared_ptr<Call>& c) {
    return new std::shared_ptr<Call>(c);
  }
  static std::shared_ptr<Call> Take(const void* ctx) {
    auto* p = static_cast<std::shared_ptr<Call>*>(const_cast<void*>(ctx));
    std::shared_ptr<Call> c = std::move(*p);
    delete p;
    return c;
  }
};

Status ReadZooKeeperAuth(const std::string& path, std::string* auth) {
  const std::string key = "ha.zookeeper_auth_file";
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(key, path + ": cannot be read: " + std::strerror(errno));
  std::string line;
  std::getline(in, line);
  const size_t b = line.find_first_not_of(" \t\r");
  const size_t e = line.find_last_not_of(" \t\r");
  *auth = b == std::string::npos ? "" : line.substr(b, e - b + 1);
  const size_t colon = auth->find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == auth->size())
    return Status::InvalidArgument(
        key, path +
                 ": its first line must be USER:PASSWORD (both non-empty), for ZooKeeper's "
                 "digest authentication");
  return Status::Ok();
}

ZkCoordinator::ZkCoordinator(ZkOptions opts)
    : opts_(std::move(opts)),
      acl_(opts_.auth.empty() ? &ZOO_OPEN_ACL_UNSAFE : &ZOO_CREATOR_ALL_ACL),
      state_(std::make_shared<std::atomic<CoordSession>>(CoordSession::kConnecting)) {}

Status ZkCoordinator::Open(const ZkOptions& opts, std::unique_ptr<ZkCoordinator>* out) {
  if (opts.root.empty() || opts.root[0] != '/' || (opts.root.size() > 1 && opts.root.back() == '/'))
    return Status::InvalidArgument("ha.path", "'" + opts.root +
                                                  "' is not an absolute ZooKeeper path such as "
                                                  "/locsched");
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  std::unique_ptr<ZkCoordinator> c(new ZkCoordinator(opts));
  c->zh_ = zookeeper_init(opts.hosts.c_str(), Watcher, opts.session_timeout_ms, nullptr,
                          c->state_.get(), 0);
  if (!c->zh_)
    return Status::InvalidArgument(std::string(kZkSubject),
                                   "cannot use '" + opts.hosts + "': " + std::strerror(errno));
  // Queued now, sent with the first connection and again on every reconnection.
  if (!opts.auth.empty()) {
    const int rc = zoo_add_auth(c->zh_, "digest", opts.auth.data(),
                                static_cast<int>(opts.auth.size()), nullptr, nullptr);
    if (rc != ZOK)
      return Status::InvalidArgument(
          "ha.zookeeper_auth_file", std::string("ZooKeeper refused the credential: ") + zerror(rc));
  }
  *out = std::move(c);
  return Status::Ok();
}

ZkCoordinator::~ZkCoordinator() {
  if (zh_) zookeeper_close(zh_);  // joins the client's threads; no completion runs after it
}

Status ZkCoordinator::WaitConnected(int timeout_ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (session() == CoordSession::kConnecting && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (session() == CoordSession::kConnected) return Status::Ok();
  if (session() == CoordSession::kExpired) return Deposed("the ZooKeeper session ended");
  return Unavailable("no ZooKeeper server at " + opts_.hosts + " answered within " +
                     std::to_string(timeout_ms) + " ms");
}

// Calls are refused at once while disconnected, so the loop never waits on a
// request queued for a connection that may not come back.
Status ZkCoordinator::Ready() const {
  switch (session()) {
    case CoordSession::kConnected:
      return Status::Ok();
    case CoordSession::kExpired:
      return Deposed("the ZooKeeper session ended");
    case CoordSession::kConnecting:
      break;
  }
  return Unavailable("not connected to ZooKeeper at " + opts_.hosts + " (reconnecting)");
}

Status ZkCoordinator::Wait(const std::shared_ptr<Call>& call) const {
  std::unique_lock<std::mutex> lock(call->m);
  if (!call->cv.wait_for(lock, std::chrono::milliseconds(opts_.op_timeout_ms),
                         [&] { return call->done; }))
    return Unavailable(call->what + ": no answer from ZooKeeper within " +
                       std::to_string(opts_.op_timeout_ms) + " ms");
  return Status::Ok();
}

Status ZkCoordinator::Get(const std::string& path, std::string* data, bool* found, int* version) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "reading " + path;
  const int rc = zoo_aget(
      zh_, path.c_str(), 0,
      [](int code, const char* value, int len, const struct Stat* stat, const void* ctx) {
        std::shared_ptr<Call> c = Call::Take(ctx);
        if (code == ZOK) {
          c->data.assign(value ? value : "", value && len > 0 ? static_cast<size_t>(len) : 0);
          c->version = stat ? stat->version : -1;
        }
        c->Finish(code);
      },
      Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (Status s = Wait(call); !s.ok()) return s;
  *found = call->rc == ZOK;
  if (call->rc == ZNONODE) return Status::Ok();
  if (call->rc != ZOK) return FromRc(call->rc, call->what);
  if (data) *data = std::move(call->data);
  if (version) *version = call->version;
  return Status::Ok();
}

Status ZkCoordinator::Children(const std::string& path, std::vector<std::string>* names) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "listing " + path;
  const int rc = zoo_aget_children(
      zh_, path.c_str(), 0,
      [](int code, const struct String_vector* strings, const void* ctx) {
        std::shared_ptr<Call> c = Call::Take(ctx);
        if (code == ZOK && strings)
          for (int i = 0; i < strings->count; ++i) c->names.emplace_back(strings->data[i]);
        c->Finish(code);
      },
      Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (Status s = Wait(call); !s.ok()) return s;
  if (call->rc != ZOK) return FromRc(call->rc, call->what);
  *names = std::move(call->names);
  return Status::Ok();
}

// Creates a persistent node with `acl`; one that exists already is fine.
Status ZkCoordinator::Create(const std::string& path, std::string_view data,
                             const ACL_vector* acl) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "creating " + path;
  const int rc = zoo_acreate(
      zh_, path.c_str(), data.data(), static_cast<int>(data.size()), acl, 0,
      [](int code, const char*, const void* ctx) { Call::Take(ctx)->Finish(code); },
      Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (Status s = Wait(call); !s.ok()) return s;
  if (call->rc == ZNODEEXISTS) return Status::Ok();
  return FromRc(call->rc, call->what);
}

// The folders above the root hold nothing of ours and stay open (they may be shared
// with other users of the ensemble); the root and everything under it get acl_.
Status ZkCoordinator::Prepare() {
  for (size_t slash = opts_.root.find('/', 1);; slash = opts_.root.find('/', slash + 1)) {
    const bool root = slash == std::string::npos;
    if (Status s = Create(opts_.root.substr(0, slash), "", root ? acl_ : &ZOO_OPEN_ACL_UNSAFE);
        !s.ok())
      return s;
    if (root) break;
  }
  for (const char* dir : {"/election", "/epoch", "/log", "/snapshots"})
    if (Status s = Create(opts_.root + dir, "", acl_); !s.ok()) return s;
  return Status::Ok();
}

Status ZkCoordinator::Join(std::string_view instance) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "joining the election";
  const std::string path = opts_.root + "/election/n_";
  const int rc = zoo_acreate(
      zh_, path.c_str(), instance.data(), static_cast<int>(instance.size()), acl_,
      ZOO_EPHEMERAL_SEQUENTIAL,
      [](int code, const char* name, const void* ctx) {
        std::shared_ptr<Call> c = Call::Take(ctx);
        if (code == ZOK && name) c->data = name;
        c->Finish(code);
      },
      Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (Status s = Wait(call); !s.ok()) return s;
  if (call->rc != ZOK) return FromRc(call->rc, call->what);
  candidate_ = call->data.substr(call->data.rfind('/') + 1);
  return Status::Ok();
}

// The candidate with the lowest sequence number leads (names are n_<10 digits>).
Status ZkCoordinator::Leader(std::string* instance, bool* self) {
  std::vector<std::string> names;
  if (Status s = Children(opts_.root + "/election", &names); !s.ok()) return s;
  if (names.empty()) return Status::NotFound(std::string(kZkSubject), "no instance is a candidate");
  const auto seq = [](const std::string& n) { return n.substr(n.size() - 10); };
  const std::string& first = *std::min_element(
      names.begin(), names.end(), [&](const auto& a, const auto& b) { return seq(a) < seq(b); });
  bool found = false;
  if (Status s = Get(opts_.root + "/election/" + first, instance, &found); !s.ok()) return s;
  if (!found) return Unavailable("the leading candidate left while it was read");
  *self = first == candidate_;
  return Status::Ok();
}

Status ZkCoordinator::NewEpoch(std::string_view instance, uint64_t* epoch) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "starting a new epoch";
  const std::string path = opts_.root + "/epoch";
  const int rc = zoo_aset(
      zh_, path.c_str(), instance.data(), static_cast<int>(instance.size()), -1,
      [](int code, const struct Stat* stat, const void* ctx) {
        std::shared_ptr<Call> c = Call::Take(ctx);
        if (code == ZOK && stat) c->version = stat->version;
        c->Finish(code);
      },
      Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (Status s = Wait(call); !s.ok()) return s;
  if (call->rc != ZOK) return FromRc(call->rc, call->what);
  *epoch = static_cast<uint64_t>(call->version);
  return Status::Ok();
}

// A multi-op whose first op checks the epoch node's version: it applies whole or
// not at all, and not at all once another instance has started a newer epoch.
// Returns the first failing op's error; with wait false it does not wait.
Status ZkCoordinator::Fenced(uint64_t epoch, std::vector<std::pair<int, std::string>> ops,
                             bool wait) {
  if (Status s = Ready(); !s.ok()) return s;
  auto call = std::make_shared<Call>();
  call->what = "writing under epoch " + std::to_string(epoch);
  const std::string epoch_path = opts_.root + "/epoch";
  call->parts.reserve(ops.size());
  for (auto& [kind, path] : ops) {
    const size_t nl = path.find('\n');  // "path\ndata" for creates and sets
    MultiOp op{static_cast<MultiOp::Kind>(kind), path.substr(0, nl),
               nl == std::string::npos ? "" : path.substr(nl + 1)};
    call->parts.push_back(std::move(op));
  }
  call->ops.resize(call->parts.size() + 1);
  call->results.resize(call->ops.size());
  call->created.resize(call->parts.size() * 128);
  zoo_check_op_init(&call->ops[0], epoch_path.c_str(), static_cast<int>(epoch));
  for (size_t i = 0; i < call->parts.size(); ++i) {
    const MultiOp& p = call->parts[i];
    zoo_op_t* op = &call->ops[i + 1];
    if (p.kind == MultiOp::kCreate)
      zoo_create_op_init(op, p.path.c_str(), p.data.data(), static_cast<int>(p.data.size()), acl_,
                         0, &call->created[i * 128], 128);
    else if (p.kind == MultiOp::kDelete)
      zoo_delete_op_init(op, p.path.c_str(), -1);
    else
      zoo_set_op_init(op, p.path.c_str(), p.data.data(), static_cast<int>(p.data.size()), -1,
                      nullptr);
  }
  const int rc = zoo_amulti(
      zh_, static_cast<int>(call->ops.size()), call->ops.data(), call->results.data(),
      [](int code, const void* ctx) { Call::Take(ctx)->Finish(code); }, Call::Context(call));
  if (rc != ZOK) return FromRc(rc, call->what);
  if (!wait) return Status::Ok();
  if (Status s = Wait(call); !s.ok()) return s;
  if (call->rc == ZOK) return Status::Ok();
  if (call->results[0].err == ZBADVERSION || call->results[0].err == ZNONODE)
    return Deposed("epoch " + std::to_string(epoch) +
                   " was superseded: another instance became active");
  for (size_t i = 1; i < call->results.size(); ++i)
    if (call->results[i].err == ZNODEEXISTS)
      return Status::AlreadyExists(call->parts[i - 1].path, "exists already");
  return FromRc(call->rc, call->what);
}

std::string ZkCoordinator::LogPath(uint64_t index) const {
  return opts_.root + "/log/" + Digits(index, 20);
}

std::string ZkCoordinator::SnapshotPath(uint64_t index) const {
  return opts_.root + "/snapshots/" + Digits(index, 20);
}

// After a lost answer the entry may already be there: if it holds exactly this
// epoch's data, the earlier try went through.
Status ZkCoordinator::Append(uint64_t epoch, uint64_t index, std::string_view data) {
  const std::string stored = EncodeEntry(epoch, data);
  Status s = Fenced(epoch, {{MultiOp::kCreate, LogPath(index) + "\n" + stored}}, true);
  if (s.code() != Status::Code::kAlreadyExists) return s;
  std::string there;
  bool found = false;
  if (Status r = Get(LogPath(index), &there, &found); !r.ok()) return r;
  if (found && there == stored) return Status::Ok();
  return Deposed("log entry " + std::to_string(index) + " was written by another active");
}

Status ZkCoordinator::Read(uint64_t index, std::string* data, bool* found) {
  std::string stored;
  if (Status s = Get(LogPath(index), &stored, found); !s.ok() || !*found) return s;
  uint64_t epoch = 0;
  std::string_view body;
  if (!DecodeEntry(stored, &epoch, &body))
    return Status::Internal(LogPath(index), "log entry shorter than its epoch");
  data->assign(body);
  return Status::Ok();
}

// The snapshot node is created empty, filled chunk by chunk, and marked whole
// (its data set to the chunk count) last, each step fenced.
Status ZkCoordinator::WriteSnapshot(uint64_t epoch, uint64_t index,
                                    std::span<const std::string> chunks) {
  const std::string dir = SnapshotPath(index);
  Status s = Fenced(epoch, {{MultiOp::kCreate, dir + "\n"}}, true);
  if (s.code() == Status::Code::kAlreadyExists) {
    bool whole = false;
    s = ClearSnapshotAt(epoch, dir, &whole);
    if (s.ok() && whole) return s;
  }
  if (!s.ok()) return s;
  for (size_t i = 0; i < chunks.size() && s.ok(); ++i)
    s = Fenced(epoch, {{MultiOp::kCreate, dir + "/" + Digits(i, 6) + "\n" + chunks[i]}}, true);
  if (!s.ok()) return s;
  return Fenced(epoch, {{MultiOp::kSet, dir + "\n" + std::to_string(chunks.size())}}, true);
}

// A snapshot node at `dir` exists already (no entry was appended since it was taken,
// as after a takeover). Whole, it stays: *whole. Cut short by an active that was
// deposed or lost ZooKeeper mid-way, its chunks are deleted (fenced, up to 500 a
// multi-op) so that the caller writes them again.
Status ZkCoordinator::ClearSnapshotAt(uint64_t epoch, const std::string& dir, bool* whole) {
  std::string count;
  bool found = false;
  if (Status s = Get(dir, &count, &found); !s.ok()) return s;
  uint64_t n = 0;
  *whole = found && ParseIndex(count, &n);
  if (*whole || !found) return found ? Status::Ok() : Unavailable(dir + " vanished while read");
  std::vector<std::string> names;
  if (Status s = Children(dir, &names); !s.ok()) return s;
  for (size_t at = 0; at < names.size(); at += 500) {
    std::vector<std::pair<int, std::string>> ops;
    for (size_t i = at; i < std::min(names.size(), at + 500); ++i)
      ops.emplace_back(MultiOp::kDelete, dir + "/" + names[i]);
    if (Status s = Fenced(epoch, std::move(ops), true); !s.ok()) return s;
  }
  return Status::Ok();
}

// Whole snapshots, newest first, with their chunk counts.
Status ZkCoordinator::SnapshotIndexes(std::vector<std::pair<uint64_t, uint32_t>>* whole,
                                      std::vector<uint64_t>* partial) {
  std::vector<std::string> names;
  if (Status s = Children(opts_.root + "/snapshots", &names); !s.ok()) return s;
  std::vector<uint64_t> indexes;
  for (const std::string& n : names)
    if (uint64_t i = 0; ParseIndex(n, &i)) indexes.push_back(i);
  std::sort(indexes.rbegin(), indexes.rend());
  for (uint64_t i : indexes) {
    std::string count;
    bool found = false;
    if (Status s = Get(SnapshotPath(i), &count, &found); !s.ok()) return s;
    uint64_t n = 0;
    if (found && ParseIndex(count, &n))
      whole->emplace_back(i, static_cast<uint32_t>(n));
    else if (found && partial)
      partial->push_back(i);
  }
  return Status::Ok();
}

// Snapshots older than the newest whole one that never became whole (their active was
// deposed or cut off mid-way): each chunk, then the node, in fenced multi-ops that are
// not waited for (a delete lost in an outage is retried at the next trim).
Status ZkCoordinator::DropPartialSnapshots(uint64_t epoch, uint64_t newest_whole,
                                           const std::vector<uint64_t>& partial) {
  for (const uint64_t i : partial) {
    if (i >= newest_whole) continue;
    std::vector<std::string> chunks;
    if (Status s = Children(SnapshotPath(i), &chunks); !s.ok()) return s;
    std::vector<std::pair<int, std::string>> ops;
    for (const std::string& c : chunks) {
      ops.emplace_back(MultiOp::kDelete, SnapshotPath(i) + "/" + c);
      if (ops.size() == 500)
        if (Status s = Fenced(epoch, std::exchange(ops, {}), false); !s.ok()) return s;
    }
    ops.emplace_back(MultiOp::kDelete, SnapshotPath(i));
    if (Status s = Fenced(epoch, std::move(ops), false); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ZkCoordinator::ReadSnapshot(uint64_t* index, std::vector<std::string>* chunks) {
  std::vector<std::pair<uint64_t, uint32_t>> whole;
  if (Status s = SnapshotIndexes(&whole); !s.ok()) return s;
  *index = whole.empty() ? 0 : whole[0].first;
  if (whole.empty() || !chunks) return Status::Ok();
  chunks->clear();
  for (uint32_t i = 0; i < whole[0].second; ++i) {
    std::string chunk;
    bool found = false;
    const std::string path = SnapshotPath(*index) + "/" + Digits(i, 6);
    if (Status s = Get(path, &chunk, &found); !s.ok()) return s;
    if (!found) return Unavailable(path + " vanished while it was read (trimmed)");
    chunks->push_back(std::move(chunk));
  }
  return Status::Ok();
}

// Keeps the newest two whole snapshots and the log after the older one. The
// deletes go out in fenced multi-ops of up to 500 and are not waited for: a
// delete lost in an outage leaves an entry behind, never a gap.
Status ZkCoordinator::Trim(uint64_t epoch) {
  std::vector<std::pair<uint64_t, uint32_t>> whole;
  std::vector<uint64_t> partial;
  if (Status s = SnapshotIndexes(&whole, &partial); !s.ok()) return s;
  if (whole.empty()) return Status::Ok();
  if (Status s = DropPartialSnapshots(epoch, whole[0].first, partial); !s.ok()) return s;
  if (whole.size() < 2) return Status::Ok();
  const uint64_t keep_from = whole[1].first;  // entries <= this are covered twice
  const uint64_t first = whole.size() > 2 ? whole[2].first + 1 : 1;
  std::vector<std::pair<int, std::string>> ops;
  const auto flush = [&] {
    Status s = ops.empty() ? Status::Ok() : Fenced(epoch, std::move(ops), false);
    ops.clear();
    return s;
  };
  for (uint64_t i = first; i <= keep_from; ++i) {
    ops.emplace_back(MultiOp::kDelete, LogPath(i));
    if (ops.size() == 500)
      if (Status s = flush(); !s.ok()) return s;
  }
  if (Status s = flush(); !s.ok()) return s;
  // Older snapshots: each chunk, then the node (a multi fails whole on a missing chunk).
  for (size_t k = 2; k < whole.size(); ++k) {
    for (uint32_t c = 0; c < whole[k].second; ++c)
      ops.emplace_back(MultiOp::kDelete, SnapshotPath(whole[k].first) + "/" + Digits(c, 6));
    ops.emplace_back(MultiOp::kDelete, SnapshotPath(whole[k].first));
    if (Status s = flush(); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace locsched
