// ProgressBar: a one-line progress bar with rate and ETA on stderr, drawn only
// when stderr is a terminal. Used by the command-line tools for long work.
// Thread-safe: Update() may be called from worker threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace locsched {

/// A terminal progress bar; silent when stderr is not a TTY or when disabled.
class ProgressBar {
 public:
  /// A bar for `total` units; `enabled` false makes every call a no-op.
  ProgressBar(std::string label, uint64_t total, bool enabled);
  /// Redraws with `done` units complete and an optional trailing note (rate-limited to ~10 Hz).
  void Update(uint64_t done, const std::string& note = "");
  /// Draws the final state and ends the line.
  void Finish(const std::string& note = "");

 private:
  void Draw(uint64_t done, const std::string& note);

  std::string label_;
  uint64_t total_;
  bool enabled_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace locsched
