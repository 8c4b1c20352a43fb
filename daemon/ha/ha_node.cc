#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/ha/ha_node.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "daemon/journal_replay.h"

namespace locsched {

namespace {

// How often a standby looks for new entries and the active checks its session.
constexpr auto kPollInterval = std::chrono::milliseconds(5);
// Leadership is checked every this many polls.
constexpr uint64_t kLeaderEvery = 20;
// Entries one poll applies before yielding to requests.
constexpr int kEntriesPerPoll = 256;
// A standby checks that the log was not trimmed past it every this many polls.
constexpr uint64_t kTrimCheckEvery = 200;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

HaNode::HaNode(boost::asio::io_context& io, Coordinator& coord, Dispatcher& dispatcher,
               EventLog& log, DaemonClock& clock, const HaConfig& cfg, Deposed deposed)
    : io_(io),
      coord_(coord),
      dispatcher_(dispatcher),
      log_(log),
      clock_(clock),
      cfg_(cfg),
      deposed_(std::move(deposed)),
      journal_(coord, [this](const Status& s) { Fail(s); }),
      timer_(io) {}

const char* HaNode::role() const {
  if (active_) return "active";
  return started_ ? "standby" : "starting";
}

Status HaNode::Admit() const {
  if (active_) return Status::Ok();
  if (leader_.empty() || leader_ == cfg_.instance)
    return Status::NotActive(
        "", cfg_.instance + " is not active and no active is known yet; retry shortly");
  return Status::NotActive(leader_, cfg_.instance + " is a standby; the active is " + leader_);
}

Status HaNode::Start() {
  if (Status s = coord_.WaitConnected(cfg_.session_timeout_ms); !s.ok()) return s;
  if (Status s = coord_.Prepare(); !s.ok()) return s;
  if (Status s = LoadSnapshot(); !s.ok()) return s;
  if (Status s = CatchUp(true); !s.ok()) return s;
  if (Status s = coord_.Join(cfg_.instance); !s.ok()) return s;
  started_ = true;
  spdlog::info("ha: joined the election at {} as {}: snapshot at entry {}, {} entries applied",
               cfg_.path, cfg_.instance, snapshot_index_, applied_entries_);
  Poll();
  return Status::Ok();
}

void HaNode::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void HaNode::Fail(const Status& s) {
  if (stopped_) return;
  stopped_ = true;
  timer_.cancel();
  if (deposed_) deposed_(s);
}

// The newest whole snapshot, framed records in chunks, loaded into the empty dispatcher.
Status HaNode::LoadSnapshot() {
  std::vector<std::string> chunks;
  if (Status s = coord_.ReadSnapshot(&snapshot_index_, &chunks); !s.ok()) return s;
  if (snapshot_index_ == 0) return Status::Ok();
  std::string image;
  for (const std::string& c : chunks) image += c;
  const JournalScan scan = ScanJournal(image);
  if (scan.cut_bytes != 0)
    return Status::Internal("ha", "snapshot at entry " + std::to_string(snapshot_index_) +
                                      " is damaged: " + scan.cut_reason);
  if (Status s = dispatcher_.Load(scan.records); !s.ok()) return s;
  next_ = snapshot_index_ + 1;
  return Status::Ok();
}

// Applies entries from next_ on: all that exist (to_end), or a poll's worth.
Status HaNode::CatchUp(bool to_end) {
  for (int n = 0; to_end || n < kEntriesPerPoll; ++n) {
    std::string entry;
    bool found = false;
    if (Status s = coord_.Read(next_, &entry, &found); !s.ok()) return s;
    if (!found) break;
    if (Status s = Apply(entry); !s.ok()) return s;
    ++next_;
  }
  clock_.Release();
  return Status::Ok();
}

Status HaNode::Apply(const std::string& entry) {
  std::vector<std::string> records;
  if (uint64_t dropped = reader_.Add(entry, &records))
    spdlog::warn(
        "ha: dropped {} bytes of a batch a deposed active did not finish (never "
        "acknowledged)",
        dropped);
  for (const std::string& r : records)
    if (Status s = ReplayRecord(r, dispatcher_, clock_); !s.ok())
      spdlog::error("ha: entry {}: {}", next_, s.message());
  ++applied_entries_;
  applied_records_ += records.size();
  return Status::Ok();
}

void HaNode::Poll() {
  timer_.expires_after(kPollInterval);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    Tick();
    if (!stopped_) Poll();
  });
}

// Outages are logged once and retried; a fence or an ended session is final.
void HaNode::Tick() {
  ++ticks_;
  Status s =
      coord_.session() == CoordSession::kExpired
          ? Status::FailedPrecondition(std::string(kFencedSubject), "the ZooKeeper session ended")
          : Status::Ok();
  if (s.ok() && !active_) s = CatchUp(false);
  if (s.ok() && !active_ && ticks_ % kTrimCheckEvery == 0) s = CheckNotTrimmed();
  if (s.ok() && !active_ && ticks_ % kLeaderEvery == 1) s = CheckLeader();
  if (s.ok() && active_) MaybeSnapshot();
  if (IsFenced(s)) return Fail(s);
  if (!s.ok() && s.message() != last_error_) spdlog::warn("ha: {}", s.message());
  last_error_ = s.ok() ? "" : s.message();
}

