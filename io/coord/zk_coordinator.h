// ZkCoordinator: the Coordinator on ZooKeeper's C client (libzookeeper-mt).
// Layout under the root path R: R/election/n_<seq> (ephemeral sequential
// candidates, data = instance address), R/epoch (its version is the epoch),
// R/log/<index> (20 digits, data = 8-byte epoch + entry), R/snapshots/<index>
// (data = chunk count once whole) with children <chunk> (6 digits). Every write
// is a multi-op whose first op checks R/epoch's version. With ZkOptions::auth,
// the session authenticates (digest) and R and everything under it get an ACL
// granting that identity alone every right (ZOO_CREATOR_ALL_ACL). The client's own
// threads deliver completions; calls wait for them with a timeout. Event-loop
// thread for the calls; session() from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "io/coord/coordinator.h"

typedef struct _zhandle zhandle_t;
struct ACL_vector;

namespace locsched {

/// What a ZkCoordinator connects to.
struct ZkOptions {
  std::string hosts;              ///< "host:port,host:port"
  std::string root;               ///< e.g. "/locsched"
  int session_timeout_ms = 4000;  ///< the session dies this long after the last contact
  int op_timeout_ms = 1000;       ///< a call gives up after this long (IoError)
  /// "USER:PASSWORD" for digest authentication: the nodes at and under `root` are
  /// created with an ACL granting that identity alone every right. "" = open ACL.
  std::string auth;
};

/// Reads ZkOptions::auth from `path` (its first line, whitespace trimmed); the error
/// names ha.zookeeper_auth_file and says what is wrong (unreadable, not USER:PASSWORD).
Status ReadZooKeeperAuth(const std::string& path, std::string* auth);

/// The Coordinator on ZooKeeper.
class ZkCoordinator final : public Coordinator {
 public:
  /// Starts connecting (the C client's threads); check WaitConnected. The error names
  /// `ha.zookeeper` if the host list is refused.
  static Status Open(const ZkOptions& opts, std::unique_ptr<ZkCoordinator>* out);
  ~ZkCoordinator() override;

  CoordSession session() const override { return state_->load(); }
  Status WaitConnected(int timeout_ms) override;
  Status Prepare() override;
  Status Join(std::string_view instance) override;
  Status Leader(std::string* instance, bool* self) override;
  Status NewEpoch(std::string_view instance, uint64_t* epoch) override;
  Status Append(uint64_t epoch, uint64_t index, std::string_view data) override;
  Status Read(uint64_t index, std::string* data, bool* found) override;
  Status WriteSnapshot(uint64_t epoch, uint64_t index,
                       std::span<const std::string> chunks) override;
  Status ReadSnapshot(uint64_t* index, std::vector<std::string>* chunks) override;
  Status Trim(uint64_t epoch) override;

 private:
  explicit ZkCoordinator(ZkOptions opts);
  struct Call;
  Status Ready() const;
  Status Wait(const std::shared_ptr<Call>& call) const;
  Status Get(const std::string& path, std::string* data, bool* found, int* version = nullptr);
  Status Children(const std::string& path, std::vector<std::string>* names);
  Status Create(const std::string& path, std::string_view data, const ACL_vector* acl);
  Status Fenced(uint64_t epoch, std::vector<std::pair<int, std::string>> ops, bool wait);
  Status ClearSnapshotAt(uint64_t epoch, const std::string& dir, bool* whole);
  Status SnapshotIndexes(std::vector<std::pair<uint64_t, uint32_t>>* whole,
                         std::vector<uint64_t>* partial = nullptr);
  Status DropPartialSnapshots(uint64_t epoch, uint64_t newest_whole,
                              const std::vector<uint64_t>& partial);
  std::string LogPath(uint64_t index) const;
  std::string SnapshotPath(uint64_t index) const;

  ZkOptions opts_;
  const ACL_vector* acl_;  // of every node at and under the root: open, or the creator's
  zhandle_t* zh_ = nullptr;
  // Shared with the watcher, which the C client may call while this closes.
  std::shared_ptr<std::atomic<CoordSession>> state_;
  std::string candidate_;  // our election node's name, "" before Join
};

/// The 8-byte little-endian epoch prefix of a log entry, and the entry after it.
std::string EncodeEntry(uint64_t epoch, std::string_view data);
/// Splits an encoded entry; false if it is shorter than its prefix.
bool DecodeEntry(std::string_view stored, uint64_t* epoch, std::string_view* data);

}  // namespace locsched
