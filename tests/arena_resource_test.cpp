// Tests of alloclab/arena_resource.hpp.
//
// Test plan (public member -> test case):
//   arena_resource(buffer, size, upstream, options) -> arena_test.bumps_through_the_buffer_without_touching_upstream,
//                                                      arena_test.works_without_any_buffer
//   default arguments                               -> arena_resource.default_arguments_use_the_default_resource_and_max_align
//   allocate                                        -> arena_test.bumps_through_the_buffer_without_touching_upstream,
//                                                      arena_test.zero_byte_requests_get_distinct_pointers,
//                                                      arena_test.non_power_of_two_alignment_is_refused
//   overflow_policy::grow, growth_factor            -> arena_test.grows_geometrically_and_counts_every_upstream_block,
//                                                      arena_test.growth_factor_one_keeps_blocks_equal
//   overflow_policy::throw_bad_alloc                -> arena_test.throwing_policy_reports_the_request_and_never_uses_upstream,
//                                                      arena_test.null_upstream_turns_an_undersized_buffer_into_bad_alloc
//   overflow_policy::call_handler                   -> arena_test.handler_sees_each_overflow_and_may_refuse
//   deallocate (no-op)                              -> arena_resource.default_arguments_use_the_default_resource_and_max_align
//   release()                                       -> arena_test.grows_geometrically_and_counts_every_upstream_block,
//                                                      arena_scope_loop.release_restarts_the_growth_sequence
//   mark(), rewind()                                -> arena_test.nested_marks_rewind_in_order_and_return_later_blocks
//   rewind() restores growth                        -> arena_scope_loop.upstream_bytes_per_pass_stay_bounded
//   rewind() keeps blocks, shrink_to_fit()          -> arena_scope_loop.scope_passes_reuse_the_upstream_blocks,
//                                                      arena_scope_loop.kept_blocks_never_exceed_the_peak,
//                                                      arena_scope_loop.random_scopes_keep_live_blocks_intact,
//                                                      arena_scope_loop.an_upstream_failure_while_reusing_leaks_nothing
//   rewind() of a stale mark, stale_rewinds()       -> arena_scope_loop.release_inside_a_scope_makes_its_mark_stale,
//                                                      arena_scope_loop.a_mark_rewound_past_is_stale
//   used(), remaining(), buffer_size()              -> arena_test.bumps_through_the_buffer_without_touching_upstream,
//                                                      inline_arena.storage_lives_inside_the_object
//   overflows(), upstream_allocations/bytes()       -> arena_test.grows_geometrically_and_counts_every_upstream_block
//   upstream(), options()                           -> arena_resource.options_are_kept_and_normalised
//   ~arena_resource                                 -> arena_test.destruction_returns_every_block
//   inline_arena<N>                                 -> inline_arena.storage_lives_inside_the_object
//   arena_scope                                     -> arena_test.scope_rewinds_at_exit_even_through_an_exception
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <cstdint>
#include <memory_resource>
#include <random>
#include <utility>
#include <vector>

#include "test_heap.hpp"
#include "test_resources.hpp"

