// Tests of alloclab/tracking_resource.hpp.
//
// Test plan (public member -> test case):
//   tracking_resource(upstream), upstream() -> tracking_resource.default_arguments_use_the_default_resource_and_max_align
//   allocate, blocks(), bytes()            -> tracking_resource.counts_current_peak_and_total
//   allocate: upstream failure             -> tracking_resource.failed_upstream_allocation_changes_nothing
//   deallocate                             -> tracking_resource.a_throwing_upstream_deallocate_still_updates_the_counters
//   unmatched_deallocations()              -> tracking_resource.unknown_deallocation_never_goes_negative
//   histogram()                            -> tracking_resource.log2_histogram_buckets
//   monotonic_footprint()                  -> tracking_resource.monotonic_footprint_matches_a_real_arena,
//                                             tracking_scopes.saturated_footprint_never_wraps
//   over-aligned requests                  -> tracking_resource.the_footprint_of_over_aligned_requests_fits_any_buffer_placement
//   suggested_arena_size()                 -> tracking_resource.monotonic_footprint_matches_a_real_arena,
//                                             tracking_scopes.saturated_footprint_never_wraps
//   reset()                                -> tracking_resource.reset_keeps_live_counts,
//                                             tracking_scopes.reset_inside_a_scope_restarts_its_counts
//   push_scope(), pop_scope(), open_scopes() -> tracking_resource.nested_scopes_measure_their_own_peak,
//                                             tracking_scopes.pop_scope_with_no_scope_open_throws
//   tracking_scope, finish()               -> tracking_resource.tracking_scope_closes_itself,
//                                             tracking_scopes.finishing_an_outer_scope_first_is_an_error
#include <alloclab/arena_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <memory_resource>
#include <string>
#include <vector>

#include "test_resources.hpp"

