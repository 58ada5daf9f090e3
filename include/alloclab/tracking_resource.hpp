// alloclab/tracking_resource.hpp: an adaptor that counts what passes through
// it, so a buffer can be sized from a measurement instead of a guess.
//
// `tracking_resource` forwards to its upstream and records blocks and bytes as
// {current, peak, total}, a log2 size histogram, and the footprint the same
// sequence of requests would have in a bump arena (`monotonic_footprint()`:
// an arena never reuses freed memory, so it needs the sum of every request,
// not the peak of live bytes; seed 000's undersized buffer missed exactly
// that). Scopes measure one block of code; they nest, close innermost first
// (`tracking_scope::finish()` out of order throws `std::logic_error`, and
// `pop_scope()` with none open throws `std::out_of_range`, as RMM's
// statistics adaptor does), and `reset()` restarts the open ones too. A
// failed upstream allocation changes no counter; a deallocation is counted
// before it is forwarded, so the counters are right even if the upstream
// throws; one the tracker cannot account for never drives a counter below
// zero and is counted in `unmatched_deallocations()`. The footprint
// saturates at SIZE_MAX.
//
// Example:
//   #include <alloclab/tracking_resource.hpp>
//   #include <memory_resource>
//   #include <vector>
//
//   int main() {
//     alloclab::tracking_resource tracker;
//     {
//       alloclab::tracking_scope scope{tracker};
//       std::pmr::vector<double> samples{&tracker};
//       for (int i = 0; i < 1000; ++i) samples.push_back(i);  // grows 11 times
//       const alloclab::scope_report report = scope.finish();
//       if (report.allocations < 2 || report.peak_bytes < 1000 * sizeof(double)) return 1;
//     }
//     // An arena for this workload needs every growth step, not just the peak.
//     const std::size_t arena_bytes = tracker.suggested_arena_size(0.25);
//     return arena_bytes > tracker.bytes().peak && tracker.bytes().current == 0 ? 0 : 1;
//   }
//
// Bounds: allocate and deallocate O(1) plus the upstream's call (a scope's
// push may allocate from the heap).
//
// Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <memory_resource>
#include <stdexcept>
#include <vector>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"
#include "failure.hpp"

namespace alloclab {

// One quantity seen three ways.
struct usage {
  std::size_t current = 0;  // live now
  std::size_t peak = 0;     // most live at once
  std::size_t total = 0;    // ever allocated
};

// What happened between push_scope() and pop_scope().
struct scope_report {
  std::size_t allocations = 0;          // requests made inside the scope
  std::size_t bytes_allocated = 0;      // sum of their sizes
  std::size_t peak_bytes = 0;           // most bytes live at once above the level at entry
  std::size_t monotonic_footprint = 0;  // bump-arena bytes the scope's requests need
};

class tracking_resource final : public detail::pmr_bridge<tracking_resource> {
 public:
  // histogram()[k] counts requests of size in [2^(k-1), 2^k); [0] counts size 0.
  using histogram_type = std::array<std::size_t, 65>;

  explicit tracking_resource(std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : upstream_(upstream) {}
  tracking_resource(const tracking_resource&) = delete;
  tracking_resource& operator=(const tracking_resource&) = delete;

  // Refuses a size over PTRDIFF_MAX (std::bad_array_new_length) before the upstream sees it.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    detail::require_representable_size(bytes);
    void* p = upstream_->allocate(bytes, alignment);
    record_allocation(bytes, alignment);
    return p;
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    record_deallocation(bytes);
    upstream_->deallocate(p, bytes, alignment);
  }

  const usage& blocks() const noexcept { return blocks_; }
  const usage& bytes() const noexcept { return bytes_; }
  const histogram_type& histogram() const noexcept { return histogram_; }
  std::size_t unmatched_deallocations() const noexcept { return unmatched_; }

  // Bytes a bump arena on a max_align_t-aligned buffer consumes for every
  // request since construction or reset(), alignment padding included: exact
  // while no request asks more than alignof(max_align_t); a more aligned one
  // counts the most padding any such buffer could need (where the buffer lies
  // decides), so the footprint is then an upper bound, reached by some buffer.
  std::size_t monotonic_footprint() const noexcept { return footprint_; }

  // An arena size for this workload: the monotonic footprint plus `margin`
  // (0.25 = 25 %), rounded up to 64 bytes; saturates below SIZE_MAX.
  std::size_t suggested_arena_size(double margin = 0.25) const noexcept {
    constexpr std::size_t largest = SIZE_MAX & ~std::size_t{63};
    const double with_margin = static_cast<double>(footprint_) * (1.0 + margin) + 1.0;
    if (!(with_margin < static_cast<double>(largest))) return largest;
    const auto bytes = static_cast<std::size_t>(with_margin);
    return bytes > largest ? largest : (bytes + 63) & ~std::size_t{63};
  }

  // Forgets peaks, totals, histogram and footprint; live counts stay. Open
  // scopes restart from here too.
  void reset() noexcept {
    blocks_ = {blocks_.current, blocks_.current, 0};
    bytes_ = {bytes_.current, bytes_.current, 0};
    histogram_ = {};
    footprint_ = 0;
    model_offset_ = 0;
    model_alignment_ = alignof(std::max_align_t);
    unmatched_ = 0;
    scope_peak_ = bytes_.current;
    for (open_scope& scope : scopes_) scope = {bytes_.current, 0, 0, 0, bytes_.current};
  }