namespace {

using namespace alloclab;

class arena_test : public ::testing::Test {
 protected:
  alignas(std::max_align_t) std::byte buffer[1024];
  tracking_resource upstream;  // sees every block the arena takes and returns
};

TEST_F(arena_test, bumps_through_the_buffer_without_touching_upstream) {
  arena_resource arena{buffer, sizeof buffer, &upstream};
  void* a = arena.allocate(10, 1);
  void* b = arena.allocate(10, 1);
  EXPECT_EQ(a, buffer);
  EXPECT_EQ(static_cast<std::byte*>(b), buffer + 10);
  void* c = arena.allocate(8, 8);
  EXPECT_EQ(static_cast<std::byte*>(c), buffer + 24);
  EXPECT_EQ(arena.used(), 32u);
  EXPECT_EQ(arena.remaining(), sizeof buffer - 32);
  EXPECT_EQ(arena.upstream_allocations(), 0u);
  EXPECT_EQ(upstream.blocks().total, 0u);
}

TEST_F(arena_test, zero_byte_requests_get_distinct_pointers) {
  arena_resource arena{buffer, sizeof buffer, &upstream};
  EXPECT_NE(arena.allocate(0, 1), arena.allocate(0, 1));
}

TEST_F(arena_test, grows_geometrically_and_counts_every_upstream_block) {
  arena_resource arena{buffer, sizeof buffer, &upstream,
                       arena_options{overflow_policy::grow, 2.0, 0, {}}};
  for (int i = 0; i < 100; ++i) (void)arena.allocate(100, 8);
  EXPECT_GE(arena.upstream_allocations(), 2u);
  EXPECT_EQ(arena.upstream_allocations(), upstream.blocks().total);
  EXPECT_EQ(arena.upstream_bytes(), upstream.bytes().total);
  EXPECT_EQ(arena.overflows(), arena.upstream_allocations());
  // 10 000 bytes from a 1 KiB buffer with doubling blocks (1 KiB, 2 KiB, 4 KiB, 8 KiB):
  // four blocks at most, never one block per request.
  EXPECT_LE(arena.upstream_allocations(), 4u);
  arena.release();
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.allocate(1, 1), buffer) << "release restarts at the front of the buffer";
}

TEST_F(arena_test, growth_factor_one_keeps_blocks_equal) {
  arena_resource arena{buffer, sizeof buffer, &upstream,
                       arena_options{overflow_policy::grow, 1.0, 512, {}}};
  for (int i = 0; i < 40; ++i) (void)arena.allocate(100, 1);
  EXPECT_EQ(upstream.bytes().total, arena.upstream_allocations() * 512);
}

TEST_F(arena_test, throwing_policy_reports_the_request_and_never_uses_upstream) {
  arena_resource arena{buffer, sizeof buffer, &upstream,
                       arena_options{overflow_policy::throw_bad_alloc, 2.0, 0, {}}};
  (void)arena.allocate(1000, 1);
  try {
    (void)arena.allocate(100, 16);
    FAIL() << "expected arena_exhausted";
  } catch (const arena_exhausted& e) {
    EXPECT_EQ(e.bytes(), 100u);
    EXPECT_EQ(e.alignment(), 16u);
  }
  EXPECT_EQ(upstream.blocks().total, 0u);
  EXPECT_EQ(arena.overflows(), 1u);
}

TEST_F(arena_test, null_upstream_turns_an_undersized_buffer_into_bad_alloc) {
  arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  std::pmr::vector<int> values{&arena};
  EXPECT_THROW(for (int i = 0; i < 1000; ++i) values.push_back(i), std::bad_alloc);
}

TEST_F(arena_test, handler_sees_each_overflow_and_may_refuse) {
  std::vector<std::size_t> seen;
  arena_options options{overflow_policy::call_handler, 2.0, 0, [&](std::size_t bytes, std::size_t) {
                          seen.push_back(bytes);
                          if (seen.size() == 2) throw std::bad_alloc();
                        }};
  arena_resource arena{buffer, sizeof buffer, &upstream, options};
  (void)arena.allocate(2000, 8);  // first overflow: handler returns, arena grows
  EXPECT_EQ(arena.upstream_allocations(), 1u);
  EXPECT_THROW((void)arena.allocate(10000, 8), std::bad_alloc);  // second: handler refuses
  EXPECT_EQ(seen, (std::vector<std::size_t>{2000, 10000}));
  EXPECT_EQ(arena.upstream_allocations(), 1u);
}

TEST_F(arena_test, nested_marks_rewind_in_order_and_return_later_blocks) {
  arena_resource arena{buffer, sizeof buffer, &upstream};
  (void)arena.allocate(100, 1);
  const arena_mark outer = arena.mark();
  (void)arena.allocate(900, 1);
  const arena_mark inner = arena.mark();
  (void)arena.allocate(4000, 1);  // forces an upstream block
  ASSERT_EQ(upstream.blocks().current, 1u);
  arena.rewind(inner);
  EXPECT_EQ(upstream.blocks().current, 1u) << "blocks taken after the mark are kept for reuse";
  arena.shrink_to_fit();
  EXPECT_EQ(upstream.blocks().current, 0u) << "until shrink_to_fit()";
  EXPECT_EQ(arena.used(), 1000u);
  arena.rewind(outer);
  EXPECT_EQ(arena.used(), 100u);
  EXPECT_EQ(static_cast<std::byte*>(arena.allocate(1, 1)), buffer + 100);
}