Status HaNode::CheckLeader() {
  bool self = false;
  std::string leader;
  Status s = coord_.Leader(&leader, &self);
  if (s.code() == Status::Code::kNotFound) return Status::Ok();
  if (!s.ok()) return s;
  if (leader != leader_) spdlog::info("ha: the active is {}", leader);
  leader_ = leader;
  return self ? Promote() : Status::Ok();
}

// Fence first, then read to the end: once the epoch is ours no earlier active
// can append, so the end read now is the end.
Status HaNode::Promote() {
  const double start = Now();
  uint64_t epoch = 0;
  if (Status s = coord_.NewEpoch(cfg_.instance, &epoch); !s.ok()) return s;
  if (Status s = CatchUp(true); !s.ok()) return s;
  if (Status s = CheckNotTrimmed(); !s.ok()) return s;
  journal_.Begin(epoch, next_);
  log_.Attach(&journal_);
  active_ = true;
  promoted_at_ = Now();
  spdlog::info("ha: active at {} under epoch {}: caught up to entry {} in {:.1f} ms", cfg_.instance,
               epoch, next_ - 1, (promoted_at_ - start) * 1000);
  return Status::Ok();
}

// Entries up to the newest snapshot were all written before it; if the next one
// is missing although a snapshot covers it, the log was trimmed past this
// instance, which can then never catch up (nor take over): it must restart and
// load the snapshot.
Status HaNode::CheckNotTrimmed() {
  uint64_t newest = 0;
  if (Status s = coord_.ReadSnapshot(&newest, nullptr); !s.ok()) return s;
  if (newest < next_) return Status::Ok();
  std::string entry;
  bool found = false;
  if (Status s = coord_.Read(next_, &entry, &found); !s.ok() || found) return s;
  return Status::FailedPrecondition(
      std::string(kFencedSubject),
      "this standby fell behind the trimmed log (its next entry " + std::to_string(next_) +
          " is gone, the newest snapshot is at entry " + std::to_string(newest) +
          "); restarting loads that snapshot");
}

// Past ha.snapshot_mb or ha.snapshot_entries; a failure waits 5 s.
void HaNode::MaybeSnapshot() {
  if (journal_.size() < (cfg_.snapshot_mb << 20) &&
      journal_.entries_since_snapshot() < cfg_.snapshot_entries)
    return;
  if (Now() < next_snapshot_try_ || log_.held() || log_.unsynced() > 0) return;
  if (Status s = Snapshot(nullptr); !s.ok()) next_snapshot_try_ = Now() + 5;
}

Status HaNode::Snapshot(JsonWriter* reply) {
  if (!active_) return Admit();
  if (Status s = log_.Sync(); !s.ok()) return s;
  const double start = Now();
  std::string image;
  uint64_t records = 0;
  dispatcher_.Save([&](std::string_view record) {
    FrameRecord(record, &image);
    ++records;
  });
  std::vector<std::string> chunks;
  for (size_t at = 0; at < image.size(); at += kMaxCoordEntryBytes)
    chunks.push_back(image.substr(at, kMaxCoordEntryBytes));
  const uint64_t index = journal_.last_index();
  Status s = coord_.WriteSnapshot(journal_.epoch(), index, chunks);
  if (s.ok()) s = coord_.Trim(journal_.epoch());
  if (IsFenced(s)) Fail(s);
  if (!s.ok()) {
    spdlog::error("ha: snapshot at entry {} failed: {}", index, s.message());
    return s;
  }
  journal_.SnapshotTaken();
  ++snapshots_;
  spdlog::info("ha: snapshot at entry {}: {} records, {} bytes in {} chunks, {:.0f} ms", index,
               records, image.size(), chunks.size(), (Now() - start) * 1000);
  if (reply)
    reply->Field("entry", index).Field("records", records).Field("bytes", uint64_t{image.size()});
  return Status::Ok();
}

void HaNode::WriteStatus(JsonWriter& w) const {
  w.Key("ha").BeginObject().Field("role", role()).Field("instance", cfg_.instance);
  w.Field("active", leader_).Field("epoch", journal_.epoch());
  w.Field("applied_entries", applied_entries_).Field("applied_records", applied_records_);
  w.Field("next_entry", active_ ? journal_.last_index() + 1 : next_);
  w.Field("snapshots", snapshots_)
      .Field("session", coord_.session() == CoordSession::kConnected    ? "connected"
                        : coord_.session() == CoordSession::kConnecting ? "connecting"
                                                                        : "expired");
  w.EndObject();
}

void HaNode::AppendMetrics(std::string* text) const {
  const auto series = [text](const char* name, const char* help, const char* type, uint64_t v) {
    *text += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
             name + " " + std::to_string(v) + "\n";
  };
  series("locsched_ha_active", "1 while this instance is the active one.", "gauge",
         active_ ? 1 : 0);
  series("locsched_ha_session_connected", "1 while connected to ZooKeeper.", "gauge",
         coord_.session() == CoordSession::kConnected ? 1 : 0);
  series("locsched_ha_epoch", "The epoch this instance writes under (0: never active).", "gauge",
         journal_.epoch());
  series("locsched_ha_applied_entries_total", "Log entries applied as a standby.", "counter",
         applied_entries_);
  series("locsched_ha_snapshots_total", "Snapshots written into ZooKeeper.", "counter", snapshots_);
}

}  // namespace locsched