  // Opens a nested measurement and returns its depth (1 = outermost);
  // pop_scope() closes the innermost.
  std::size_t push_scope() {
    scopes_.push_back({bytes_.current, blocks_.total, bytes_.total, footprint_, scope_peak_});
    scope_peak_ = bytes_.current;
    return scopes_.size();
  }

  // Closes the innermost scope; std::out_of_range when none is open.
  scope_report pop_scope() {
    if (scopes_.empty())
      fail<std::out_of_range>("alloclab::tracking_resource: no scope is open",
                              "alloclab::tracking_resource: no scope is open");
    const open_scope entry = scopes_.back();
    scopes_.pop_back();
    scope_report report{
        blocks_.total - entry.allocations_at_entry, bytes_.total - entry.bytes_total_at_entry,
        scope_peak_ > entry.current_at_entry ? scope_peak_ - entry.current_at_entry : 0,
        footprint_ - entry.footprint_at_entry};
    scope_peak_ = entry.outer_peak > scope_peak_ ? entry.outer_peak : scope_peak_;
    return report;
  }

  std::size_t open_scopes() const noexcept { return scopes_.size(); }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  struct open_scope {
    std::size_t current_at_entry;
    std::size_t allocations_at_entry;
    std::size_t bytes_total_at_entry;
    std::size_t footprint_at_entry;
    std::size_t outer_peak;
  };

  static void add(usage& u, std::size_t amount) noexcept {
    u.current += amount;
    u.total += amount;
    if (u.current > u.peak) u.peak = u.current;
  }

  static std::size_t bucket_of(std::size_t bytes) noexcept {
    std::size_t bucket = 0;
    while (bytes != 0) {
      ++bucket;
      bytes >>= 1;
    }
    return bucket;
  }

  void record_allocation(std::size_t bytes, std::size_t alignment) noexcept {
    add(blocks_, 1);
    add(bytes_, bytes);
    ++histogram_[bucket_of(bytes)];
    advance_footprint(bytes ? bytes : 1, alignment);
    if (bytes_.current > scope_peak_) scope_peak_ = bytes_.current;
  }

  // The model arena's cursor sits `model_offset_` bytes past an address known
  // to be aligned to `model_alignment_` (at first the buffer's start, at
  // alignof(max_align_t)). A request aligned to at most that is placed
  // exactly; a more aligned one pads as much as it could, and its start
  // becomes the new known address.
  void advance_footprint(std::size_t size, std::size_t alignment) noexcept {
    bool overflow = false;
    const std::size_t known = alignment < model_alignment_ ? alignment : model_alignment_;
    const std::size_t aligned = detail::align_up(model_offset_, known, overflow);
    std::size_t padding = aligned - model_offset_;
    model_offset_ = aligned;
    if (alignment > model_alignment_) {
      padding += alignment - model_alignment_;
      model_alignment_ = alignment;
      model_offset_ = 0;
    }
    if (overflow || padding > SIZE_MAX - footprint_ || size > SIZE_MAX - footprint_ - padding) {
      footprint_ = SIZE_MAX;  // saturated: it stays so
      return;
    }
    footprint_ += padding + size;
    model_offset_ += size;
  }

  void record_deallocation(std::size_t bytes) noexcept {
    if (blocks_.current == 0 || bytes_.current < bytes) {
      ++unmatched_;
      blocks_.current -= blocks_.current ? 1 : 0;
      bytes_.current -= bytes_.current < bytes ? bytes_.current : bytes;
      return;
    }
    --blocks_.current;
    bytes_.current -= bytes;
  }

  std::pmr::memory_resource* upstream_;
  usage blocks_;
  usage bytes_;
  histogram_type histogram_{};
  std::size_t footprint_ = 0;
  std::size_t model_offset_ = 0;
  std::size_t model_alignment_ = alignof(std::max_align_t);
  std::size_t unmatched_ = 0;
  std::size_t scope_peak_ = 0;
  std::vector<open_scope> scopes_;
};

// Measures one block of code: opens a scope now, closes it on finish() or
// at destruction. finish() while an inner scope is still open throws
// std::logic_error and closes nothing; the destructor closes this scope and
// any inner one left open.
class tracking_scope {
 public:
  explicit tracking_scope(tracking_resource& tracker)
      : tracker_(&tracker), depth_(tracker.push_scope()) {}
  tracking_scope(const tracking_scope&) = delete;
  tracking_scope& operator=(const tracking_scope&) = delete;
  ~tracking_scope() {
    if (!tracker_) return;
    while (tracker_->open_scopes() >= depth_) (void)tracker_->pop_scope();
  }

  // The scope's report; later calls return the same one.
  scope_report finish() {
    if (!tracker_) return report_;
    if (tracker_->open_scopes() != depth_)
      fail<std::logic_error>("alloclab::tracking_scope: finished while an inner scope is open",
                             "alloclab::tracking_scope: finished while an inner scope is open");
    report_ = tracker_->pop_scope();
    tracker_ = nullptr;
    return report_;
  }

 private:
  tracking_resource* tracker_;
  std::size_t depth_;
  scope_report report_{};
};

}  // namespace alloclab