TEST_F(arena_test, scope_rewinds_at_exit_even_through_an_exception) {
  arena_resource arena{buffer, sizeof buffer, &upstream};
  (void)arena.allocate(64, 8);
  try {
    arena_scope scope{arena};
    (void)arena.allocate(5000, 8);
    throw 42;
  } catch (int) {
  }
  EXPECT_EQ(arena.used(), 64u);
  arena.shrink_to_fit();
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST_F(arena_test, destruction_returns_every_block) {
  {
    arena_resource arena{buffer, sizeof buffer, &upstream};
    for (int i = 0; i < 50; ++i) (void)arena.allocate(500, 8);
    EXPECT_GT(upstream.blocks().current, 0u);
  }
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(upstream.unmatched_deallocations(), 0u);
}

TEST_F(arena_test, works_without_any_buffer) {
  arena_resource arena{nullptr, 0, &upstream};
  void* p = arena.allocate(64, 64);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(arena.upstream_allocations(), 1u);
}

TEST_F(arena_test, non_power_of_two_alignment_is_refused) {
  arena_resource arena{buffer, sizeof buffer, &upstream};
  EXPECT_THROW((void)arena.allocate(8, 3), std::bad_alloc);
  EXPECT_THROW((void)arena.allocate(8, 0), std::bad_alloc);
}

TEST(inline_arena, storage_lives_inside_the_object) {
  inline_arena<512> arena{std::pmr::null_memory_resource()};
  auto* p = static_cast<std::byte*>(arena.allocate(16, 16));
  auto* self = reinterpret_cast<std::byte*>(&arena);
  EXPECT_GE(p, self);
  EXPECT_LT(p, self + sizeof arena);
  EXPECT_EQ(arena.buffer_size(), 512u);
  EXPECT_THROW((void)arena.allocate(1024, 1), std::bad_alloc);
}

// Review defect 1: a scope loop must not make the upstream blocks grow pass
// after pass (rewind restores the growth state taken by mark()).
TEST(arena_scope_loop, upstream_bytes_per_pass_stay_bounded) {
  tracking_resource upstream{alloclab::testing::test_heap()};
  inline_arena<256> arena{&upstream};
  std::size_t first_pass_bytes = 0;
  for (int pass = 0; pass < 30; ++pass) {
    const std::size_t before = upstream.bytes().total;
    {
      arena_scope scope{arena};
      (void)arena.allocate(512, 8);
    }
    const std::size_t taken = upstream.bytes().total - before;
    if (pass == 0) first_pass_bytes = taken;
    ASSERT_LE(taken, first_pass_bytes) << "pass " << pass;
    ASSERT_LE(upstream.blocks().current, 1u) << "pass " << pass;
  }
  EXPECT_EQ(arena.used(), 0u);
}

// Regression: every pass used to free its upstream blocks and take
// them again (100 passes: 400 upstream allocations and 400 frees).
TEST(arena_scope_loop, scope_passes_reuse_the_upstream_blocks) {
  tracking_resource upstream{alloclab::testing::test_heap()};
  inline_arena<256> arena{&upstream};
  std::size_t blocks_of_one_pass = 0;
  for (int pass = 0; pass < 100; ++pass) {
    {
      arena_scope scope{arena};
      for (int i = 0; i < 4; ++i) std::memset(arena.allocate(1000, 8), pass, 1000);
    }
    if (pass == 0) blocks_of_one_pass = upstream.blocks().total;
  }
  ASSERT_GE(blocks_of_one_pass, 2u);
  EXPECT_EQ(upstream.blocks().total, blocks_of_one_pass) << "later passes took no block";
  EXPECT_EQ(arena.upstream_allocations(), blocks_of_one_pass);
  EXPECT_EQ(upstream.blocks().current, blocks_of_one_pass) << "kept for the next pass";
  EXPECT_EQ(arena.used(), 0u);
  arena.shrink_to_fit();
  EXPECT_EQ(upstream.blocks().current, 0u) << "shrink_to_fit returns the kept blocks";
  EXPECT_EQ(upstream.unmatched_deallocations(), 0u);
  (void)arena.allocate(1000, 8);
  EXPECT_EQ(upstream.blocks().current, 1u) << "and the arena still grows afterwards";
}

// The kept blocks are bounded: a block that cannot serve the next pass goes
// back upstream instead of piling up.
TEST(arena_scope_loop, kept_blocks_never_exceed_the_peak) {
  tracking_resource upstream{alloclab::testing::test_heap()};
  inline_arena<256> arena{&upstream};
  for (std::size_t pass = 1; pass <= 50; ++pass) {
    {
      arena_scope scope{arena};
      (void)arena.allocate(1000 * pass, 8);  // larger than any block kept so far
    }
    ASSERT_LE(upstream.blocks().current, 1u) << "pass " << pass;
  }
  arena.release();
  EXPECT_EQ(upstream.blocks().current, 0u) << "release() returns kept blocks too";
}

// Random allocations in random nested scopes over kept and new blocks: every
// block live in the model stays aligned, disjoint from the others and intact.
TEST(arena_scope_loop, random_scopes_keep_live_blocks_intact) {
  struct live_block {
    unsigned char* p;
    std::size_t bytes;
    unsigned char fill;
  };
  std::mt19937 random{18};
  tracking_resource upstream{alloclab::testing::test_heap()};
  {
    inline_arena<128> arena{&upstream, arena_options{overflow_policy::grow, 1.5, 256, {}}};
    std::vector<std::pair<arena_mark, std::size_t>> scopes;  // mark, live blocks when taken
    std::vector<live_block> live;
    for (int step = 0; step < 20000; ++step) {
      const unsigned choice = random() % 8;
      if (choice == 0 && scopes.size() < 6) {
        scopes.emplace_back(arena.mark(), live.size());
      } else if (choice == 1 && !scopes.empty()) {
        arena.rewind(scopes.back().first);
        live.resize(scopes.back().second);
        scopes.pop_back();
      } else {
        const std::size_t bytes = 1 + random() % 700;
        const std::size_t alignment = std::size_t{1} << (random() % 7);
        auto* p = static_cast<unsigned char*>(arena.allocate(bytes, alignment));
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u) << "step " << step;
        const auto fill = static_cast<unsigned char>(step);
        std::memset(p, fill, bytes);
        live.push_back({p, bytes, fill});
      }
      if (step % 97 != 0) continue;
      for (const live_block& b : live) {
        for (std::size_t i = 0; i < b.bytes; ++i)
          ASSERT_EQ(b.p[i], b.fill) << "step " << step << ": a live block was overwritten";
      }
    }
    EXPECT_EQ(arena.stale_rewinds(), 0u);
    EXPECT_EQ(upstream.unmatched_deallocations(), 0u);
  }
  EXPECT_EQ(upstream.blocks().current, 0u);
}

