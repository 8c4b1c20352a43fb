#include "tools/common/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace locsched {

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)),
      total_(total ? total : 1),
      enabled_(enabled && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressBar::Update(uint64_t done, const std::string& note) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  Draw(done, note);
}

void ProgressBar::Finish(const std::string& note) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  Draw(total_, note);
  std::fputc('\n', stderr);
}

void ProgressBar::Draw(uint64_t done, const std::string& note) {
  constexpr int kWidth = 28;
  const double frac = static_cast<double>(done) / static_cast<double>(total_);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = frac > 0 ? secs * (1 - frac) / frac : 0;
  char bar[kWidth + 1];
  const int filled = static_cast<int>(frac * kWidth);
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  std::fprintf(stderr, "\r\033[K%s [%s] %5.1f%%  %.0fs elapsed, ~%.0fs left  %s", label_.c_str(),
               bar, 100 * frac, secs, eta, note.c_str());
  std::fflush(stderr);
}

}  // namespace locsched