namespace {

using namespace alloclab;

TEST(tracking_resource, counts_current_peak_and_total) {
  tracking_resource tracker;
  void* a = tracker.allocate(100, 8);
  void* b = tracker.allocate(50, 8);
  tracker.deallocate(a, 100, 8);
  void* c = tracker.allocate(10, 8);
  EXPECT_EQ(tracker.blocks().current, 2u);
  EXPECT_EQ(tracker.blocks().peak, 2u);
  EXPECT_EQ(tracker.blocks().total, 3u);
  EXPECT_EQ(tracker.bytes().current, 60u);
  EXPECT_EQ(tracker.bytes().peak, 150u);
  EXPECT_EQ(tracker.bytes().total, 160u);
  tracker.deallocate(b, 50, 8);
  tracker.deallocate(c, 10, 8);
  EXPECT_EQ(tracker.bytes().current, 0u);
}

TEST(tracking_resource, log2_histogram_buckets) {
  tracking_resource tracker;
  for (std::size_t size : {0, 1, 2, 3, 4, 1000, 1024})
    tracker.deallocate(tracker.allocate(size, 1), size, 1);
  const auto& h = tracker.histogram();
  EXPECT_EQ(h[0], 1u);   // 0
  EXPECT_EQ(h[1], 1u);   // 1
  EXPECT_EQ(h[2], 2u);   // 2..3
  EXPECT_EQ(h[3], 1u);   // 4..7
  EXPECT_EQ(h[10], 1u);  // 512..1023
  EXPECT_EQ(h[11], 1u);  // 1024..2047
}

TEST(tracking_resource, failed_upstream_allocation_changes_nothing) {
  limit_resource limit{std::pmr::new_delete_resource(), {100}};
  tracking_resource tracker{&limit};
  void* p = tracker.allocate(80, 8);
  EXPECT_THROW((void)tracker.allocate(80, 8), std::bad_alloc);
  EXPECT_EQ(tracker.blocks().total, 1u);
  EXPECT_EQ(tracker.bytes().current, 80u);
  EXPECT_EQ(tracker.monotonic_footprint(), 80u);
  tracker.deallocate(p, 80, 8);
}

TEST(tracking_resource, unknown_deallocation_never_goes_negative) {
  tracking_resource tracker{std::pmr::null_memory_resource()};
  // null_memory_resource accepts deallocations of anything; the tracker must
  // not wrap its counters below zero.
  tracker.deallocate(reinterpret_cast<void*>(0x1000), 64, 8);
  EXPECT_EQ(tracker.blocks().current, 0u);
  EXPECT_EQ(tracker.bytes().current, 0u);
  EXPECT_EQ(tracker.unmatched_deallocations(), 1u);
}

TEST(tracking_resource, nested_scopes_measure_their_own_peak) {
  tracking_resource tracker;
  void* base = tracker.allocate(1000, 8);
  tracker.push_scope();
  void* a = tracker.allocate(300, 8);
  tracker.push_scope();
  void* b = tracker.allocate(200, 8);
  tracker.deallocate(b, 200, 8);
  const scope_report inner = tracker.pop_scope();
  tracker.deallocate(a, 300, 8);
  void* c = tracker.allocate(50, 8);
  const scope_report outer = tracker.pop_scope();
  EXPECT_EQ(inner.allocations, 1u);
  EXPECT_EQ(inner.peak_bytes, 200u);
  EXPECT_EQ(outer.allocations, 3u);
  EXPECT_EQ(outer.bytes_allocated, 550u);
  EXPECT_EQ(outer.peak_bytes, 500u) << "300 + 200 live together inside the outer scope";
  EXPECT_EQ(tracker.bytes().peak, 1500u);
  EXPECT_EQ(tracker.open_scopes(), 0u);
  tracker.deallocate(c, 50, 8);
  tracker.deallocate(base, 1000, 8);
}

TEST(tracking_resource, tracking_scope_closes_itself) {
  tracking_resource tracker;
  {
    tracking_scope scope{tracker};
    EXPECT_EQ(tracker.open_scopes(), 1u);
  }
  EXPECT_EQ(tracker.open_scopes(), 0u);
  tracking_scope scope{tracker};
  tracker.deallocate(tracker.allocate(10, 1), 10, 1);
  EXPECT_EQ(scope.finish().allocations, 1u);
  EXPECT_EQ(scope.finish().allocations, 1u) << "finish is idempotent";
  EXPECT_EQ(tracker.open_scopes(), 0u);
}

// The point of the tracker: the footprint it reports is exactly what an
// arena with a max_align_t-aligned buffer consumes for the same requests.
TEST(tracking_resource, monotonic_footprint_matches_a_real_arena) {
  auto workload = [](std::pmr::memory_resource& r) {
    std::pmr::vector<std::pmr::string> lines{&r};
    for (int i = 0; i < 64; ++i)
      lines.push_back(std::pmr::string("event_log_entry_number_" + std::to_string(i), &r));
    std::pmr::vector<double> values{&r};
    for (int i = 0; i < 300; ++i) values.push_back(i);
  };
  tracking_resource tracker{std::pmr::new_delete_resource()};
  workload(tracker);
  const std::size_t needed = tracker.monotonic_footprint();
  EXPECT_GT(needed, tracker.bytes().peak)
      << "a bump arena never reuses: it needs more than the peak";

  std::vector<std::byte> exact(needed + alignof(std::max_align_t));
  void* start = exact.data();
  std::size_t space = exact.size();
  std::align(alignof(std::max_align_t), needed, start, space);
  arena_resource arena{start, needed, std::pmr::null_memory_resource()};
  EXPECT_NO_THROW(workload(arena));
  EXPECT_EQ(arena.used(), needed);
  EXPECT_GE(tracker.suggested_arena_size(0.25), needed * 5 / 4);
}

TEST(tracking_resource, reset_keeps_live_counts) {
  tracking_resource tracker;
  void* p = tracker.allocate(64, 8);
  tracker.deallocate(tracker.allocate(640, 8), 640, 8);
  tracker.reset();
  EXPECT_EQ(tracker.bytes().current, 64u);
  EXPECT_EQ(tracker.bytes().peak, 64u);
  EXPECT_EQ(tracker.bytes().total, 0u);
  EXPECT_EQ(tracker.monotonic_footprint(), 0u);
  tracker.deallocate(p, 64, 8);
}

// Review defect 5: reset() with a scope open restarts the scope's counts
// instead of making pop_scope underflow.
TEST(tracking_scopes, reset_inside_a_scope_restarts_its_counts) {
  tracking_resource tracker;
  tracker.deallocate(tracker.allocate(100, 8), 100, 8);  // before the scope: total 100 at entry
  tracker.push_scope();
  tracker.deallocate(tracker.allocate(100, 8), 100, 8);
  tracker.reset();
  tracker.deallocate(tracker.allocate(10, 8), 10, 8);
  const scope_report report = tracker.pop_scope();
  EXPECT_EQ(report.allocations, 1u);
  EXPECT_EQ(report.bytes_allocated, 10u);
  EXPECT_EQ(report.peak_bytes, 10u);
  EXPECT_EQ(report.monotonic_footprint, 10u);
}

// Review defect 5: a scope finished out of order must not pop another one.
TEST(tracking_scopes, finishing_an_outer_scope_first_is_an_error) {
  tracking_resource tracker;
  tracking_scope outer{tracker};
  tracker.deallocate(tracker.allocate(100, 8), 100, 8);
  tracking_scope inner{tracker};
  tracker.deallocate(tracker.allocate(10, 8), 10, 8);
  EXPECT_THROW((void)outer.finish(), std::logic_error);
  EXPECT_EQ(tracker.open_scopes(), 2u);
  EXPECT_EQ(inner.finish().bytes_allocated, 10u);
  EXPECT_EQ(outer.finish().bytes_allocated, 110u);
}

// Review defect 5: as RMM's statistics adaptor does, popping with no scope
// open is an error, not an empty report.
TEST(tracking_scopes, pop_scope_with_no_scope_open_throws) {
  tracking_resource tracker;
  EXPECT_THROW((void)tracker.pop_scope(), std::out_of_range);
  tracker.push_scope();
  (void)tracker.pop_scope();
  EXPECT_THROW((void)tracker.pop_scope(), std::out_of_range);
}

// Review defect 5: a saturated footprint stays saturated.
TEST(tracking_scopes, saturated_footprint_never_wraps) {
  alloclab::testing::address_only_resource nowhere;
  tracking_resource tracker{&nowhere};
  (void)tracker.allocate(PTRDIFF_MAX, 1);  // the largest request a resource accepts
  (void)tracker.allocate(PTRDIFF_MAX, 1);  // footprint SIZE_MAX - 1
  (void)tracker.allocate(0, 4096);         // aligning the cursor would pass SIZE_MAX
  EXPECT_EQ(tracker.monotonic_footprint(), SIZE_MAX);
  (void)tracker.allocate(0, 1);
  EXPECT_EQ(tracker.monotonic_footprint(), SIZE_MAX);
  EXPECT_EQ(tracker.suggested_arena_size(0.25), SIZE_MAX & ~std::size_t{63});
}

// Review defect 3: the counters follow the caller, whatever the upstream does.
TEST(tracking_resource, a_throwing_upstream_deallocate_still_updates_the_counters) {
  alloclab::testing::throwing_deallocate_resource upstream;
  tracking_resource tracker{&upstream};
  void* p = tracker.allocate(64, 8);
  EXPECT_THROW(tracker.deallocate(p, 64, 8), std::runtime_error);
  EXPECT_EQ(tracker.blocks().current, 0u);
  EXPECT_EQ(tracker.bytes().current, 0u);
}

TEST(tracking_resource, default_arguments_use_the_default_resource_and_max_align) {
  tracking_resource tracker;
  EXPECT_EQ(tracker.upstream(), std::pmr::get_default_resource());
  tracker.deallocate(tracker.allocate(1), 1);
  EXPECT_EQ(tracker.monotonic_footprint(), 1u);
  tracker.deallocate(tracker.allocate(1), 1);
  EXPECT_EQ(tracker.monotonic_footprint(), alignof(std::max_align_t) + 1);
}

TEST(tracking_resource, requests_over_ptrdiff_max_fail) {
  tracking_resource tracker{std::pmr::new_delete_resource()};
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)tracker.allocate(bytes, 64), std::bad_array_new_length) << bytes;
  EXPECT_EQ(tracker.blocks().total, 0u);
  EXPECT_EQ(tracker.monotonic_footprint(), 0u);
}