// Failure injection at each upstream request of a scope loop that reuses
// kept blocks: nothing leaks, and the arena stays usable.
TEST(arena_scope_loop, an_upstream_failure_while_reusing_leaks_nothing) {
  for (std::size_t fail_at = 1; fail_at <= 12; ++fail_at) {
    tracking_resource heap{alloclab::testing::test_heap()};
    limit_resource failing{&heap, {SIZE_MAX, fail_at, false}};
    {
      inline_arena<256> arena{&failing};
      for (std::size_t pass = 0; pass < 6; ++pass) {
        try {
          arena_scope scope{arena};
          for (std::size_t i = 0; i < 3; ++i) (void)arena.allocate(700 * (pass % 3 + 1), 8);
        } catch (const std::bad_alloc&) {
        }
      }
      (void)arena.allocate(5000, 8);
    }
    EXPECT_EQ(heap.blocks().current, 0u) << "failing at request " << fail_at;
    EXPECT_EQ(heap.unmatched_deallocations(), 0u) << "failing at request " << fail_at;
  }
}

// Issue 39, defect 4: with growth factor 1.0, one overflow after a rewind
// over many kept blocks used to hand every too-small kept block back at once
// (100 k blocks: 40 ms). An overflow now returns at most one kept block.
TEST(arena_scope_loop, an_overflow_returns_at_most_one_kept_block) {
  tracking_resource upstream{alloclab::testing::test_heap()};
  arena_resource arena{nullptr, 0, &upstream, arena_options{overflow_policy::grow, 1.0, 1024, {}}};
  const arena_mark start = arena.mark();
  for (int i = 0; i < 1000; ++i) (void)arena.allocate(1000, 8);
  ASSERT_EQ(upstream.blocks().current, 1000u);
  arena.rewind(start);
  EXPECT_EQ(upstream.blocks().current, 1000u) << "a rewind keeps its blocks";
  for (int overflow = 1; overflow <= 3; ++overflow) {
    const std::size_t returned_before = upstream.blocks().total - upstream.blocks().current;
    (void)arena.allocate(4000, 8);  // larger than every kept block
    const std::size_t returned =
        upstream.blocks().total - upstream.blocks().current - returned_before;
    EXPECT_LE(returned, 1u) << "overflow " << overflow;
  }
  (void)arena.allocate(1000, 8);  // the rest of the kept blocks still serve small requests
  arena.shrink_to_fit();
  arena.rewind(start);
  arena.shrink_to_fit();
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(arena.stale_rewinds(), 0u);
}

