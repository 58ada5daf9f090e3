// Peak live bytes of a trace under the interleavings of its threads that the recording allows.
// A trace keeps each thread's calls in order but not how the threads interleaved: its file
// order is chunk by chunk (a thread's 64 KiB of calls at a time), and its timestamps say which
// ~1 ms window each call fell in. So the peak live set of a multi-threaded program is known
// only up to that interleaving: this tracker measures it three ways, in one pass over the trace
// in file order: file order; windows in time order with the threads of a window one after
// another in ascending index order; the same with descending order. A program whose peak
// differs between them has a live set whose shape depends on its threads' timing (e.g. a
// producer's backlog ahead of its consumer), which a replay of one interleaving cannot predict.
// One thread: the three are the same figure.
//
// Example:
//   alloclab::trace::live_interleavings peaks(1000);   // 1 ms windows
//   peaks.change(0, 10, +64);   // thread 0 allocates 64 bytes at 10 us
//   peaks.change(1, 20, -64);   // thread 1 frees them at 20 us
//   const auto p = peaks.finish();  // p.file_order == p.time_order() == 64
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace alloclab::trace {

struct interleaving_peaks {
  std::uint64_t file_order = 0;       ///< peak live bytes in file order
  std::uint64_t time_ascending = 0;   ///< time windows, threads of a window in ascending order
  std::uint64_t time_descending = 0;  ///< the same, descending order
  bool timed = false;                 ///< the time orders are known (the trace has timestamps)
  /// The peak in recorded time order (ascending threads); file order when untimed.
  std::uint64_t time_order() const noexcept { return timed ? time_ascending : file_order; }
  std::uint64_t lowest() const noexcept {
    return timed ? std::min({file_order, time_ascending, time_descending}) : file_order;
  }
  std::uint64_t highest() const noexcept {
    return timed ? std::max({file_order, time_ascending, time_descending}) : file_order;
  }
  /// (highest − lowest) ÷ highest: 0 when every interleaving has the same peak.
  double spread() const noexcept {
    const std::uint64_t high = highest();
    return high == 0 ? 0 : static_cast<double>(high - lowest()) / static_cast<double>(high);
  }
};

class live_interleavings {
 public:
  /// `window_us`: the time windows' width (0: untimed, only file order is measured).
  explicit live_interleavings(std::uint64_t window_us) : window_us_(window_us) {}

  /// Thread `thread` changes the live bytes by `bytes` at `time_us`; returns where the change
  /// went (for a later amend()).
  std::size_t change(std::uint32_t thread, std::uint64_t time_us, std::int64_t bytes);
  /// A change whose size became known later (a free that preceded its allocation in file order):
  /// adds `bytes` to the window of `thread` that change() returned `where` for.
  void amend(std::uint32_t thread, std::size_t where, std::int64_t bytes);
  interleaving_peaks finish() const;

 private:
  struct window_change {
    std::uint64_t window = 0;
    std::int64_t net = 0;        ///< the thread's change over the window
    std::int64_t excursion = 0;  ///< the most its running change reached in the window
  };
  struct placed {
    std::uint64_t window;
    std::uint32_t thread;
    const window_change* change;
  };
  std::uint64_t peak_in_time_order(std::vector<placed>& all, bool ascending) const;

  std::uint64_t window_us_;
  std::int64_t live_ = 0;
  std::uint64_t file_peak_ = 0;
  std::vector<std::vector<window_change>> threads_;
};

}  // namespace alloclab::trace
