#include "trace/live_interleavings.hpp"

namespace alloclab::trace {

std::size_t live_interleavings::change(std::uint32_t thread, std::uint64_t time_us,
                                       std::int64_t bytes) {
  live_ += bytes;
  if (live_ > 0) file_peak_ = std::max(file_peak_, static_cast<std::uint64_t>(live_));
  if (window_us_ == 0) return 0;
  if (threads_.size() <= thread) threads_.resize(thread + std::size_t{1});
  std::vector<window_change>& windows = threads_[thread];
  const std::uint64_t window = time_us / window_us_;
  if (windows.empty() || windows.back().window != window) windows.push_back({window, 0, 0});
  window_change& w = windows.back();
  w.net += bytes;
  w.excursion = std::max(w.excursion, w.net);
  return windows.size() - 1;
}

void live_interleavings::amend(std::uint32_t thread, std::size_t where, std::int64_t bytes) {
  live_ += bytes;  // file order: the allocation and the free that preceded it cancel
  if (window_us_ == 0 || thread >= threads_.size() || where >= threads_[thread].size()) return;
  threads_[thread][where].net += bytes;
}

std::uint64_t live_interleavings::peak_in_time_order(std::vector<placed>& all,
                                                     bool ascending) const {
  std::sort(all.begin(), all.end(), [ascending](const placed& a, const placed& b) {
    if (a.window != b.window) return a.window < b.window;
    return ascending ? a.thread < b.thread : a.thread > b.thread;
  });
  std::int64_t live = 0, peak = 0;
  for (const placed& p : all) {
    peak = std::max(peak, live + p.change->excursion);
    live += p.change->net;
    peak = std::max(peak, live);
  }
  return static_cast<std::uint64_t>(peak);
}

interleaving_peaks live_interleavings::finish() const {
  interleaving_peaks p;
  p.file_order = file_peak_;
  p.timed = window_us_ != 0;
  if (!p.timed) return p;
  std::vector<placed> all;
  for (std::uint32_t t = 0; t < threads_.size(); ++t)
    for (const window_change& w : threads_[t]) all.push_back({w.window, t, &w});
  p.time_ascending = peak_in_time_order(all, true);
  p.time_descending = peak_in_time_order(all, false);
  return p;
}

}  // namespace alloclab::trace