// Marks at many depths over many equal blocks: rewinding to each, deepest
// first, restores exactly its position; marks rewound past are stale.
TEST(arena_scope_loop, marks_at_every_depth_rewind_exactly) {
  tracking_resource upstream{alloclab::testing::test_heap()};
  arena_resource arena{nullptr, 0, &upstream, arena_options{overflow_policy::grow, 1.0, 1024, {}}};
  std::vector<arena_mark> marks;
  std::vector<std::size_t> used_at_mark;
  for (int i = 0; i < 300; ++i) {
    marks.push_back(arena.mark());
    used_at_mark.push_back(arena.used());
    (void)arena.allocate(1000, 8);
  }
  for (std::size_t i = marks.size(); i-- > 0;) {
    if (i % 3 != 0) continue;
    arena.rewind(marks[i]);
    ASSERT_EQ(arena.used(), used_at_mark[i]) << "mark " << i;
    ASSERT_EQ(arena.stale_rewinds(), 0u);
  }
  arena.rewind(marks[150]);  // rewound past by the rewind to marks[0]
  EXPECT_EQ(arena.stale_rewinds(), 1u);
  for (int i = 0; i < 200; ++i) (void)arena.allocate(1000, 8);  // reuses the kept blocks
  arena.rewind(marks[150]);  // its block is in use again, but a later use
  EXPECT_EQ(arena.stale_rewinds(), 2u);
  EXPECT_EQ(upstream.blocks().total, 300u) << "every block after the first pass was kept";
}

TEST(arena_scope_loop, release_restarts_the_growth_sequence) {
  tracking_resource upstream;
  arena_resource arena{nullptr, 0, &upstream, arena_options{overflow_policy::grow, 2.0, 1024, {}}};
  (void)arena.allocate(1000, 8);
  (void)arena.allocate(1000, 8);
  arena.release();
  const std::size_t before = upstream.bytes().total;
  (void)arena.allocate(8, 8);
  EXPECT_EQ(upstream.bytes().total - before, 1024u);
}

// Review defect 1: release() inside a scope opened in an upstream block used
// to leave the scope's mark pointing into a freed block; rewinding to it was
// a use-after-free. A stale mark is now detected and ignored.
TEST(arena_scope_loop, release_inside_a_scope_makes_its_mark_stale) {
  tracking_resource upstream;
  alignas(std::max_align_t) std::byte buffer[64];
  arena_resource arena{buffer, sizeof buffer, &upstream};
  (void)arena.allocate(200, 8);  // now inside an upstream block
  {
    arena_scope scope{arena};
    (void)arena.allocate(16, 8);
    arena.release();
    EXPECT_EQ(upstream.blocks().current, 0u);
  }  // the scope rewinds to a mark inside the freed block
  EXPECT_EQ(arena.stale_rewinds(), 1u);
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.remaining(), sizeof buffer);
  EXPECT_EQ(arena.allocate(8, 8), static_cast<void*>(buffer));
}

