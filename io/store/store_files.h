// StoreFiles: the files beside journal.path that the daemon may touch, and how it
// treats one that is damaged or not its own: the start-time checks (never rename
// or delete a file the daemon did not create), keeping bytes aside under a new
// name, and `locschedd --recover` (salvage a damaged journal). Called by
// SnapshotStore::Open and the daemon's --recover; one thread, before serving.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace locsched {

/// Checks the files of journal `path` (P, P.prev, P.next, P.snap, P.snap.prev,
/// P.snap.tmp) before anything is renamed: the directory exists and is writable,
/// each file is absent or a regular file (P may be a character device such as
/// /dev/null), and P and P.prev hold journal records. The error's subject is the file.
Status CheckStorePaths(const std::string& path);

/// Creates `base`.N for the first free N >= 1 (never replacing a file): with the
/// bytes given, or as a hard link to `link_from` when that is not empty (the file
/// itself kept, untouched). The new name goes to *made.
Status CreateAside(const std::string& base, std::string_view bytes, const std::string& link_from,
                   std::string* made);

/// What --recover did to one journal file.
struct SalvageReport {
  std::vector<std::string> lines;  ///< for the operator, one fact per line
  uint64_t files_repaired = 0;     ///< damaged journals kept aside and rewritten
  uint64_t records_kept = 0;       ///< valid records written back
  uint64_t records_lost = 0;       ///< records known lost (each lost stretch counts >= 1)
};

/// For P.prev and P: a journal with damage followed by valid records is kept
/// aside untouched (a hard link P.damaged.N, or P.prev.damaged.N) and rewritten
/// with every valid record, resynchronising after each bad stretch; a lost
/// generation header is written again from the neighbouring file's. Files
/// without such damage are left alone (a torn tail is cut at the next start).
Status SalvageStore(const std::string& path, SalvageReport* report);

}  // namespace locsched
