#include "daemon/ha/ha_journal.h"

#include <algorithm>

namespace locsched {

void HaJournal::Begin(uint64_t epoch, uint64_t next_index) {
  epoch_ = epoch;
  next_ = next_index;
  pending_.clear();
  sent_ = 0;
}

void HaJournal::Append(std::string_view payload) {
  FrameRecord(payload, &pending_);
}

Status HaJournal::Sync() {
  // A batch's first entry starts fresh ('F'); the rest continue its byte stream
  // ('C'). A retry rebuilds the same entry: nothing is appended while a failed
  // write holds the journal (EventLog::Admit).
  while (sent_ < pending_.size()) {
    size_t n = std::min(kMaxCoordEntryBytes - 1, pending_.size() - sent_);
    entry_.assign(1, sent_ == 0 ? 'F' : 'C');
    entry_.append(pending_, sent_, n);
    Status s = coord_.Append(epoch_, next_, entry_);
    if (!s.ok()) {
      if (IsFenced(s) && deposed_) deposed_(s);
      return s;
    }
    ++next_;
    ++logged_entries_;
    sent_ += n;
  }
  logged_bytes_ += pending_.size();
  pending_.clear();
  sent_ = 0;
  return Status::Ok();
}

uint64_t EntryReader::Add(std::string_view entry, std::vector<std::string>* records) {
  if (entry.empty()) return 0;
  uint64_t dropped = 0;
  if (entry[0] == 'F') {
    dropped = partial_.size();
    partial_.clear();
  }
  partial_.append(entry.substr(1));
  const JournalScan scan = ScanJournal(partial_);
  for (const std::string& r : scan.records) records->push_back(r);
  partial_.erase(0, scan.valid_bytes);
  return dropped;
}

}  // namespace locsched
