// Clock: the daemon's only source of time, behind an interface so tests can
// drive it (after leveldb's Env). The Engine reads it to time tasks for rate
// learning and to report uptime. Called on the event-loop thread only.
#pragma once

#include <chrono>

namespace locsched {

/// Monotonic seconds since an arbitrary start.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Seconds since this clock's epoch; never decreases.
  virtual double Now() const = 0;
  /// A reading of the time now, even while Now() is held for a burst (timings
  /// inside a burst); the same as Now() unless overridden.
  virtual double Fresh() const { return Now(); }
};

/// The real monotonic clock.
class SteadyClock final : public Clock {
 public:
  /// Seconds of std::chrono::steady_clock.
  double Now() const override {
    const auto d = std::chrono::steady_clock::now().time_since_epoch();
    return std::chrono::duration<double>(d).count();
  }
};

/// Wall-clock seconds (so task timings continue across a restart), except that
/// journal replay pins it to each record's time, and that the CommitStep holds it
/// still for a burst of lines, until its step runs (one clock read, not one per
/// event and several per heartbeat: 2-3% of the daemon's time at 400k events/s).
class DaemonClock final : public Clock {
 public:
  /// The pinned time while replaying, else the held time, else the system clock.
  double Now() const override {
    if (pinned_ >= 0) return pinned_;
    if (held_ >= 0) return held_;
    return Read();
  }
  /// The pinned time while replaying, else the system clock (never the held time).
  double Fresh() const override { return pinned_ >= 0 ? pinned_ : Read(); }
  /// Pins the clock to t (a replayed record's time).
  void Pin(double t) { pinned_ = t; }
  /// Lets the clock run again.
  void Release() { pinned_ = -1; }
  /// Reads the time once and answers it until Unhold (the lines of one burst).
  void Hold() { held_ = Read(); }
  /// Ends Hold.
  void Unhold() { held_ = -1; }

 private:
  static double Read() {
    const auto d = std::chrono::system_clock::now().time_since_epoch();
    return std::chrono::duration<double>(d).count();
  }

  double pinned_ = -1;
  double held_ = -1;
};

}  // namespace locsched