TEST(arena_scope_loop, a_mark_rewound_past_is_stale) {
  tracking_resource upstream;
  alignas(std::max_align_t) std::byte buffer[64];
  arena_resource arena{buffer, sizeof buffer, &upstream};
  const arena_mark outer = arena.mark();
  (void)arena.allocate(200, 8);  // upstream block
  const arena_mark inner = arena.mark();
  arena.rewind(outer);
  arena.rewind(inner);  // its block is no longer in use (kept, but not current)
  EXPECT_EQ(arena.stale_rewinds(), 1u);
  EXPECT_EQ(arena.used(), 0u);
  (void)arena.allocate(200, 8);  // reuses the kept block
  arena.rewind(inner);           // still stale: the block was reissued
  EXPECT_EQ(arena.stale_rewinds(), 2u);
  EXPECT_EQ(upstream.blocks().total, 1u);
}

TEST(arena_resource, options_are_kept_and_normalised) {
  arena_resource arena{nullptr, 0, std::pmr::null_memory_resource(),
                       arena_options{overflow_policy::throw_bad_alloc, 0.5, 4096, {}}};
  EXPECT_EQ(arena.options().policy, overflow_policy::throw_bad_alloc);
  EXPECT_EQ(arena.options().growth_factor, 1.0) << "a factor below 1 would shrink blocks";
  EXPECT_EQ(arena.options().first_block_size, 4096u);
}

TEST(arena_resource, default_arguments_use_the_default_resource_and_max_align) {
  alignas(std::max_align_t) std::byte buffer[64];
  arena_resource arena{buffer, sizeof buffer};
  EXPECT_EQ(arena.upstream(), std::pmr::get_default_resource());
  EXPECT_EQ(arena.options().policy, overflow_policy::grow);
  (void)arena.allocate(1, 1);
  void* p = arena.allocate(8);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t), 0u);
  arena.deallocate(p, 8);
  inline_arena<32> small;
  EXPECT_EQ(small.upstream(), std::pmr::get_default_resource());
}

}  // namespace

// The fast path's single compare: requests at the edges of size_t
// take the exact slow path and never wrap into a bogus "fits".
namespace {

TEST(arena_fast_path, huge_requests_and_alignments_throw_instead_of_wrapping) {
  alignas(64) std::byte storage[256];
  alloclab::arena_resource arena{storage, sizeof storage, std::pmr::null_memory_resource()};
  (void)arena.allocate(3, 1);  // the cursor is now misaligned for everything above 1
  const std::size_t used = arena.used();
  for (const std::size_t bytes :
       {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2, SIZE_MAX / 4, SIZE_MAX - 62})
    EXPECT_THROW((void)arena.allocate(bytes, 64), std::bad_alloc) << bytes;
  for (const std::size_t alignment : {std::size_t{1} << 62, std::size_t{1} << 63})
    EXPECT_THROW((void)arena.allocate(8, alignment), std::bad_alloc) << alignment;
  EXPECT_EQ(arena.used(), used);  // nothing was handed out
}

TEST(arena_fast_path, the_last_byte_fits_and_the_one_after_does_not) {
  alignas(64) std::byte storage[256];
  alloclab::arena_resource arena{storage, sizeof storage, std::pmr::null_memory_resource()};
  (void)arena.allocate(1, 1);
  void* last = arena.allocate(256 - 64, 64);  // padding 63, ends exactly at the limit
  EXPECT_EQ(static_cast<std::byte*>(last), storage + 64);
  EXPECT_EQ(arena.remaining(), 0u);
  EXPECT_THROW((void)arena.allocate(1, 1), std::bad_alloc);
  EXPECT_THROW((void)arena.allocate(0, 1), std::bad_alloc);  // served as 1 byte
}

TEST(arena_fast_path, zero_bytes_at_the_limit_grow_once_and_stay_distinct) {
  alloclab::tracking_resource upstream;
  alignas(16) std::byte storage[16];
  alloclab::arena_resource arena{storage, sizeof storage, &upstream};
  (void)arena.allocate(16, 1);
  void* a = arena.allocate(0, 8);
  void* b = arena.allocate(0, 8);
  EXPECT_NE(a, b);
  EXPECT_EQ(arena.upstream_allocations(), 1u);
  EXPECT_TRUE(alloclab::detail::is_aligned(a, 8) && alloclab::detail::is_aligned(b, 8));
}

TEST(arena_fast_path, runtime_sizes_and_alignments_match_a_model) {
  alignas(64) std::byte storage[4096];
  alloclab::arena_resource arena{storage, sizeof storage, std::pmr::null_memory_resource()};
  std::uintptr_t cursor = reinterpret_cast<std::uintptr_t>(storage);
  const std::uintptr_t limit = cursor + sizeof storage;
  std::uint32_t state = 12345;
  for (int i = 0; i < 2000; ++i) {
    state = state * 1664525u + 1013904223u;
    const std::size_t bytes = (state >> 8) % 97;                          // 0..96
    const std::size_t alignment = std::size_t{1} << ((state >> 20) % 8);  // 1..128
    const std::uintptr_t aligned = (cursor + alignment - 1) & ~(alignment - 1);
    const std::size_t served = bytes == 0 ? 1 : bytes;
    if (aligned + served > limit) {
      EXPECT_THROW((void)arena.allocate(bytes, alignment), std::bad_alloc);
      arena.release();
      cursor = reinterpret_cast<std::uintptr_t>(storage);
      continue;
    }
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.allocate(bytes, alignment)), aligned);
    cursor = aligned + served;
    ASSERT_EQ(arena.remaining(), limit - cursor);
  }
}

}  // namespace

