// FakeClock: a Clock that tests move by hand, so durations (and the rates the
// Engine learns from them) are exact. Test-only; single-threaded.
#pragma once

#include "daemon/clock.h"

namespace locsched {

/// Time that only moves when a test says so.
class FakeClock final : public Clock {
 public:
  /// The current fake time.
  double Now() const override { return now_; }
  /// Moves time forward by `seconds`.
  void Advance(double seconds) { now_ += seconds; }

 private:
  double now_ = 1000;
};

}  // namespace locsched
