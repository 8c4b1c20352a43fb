#include "io/coord/mem_coordinator.h"

#include "io/coord/zk_coordinator.h"

namespace locsched {

void MemCoordService::Expire(uint64_t session) {
  std::lock_guard<std::mutex> lock(m);
  expired[session] = true;
  std::erase_if(candidates, [&](const auto& c) { return c.second.first == session; });
}

MemCoordinator::MemCoordinator(std::shared_ptr<MemCoordService> service)
    : service_(std::move(service)) {
  std::lock_guard<std::mutex> lock(service_->m);
  session_ = service_->next_session++;
}

CoordSession MemCoordinator::session() const {
  std::lock_guard<std::mutex> lock(service_->m);
  if (service_->expired.count(session_)) return CoordSession::kExpired;
  return service_->up ? CoordSession::kConnected : CoordSession::kConnecting;
}

Status MemCoordinator::WaitConnected(int) {
  std::lock_guard<std::mutex> lock(service_->m);
  return Check();
}

Status MemCoordinator::Check() const {
  if (service_->expired.count(session_))
    return Status::FailedPrecondition(std::string(kFencedSubject), "the session ended");
  if (!service_->up) return Status::IoError("ha.zookeeper", "the service is down");
  return Status::Ok();
}

Status MemCoordinator::CheckEpoch(uint64_t epoch) const {
  if (Status s = Check(); !s.ok()) return s;
  if (epoch != service_->epoch)
    return Status::FailedPrecondition(std::string(kFencedSubject),
                                      "epoch " + std::to_string(epoch) + " was superseded");
  return Status::Ok();
}

Status MemCoordinator::Join(std::string_view instance) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = Check(); !s.ok()) return s;
  candidate_ = service_->next_seq++;
  service_->candidates[candidate_] = {session_, std::string(instance)};
  return Status::Ok();
}

Status MemCoordinator::Leader(std::string* instance, bool* self) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = Check(); !s.ok()) return s;
  if (service_->candidates.empty())
    return Status::NotFound("ha.zookeeper", "no instance is a candidate");
  const auto& first = *service_->candidates.begin();
  *instance = first.second.second;
  *self = first.first == candidate_;
  return Status::Ok();
}

Status MemCoordinator::NewEpoch(std::string_view, uint64_t* epoch) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = Check(); !s.ok()) return s;
  *epoch = ++service_->epoch;
  return Status::Ok();
}

Status MemCoordinator::Append(uint64_t epoch, uint64_t index, std::string_view data) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = CheckEpoch(epoch); !s.ok()) return s;
  const std::string stored = EncodeEntry(epoch, data);
  auto [it, fresh] = service_->log.emplace(index, stored);
  if (fresh || it->second == stored) return Status::Ok();
  return Status::FailedPrecondition(std::string(kFencedSubject),
                                    "log entry " + std::to_string(index) + " exists");
}

Status MemCoordinator::Read(uint64_t index, std::string* data, bool* found) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = Check(); !s.ok()) return s;
  auto it = service_->log.find(index);
  *found = it != service_->log.end();
  if (*found) data->assign(it->second.substr(8));
  return Status::Ok();
}

Status MemCoordinator::WriteSnapshot(uint64_t epoch, uint64_t index,
                                     std::span<const std::string> chunks) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = CheckEpoch(epoch); !s.ok()) return s;
  service_->snapshots[index].assign(chunks.begin(), chunks.end());
  return Status::Ok();
}

Status MemCoordinator::ReadSnapshot(uint64_t* index, std::vector<std::string>* chunks) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = Check(); !s.ok()) return s;
  *index = service_->snapshots.empty() ? 0 : service_->snapshots.rbegin()->first;
  if (*index && chunks) *chunks = service_->snapshots.rbegin()->second;
  return Status::Ok();
}

Status MemCoordinator::Trim(uint64_t epoch) {
  std::lock_guard<std::mutex> lock(service_->m);
  if (Status s = CheckEpoch(epoch); !s.ok()) return s;
  auto& snaps = service_->snapshots;
  if (snaps.size() < 2) return Status::Ok();
  const uint64_t keep_from = std::prev(snaps.end(), 2)->first;
  std::erase_if(service_->log, [&](const auto& e) { return e.first <= keep_from; });
  std::erase_if(snaps, [&](const auto& e) { return e.first < keep_from; });
  return Status::Ok();
}

}  // namespace locsched