// The growth ratio is kept in integers (1/256ths): a factor of 1.5 grows
// 1024-byte blocks to 1536 and 2304 bytes, exactly as the double did.
TEST(arena_resource, growth_in_integers_matches_the_factor) {
  tracking_resource upstream;
  arena_resource arena{nullptr, 0, &upstream, arena_options{overflow_policy::grow, 1.5, 1024, {}}};
  std::vector<std::size_t> sizes;
  std::size_t before = 0;
  for (int i = 0; i < 3; ++i) {
    (void)arena.allocate(arena.remaining() + 1, 8);
    sizes.push_back(upstream.bytes().total - before);
    before = upstream.bytes().total;
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1024, 1536, 2304}));
  static_assert(growth_ratio{1.5}.per_256() == 384);
  static_assert(growth_ratio{0.5} == growth_ratio{1.0}, "below 1 is 1");
  static_assert(growth_ratio{1e30}.apply(SIZE_MAX / 2, SIZE_MAX / 4) == SIZE_MAX / 4);
}

// The core without std::pmr: basic_arena over an upstream that is no
// memory_resource, through alloclab::allocator, scoped by arena_scope.
TEST(basic_arena, grows_rewinds_and_returns_blocks_over_a_plain_upstream) {
  alloclab::testing::counting_heap heap;
  {
    basic_arena<alloclab::testing::counting_heap> arena{nullptr, 0, &heap, {}};
    std::vector<int, allocator<int, basic_arena<alloclab::testing::counting_heap>>> values{
        allocator<int, basic_arena<alloclab::testing::counting_heap>>{&arena}};
    {
      arena_scope scope{arena};
      for (int i = 0; i < 1000; ++i) (void)arena.allocate(100, 8);
      EXPECT_GT(heap.live, 1u);
    }
    EXPECT_EQ(arena.used(), 0u);
    for (int i = 0; i < 1000; ++i) values.push_back(i);
    EXPECT_EQ(values[999], 999);
  }
  EXPECT_EQ(heap.live, 0u);
}

TEST(basic_arena, a_refusing_upstream_fails_through_the_failure_hook) {
  alignas(std::max_align_t) std::byte buffer[64];
  refusing_upstream upstream;
  basic_arena<refusing_upstream> arena{buffer, sizeof buffer, &upstream, {}};
  (void)arena.allocate(64, 8);
  EXPECT_THROW((void)arena.allocate(1, 1), std::bad_alloc);
  EXPECT_EQ(arena.upstream_allocations(), 0u);
}
