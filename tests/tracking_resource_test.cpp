#include <alloclab/arena_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <memory_resource>
#include <string>
#include <vector>

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

}  // namespace
