// RateEstimator: learns a slot's service rate at each locality level (alpha local,
// beta rack-local, gamma off-rack) from observed task durations, with the configured
// rates as the prior. Called by the daemon's Engine on each task completion and by the
// trace simulator. Pure and single-threaded: the caller supplies the durations.
#pragma once

#include <cstdint>

#include "algorithms/core/locality.h"

namespace locsched {

/// Exponentially weighted mean durations, blended with a prior, turned into rates. The
/// rack-local and off-rack priors follow the learnt local rate at their configured ratio.
class RateEstimator {
 public:
  /// Prior rates (tasks per second per slot) and the window, in completions, to average
  /// over. The rack-local prior is sqrt(alpha * gamma) unless given.
  RateEstimator(double alpha, double gamma, uint64_t window, double beta = 0);

  /// Records one completed task that ran for `seconds` at `level`. Non-finite or negative
  /// durations are ignored (clock trouble, not data).
  void Observe(Locality level, double seconds);
  /// Records one completed task that ran locally, or off its holders (off-rack).
  void Observe(bool local, double seconds) {
    Observe(local ? Locality::kNode : Locality::kOffRack, seconds);
  }
  /// Restarts from new prior rates and window, forgetting what was observed (beta 0:
  /// sqrt(alpha * gamma)).
  void Reset(double alpha, double gamma, uint64_t window, double beta = 0);

  /// Learnt local rate.
  double alpha() const;
  /// Learnt rack-local rate, between gamma and alpha (its prior: beta / alpha of the
  /// configured rates times the learnt alpha).
  double beta() const;
  /// Learnt off-rack rate, never above alpha (MaxWeight needs gamma <= alpha); its prior is
  /// gamma / alpha of the configured rates times the learnt alpha.
  double gamma() const;
  /// Local completions observed since the last Reset.
  uint64_t local_samples() const { return local_.samples; }
  /// Rack-local completions observed since the last Reset.
  uint64_t rack_samples() const { return rack_.samples; }
  /// Off-rack completions observed since the last Reset.
  uint64_t remote_samples() const { return remote_.samples; }

  /// The decayed observations, as a snapshot saves them.
  struct Observed {
    double local_sum = 0, local_weight = 0, remote_sum = 0, remote_weight = 0;
    uint64_t local_samples = 0, remote_samples = 0;
    double rack_sum = 0, rack_weight = 0;
    uint64_t rack_samples = 0;
  };
  /// What has been observed since the last Reset.
  Observed observed() const;
  /// Puts back saved observations, keeping the current prior and window.
  void Restore(const Observed& o);

  /// Weight of the prior, in pseudo-observations.
  static constexpr double kPriorWeight = 10;

 private:
  struct Mean {
    double prior_rate = 1;
    double sum = 0;     // decayed sum of durations
    double weight = 0;  // decayed count
    uint64_t samples = 0;
    double Rate() const;
  };
  void Add(Mean& m, double seconds) const;
  double ScaledRate(const Mean& m) const;

  Mean local_, rack_, remote_;
  double decay_ = 1;
};

}  // namespace locsched