// Over-aligned requests: the buffer's own alignment (max_align_t) decides the
// padding, so the footprint assumes the worst placement. Four 4096-aligned
// pages fit an arena of the suggested size wherever its 16-aligned buffer lies.
TEST(tracking_resource, the_footprint_of_over_aligned_requests_fits_any_buffer_placement) {
  tracking_resource tracker{std::pmr::new_delete_resource()};
  for (int i = 0; i < 4; ++i) tracker.deallocate(tracker.allocate(4096, 4096), 4096, 4096);
  const std::size_t suggested = tracker.suggested_arena_size(0);
  // The buffer is at least max_align_t-aligned (16 bytes on x86-64, 8 on armhf).
  EXPECT_EQ(tracker.monotonic_footprint(), 4096 - alignof(std::max_align_t) + 4 * 4096)
      << "the worst padding, once";
  std::vector<std::byte> storage(suggested + 8192);
  auto* aligned =
      static_cast<std::byte*>(storage.data()) + detail::padding_for(storage.data(), 4096);
  for (std::size_t offset = 0; offset < 4096; offset += alignof(std::max_align_t)) {
    arena_resource arena{aligned + offset, suggested, std::pmr::null_memory_resource()};
    for (int i = 0; i < 4; ++i)
      ASSERT_NO_THROW((void)arena.allocate(4096, 4096)) << "offset " << offset << " block " << i;
    EXPECT_LE(arena.used(), tracker.monotonic_footprint());
  }
}

}  // namespace
