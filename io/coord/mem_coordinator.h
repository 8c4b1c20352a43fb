// MemCoordinator: the in-memory fake of the Coordinator for tests. Several
// MemCoordinators share one MemCoordService, as instances share one ZooKeeper;
// a test can take the service down or end a session to exercise outages and
// fencing. Any thread (the service has its own lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/coord/coordinator.h"

namespace locsched {

/// The shared "ZooKeeper" of a test.
struct MemCoordService {
  std::mutex m;
  bool up = true;             ///< false: every call is IoError
  uint64_t epoch = 0;         ///< the newest epoch
  uint64_t next_seq = 0;      ///< candidates' sequence
  uint64_t next_session = 1;  ///< sessions handed out
  std::map<uint64_t, std::pair<uint64_t, std::string>> candidates;  ///< seq -> session, instance
  std::map<uint64_t, std::string> log;                     ///< index -> epoch-prefixed entry
  std::map<uint64_t, std::vector<std::string>> snapshots;  ///< whole ones, by index
  std::map<uint64_t, bool> expired;                        ///< sessions that ended
  /// Ends `session`: its candidacy goes and its writes fail from now on.
  void Expire(uint64_t session);
};

/// One instance's session on a MemCoordService.
class MemCoordinator final : public Coordinator {
 public:
  /// A new session on `service`.
  explicit MemCoordinator(std::shared_ptr<MemCoordService> service);
  /// This session's id (for MemCoordService::Expire).
  uint64_t session_id() const { return session_; }

  CoordSession session() const override;
  Status WaitConnected(int timeout_ms) override;
  Status Prepare() override { return Check(); }
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
  Status Check() const;  // with the service's lock held
  Status CheckEpoch(uint64_t epoch) const;
  std::shared_ptr<MemCoordService> service_;
  uint64_t session_;
  uint64_t candidate_ = UINT64_MAX;
};

}  // namespace locsched
