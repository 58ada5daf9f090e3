// Tests of alloclab/checked_resource.hpp.
//
// Test plan (public member -> test case):
//   checked_resource(upstream, reaction, quarantine) -> checked_resource_review.freed_history_is_bounded_by_the_quarantine
//   default arguments                        -> checked_resource.default_arguments_use_the_default_resource_and_max_align
//   allocate (guards, scribbling, alignment) -> checked_test.fresh_memory_is_scribbled, checked_test.guards_keep_large_alignments
//   allocate(bytes, alignment, call_site), set_call_site -> checked_resource_review.reports_name_the_call_site
//   deallocate: clean                        -> checked_test.clean_use_reports_nothing
//   deallocate: double_free                  -> checked_test.detects_double_free_without_forwarding_it,
//                                               checked_resource_review.stale_double_free_after_address_reuse_is_caught
//   deallocate: unknown_pointer              -> checked_test.detects_a_pointer_it_never_gave_out
//   deallocate: size/alignment_mismatch      -> checked_test.detects_size_and_alignment_mismatch_and_still_frees_correctly
//   deallocate: overrun, underrun            -> checked_test.detects_writes_past_the_end, checked_test.detects_writes_before_the_start
//   deallocate never throws, never allocates -> checked_resource_review.throw_mode_reports_a_bad_free_at_the_next_allocation,
//                                               checked_resource_review.deallocation_survives_a_failing_global_heap,
//                                               checked_resource_review.bookkeeping_never_touches_the_global_heap
//   reissued_live_block                      -> checked_resource_review.an_upstream_reissuing_a_live_address_is_flagged
//   check_all_guards, write_after_free       -> checked_resource_review.check_all_guards_finds_damage_in_live_blocks_once,
//                                               checked_resource_review.a_write_after_free_is_caught_in_quarantine,
//                                               checked_resource.throwing_reaction_reports_through_check_all_guards
//   quarantined_blocks, release_quarantine   -> checked_resource_review.freed_history_is_bounded_by_the_quarantine
//   misuse_count, total_misuses, last_misuse -> every detects_* test, checked_resource_review.reports_name_the_call_site
//   blocks_in_use, bytes_in_use, allocations, deallocations -> checked_test.counts_leaks_on_request,
//                                               checked_resource.default_arguments_use_the_default_resource_and_max_align
//   check_no_leaks                           -> checked_test.counts_leaks_on_request
//   set_quiet, ~checked_resource             -> checked_resource.destruction_returns_leaked_blocks_upstream
//   misuse_reaction::throw_exception         -> checked_resource.throwing_reaction_reports_through_check_all_guards
//   misuse_reaction::abort                   -> checked_resource_death.abort_reaction_stops_the_process,
//                                               checked_resource_death.abort_reaction_reports_leaks_at_destruction
#include <alloclab/checked_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <alloclab/arena_resource.hpp>
#include <alloclab/pool_resource.hpp>

#include <string>
#include <vector>

#include "test_heap.hpp"
#include "test_resources.hpp"

#include <cstdint>
#include <cstring>

namespace {

using namespace alloclab;
using alloclab::testing::test_heap;

class checked_test : public ::testing::Test {
 protected:
  tracking_resource upstream;
  checked_resource checker{&upstream};
};

TEST_F(checked_test, clean_use_reports_nothing) {
  void* p = checker.allocate(40, 8);
  std::memset(p, 0, 40);
  checker.deallocate(p, 40, 8);
  EXPECT_EQ(checker.total_misuses(), 0u);
  EXPECT_TRUE(checker.check_no_leaks());
  EXPECT_EQ(checker.quarantined_blocks(), 1u);
  checker.release_quarantine();
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST_F(checked_test, detects_double_free_without_forwarding_it) {
  void* p = checker.allocate(16, 8);
  checker.deallocate(p, 16, 8);
  const std::size_t upstream_frees = upstream.blocks().total - upstream.blocks().current;
  checker.deallocate(p, 16, 8);
  EXPECT_EQ(checker.misuse_count(misuse_kind::double_free), 1u);
  EXPECT_EQ(upstream.blocks().total - upstream.blocks().current, upstream_frees);
}

TEST_F(checked_test, detects_a_pointer_it_never_gave_out) {
  int local = 0;
  checker.deallocate(&local, sizeof local, alignof(int));
  EXPECT_EQ(checker.misuse_count(misuse_kind::unknown_pointer), 1u);
  EXPECT_EQ(upstream.unmatched_deallocations(), 0u);
}

TEST_F(checked_test, detects_size_and_alignment_mismatch_and_still_frees_correctly) {
  void* p = checker.allocate(64, 16);
  checker.deallocate(p, 32, 8);
  EXPECT_EQ(checker.misuse_count(misuse_kind::size_mismatch), 1u);
  EXPECT_EQ(checker.misuse_count(misuse_kind::alignment_mismatch), 1u);
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  checker.release_quarantine();
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(upstream.unmatched_deallocations(), 0u) << "the recorded size went upstream";
}

TEST_F(checked_test, detects_writes_past_the_end) {
  auto* p = static_cast<unsigned char*>(checker.allocate(10, 1));
  p[10] = 0;
  checker.deallocate(p, 10, 1);
  EXPECT_EQ(checker.misuse_count(misuse_kind::overrun), 1u);
  EXPECT_EQ(checker.misuse_count(misuse_kind::underrun), 0u);
}

TEST_F(checked_test, detects_writes_before_the_start) {
  auto* p = static_cast<unsigned char*>(checker.allocate(10, 1));
  p[-1] = 0;
  checker.deallocate(p, 10, 1);
  EXPECT_EQ(checker.misuse_count(misuse_kind::underrun), 1u);
}

TEST_F(checked_test, guards_keep_large_alignments) {
  for (std::size_t alignment : {1, 8, 16, 64, 256, 4096}) {
    void* p = checker.allocate(24, alignment);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u);
    checker.deallocate(p, 24, alignment);
  }
  EXPECT_EQ(checker.total_misuses(), 0u);
}

TEST_F(checked_test, fresh_memory_is_scribbled) {
  auto* p = static_cast<unsigned char*>(checker.allocate(8, 1));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(p[i], checked_resource::fresh_byte);
  checker.deallocate(p, 8, 1);
}

TEST_F(checked_test, counts_leaks_on_request) {
  void* p = checker.allocate(100, 8);
  EXPECT_FALSE(checker.check_no_leaks());
  EXPECT_EQ(checker.misuse_count(misuse_kind::leak), 1u);
  EXPECT_EQ(checker.bytes_in_use(), 100u);
  checker.deallocate(p, 100, 8);
}

TEST(checked_resource, destruction_returns_leaked_blocks_upstream) {
  tracking_resource upstream;
  {
    checked_resource checker{&upstream};
    checker.set_quiet(true);
    (void)checker.allocate(100, 8);
  }
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST(checked_resource, throwing_reaction_reports_through_check_all_guards) {
  tracking_resource upstream;
  checked_resource checker{&upstream, misuse_reaction::throw_exception};
  void* p = checker.allocate(32, 8);
  checker.deallocate(p, 32, 8);
  EXPECT_NO_THROW(checker.deallocate(p, 32, 8));
  try {
    (void)checker.check_all_guards();
    FAIL() << "expected misuse_error";
  } catch (const misuse_error& e) {
    EXPECT_EQ(e.kind(), misuse_kind::double_free);
  }
  EXPECT_TRUE(checker.check_all_guards()) << "reported once";
  EXPECT_EQ(checker.blocks_in_use(), 0u);
}

void double_free_with_abort_reaction() {
  checked_resource checker(std::pmr::new_delete_resource(), misuse_reaction::abort);
  void* p = checker.allocate(8, 8);
  checker.deallocate(p, 8, 8);
  checker.deallocate(p, 8, 8);
}

void leak_with_abort_reaction() {
  checked_resource checker(std::pmr::new_delete_resource(), misuse_reaction::abort);
  (void)checker.allocate(8, 8);
}

TEST(checked_resource_death, abort_reaction_stops_the_process) {
  EXPECT_DEATH(double_free_with_abort_reaction(), "double_free");
}

TEST(checked_resource_death, abort_reaction_reports_leaks_at_destruction) {
  EXPECT_DEATH(leak_with_abort_reaction(), "leaked");
}

// Review defect 3: deallocation never throws, even in throw mode; the misuse
// is reported by the next allocation.
TEST(checked_resource_review, throw_mode_reports_a_bad_free_at_the_next_allocation) {
  tracking_resource upstream;
  checked_resource checker{&upstream, misuse_reaction::throw_exception};
  void* p = checker.allocate(32, 8);
  EXPECT_NO_THROW(checker.deallocate(p, 31, 8));
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  const std::size_t upstream_blocks = upstream.blocks().current;
  EXPECT_THROW((void)checker.allocate(8, 8), misuse_error);
  EXPECT_EQ(upstream.blocks().current, upstream_blocks) << "the refused allocation took nothing";
  void* q = checker.allocate(8, 8);  // reported once
  checker.deallocate(q, 8, 8);
}

// Review defect 4: the bookkeeping lives in memory the checker owns, so a
// failing global heap cannot break a deallocation.
TEST(checked_resource_review, deallocation_survives_a_failing_global_heap) {
  tracking_resource upstream{std::pmr::new_delete_resource()};
  checked_resource checker{&upstream};
  void* p = checker.allocate(64, 8);
  {
    alloclab::testing::global_new_failure failing;
    EXPECT_NO_THROW(checker.deallocate(p, 64, 8));
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.bytes_in_use(), 0u);
  checker.release_quarantine();
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST(checked_resource_review, bookkeeping_never_touches_the_global_heap) {
  tracking_resource upstream{std::pmr::new_delete_resource()};
  checked_resource checker{&upstream};
  std::vector<void*> blocks(1000);
  const std::size_t before = alloclab::testing::global_new_calls();
  for (int round = 0; round < 10; ++round) {
    for (void*& p : blocks) p = checker.allocate(24, 8);
    for (void* p : blocks) checker.deallocate(p, 24, 8);
  }
  EXPECT_EQ(alloclab::testing::global_new_calls() - before, 0u)
      << "global operator new calls made by the checker";
  EXPECT_EQ(checker.total_misuses(), 0u);
}

// Review defect 4: a stale double free after the address was reused must be
// caught, and must not free the new owner's block.
TEST(checked_resource_review, stale_double_free_after_address_reuse_is_caught) {
  pool_resource reusing{256};  // hands back the block freed last
  checked_resource checker{&reusing};
  void* first = checker.allocate(32, 8);
  checker.deallocate(first, 32, 8);
  void* second = checker.allocate(32, 8);
  checker.deallocate(first, 32, 8);  // stale: first was freed already
  EXPECT_EQ(checker.misuse_count(misuse_kind::double_free), 1u);
  EXPECT_EQ(checker.blocks_in_use(), 1u) << "the new owner's block is still live";
  checker.deallocate(second, 32, 8);
  EXPECT_EQ(checker.total_misuses(), 1u) << "the owner's correct free is not blamed";
}

// Review defect 4: an upstream handing out an address that is still live (an
// arena rewound under live blocks) is flagged, and its stale record is not
// used against the new owner.
TEST(checked_resource_review, an_upstream_reissuing_a_live_address_is_flagged) {
  alignas(std::max_align_t) std::byte buffer[1024];
  arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  checked_resource checker{&arena};
  checker.set_quiet(true);
  const arena_mark start = arena.mark();
  void* old_block = checker.allocate(32, 8);
  arena.rewind(start);  // the misuse under test
  void* new_block = checker.allocate(64, 8);
  ASSERT_EQ(new_block, old_block);
  EXPECT_EQ(checker.total_misuses(), 1u);
  EXPECT_EQ(checker.misuse_count(misuse_kind::reissued_live_block), 1u) << checker.last_misuse();
  checker.deallocate(new_block, 64, 8);
  EXPECT_EQ(checker.total_misuses(), 1u) << checker.last_misuse();
  EXPECT_EQ(checker.blocks_in_use(), 0u);
}

// Regression: a rewound arena handing out memory that overlaps a live
// block at another address (another alignment) overwrote the live block's
// record; freeing the new block then reported unknown_pointer.
TEST(checked_resource_review, an_upstream_reissuing_memory_overlapping_a_live_block_is_flagged) {
  alignas(64) std::byte buffer[2048];
  arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  checked_resource checker{&arena};
  checker.set_quiet(true);
  const arena_mark start = arena.mark();
  void* old_block = checker.allocate(32, 8);
  arena.rewind(start);                         // the misuse under test
  void* new_block = checker.allocate(64, 64);  // same raw start, another user pointer
  ASSERT_NE(new_block, old_block);
  EXPECT_EQ(checker.misuse_count(misuse_kind::reissued_live_block), 1u) << checker.last_misuse();
  checker.deallocate(new_block, 64, 64);
  EXPECT_EQ(checker.total_misuses(), 1u) << checker.last_misuse();
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.bytes_in_use(), 0u);
}

// The new block may also start inside a live one (here inside its record).
TEST(checked_resource_review, an_upstream_block_starting_inside_a_live_block_is_flagged) {
  alignas(64) std::byte buffer[2048];
  arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  checked_resource checker{&arena};
  checker.set_quiet(true);
  const arena_mark start = arena.mark();
  void* first = checker.allocate(256, 8);
  void* second = checker.allocate(16, 8);  // live, after the first: must stay intact
  arena.rewind(start);
  (void)arena.allocate(16, 16);  // shifts the next block into the first's record
  void* overlapping = checker.allocate(400, 8);
  EXPECT_EQ(checker.misuse_count(misuse_kind::reissued_live_block), 2u) << checker.last_misuse();
  checker.deallocate(overlapping, 400, 8);
  EXPECT_EQ(checker.total_misuses(), 2u) << checker.last_misuse();
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  (void)first;
  (void)second;
}

// A quarantined block still belongs to the checker: memory overlapping it is flagged too.
TEST(checked_resource_review,
     an_upstream_reissuing_memory_overlapping_a_quarantined_block_is_flagged) {
  alignas(64) std::byte buffer[2048];
  arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  checked_resource checker{&arena};
  checker.set_quiet(true);
  const arena_mark start = arena.mark();
  checker.deallocate(checker.allocate(32, 8), 32, 8);
  ASSERT_EQ(checker.quarantined_blocks(), 1u);
  arena.rewind(start);
  void* p = checker.allocate(64, 64);
  EXPECT_EQ(checker.misuse_count(misuse_kind::reissued_live_block), 1u) << checker.last_misuse();
  EXPECT_EQ(checker.quarantined_blocks(), 0u) << "its record went with its memory";
  checker.deallocate(p, 64, 64);
  EXPECT_EQ(checker.total_misuses(), 1u) << checker.last_misuse();
}

// Review defect 4: check every guard now, not only at each block's free.
TEST(checked_resource_review, check_all_guards_finds_damage_in_live_blocks_once) {
  checked_resource checker{test_heap()};
  auto* first = static_cast<unsigned char*>(checker.allocate(10, 1));
  auto* second = static_cast<unsigned char*>(checker.allocate(10, 1));
  EXPECT_TRUE(checker.check_all_guards());
  first[10] = 0;
  second[-1] = 0;
  EXPECT_FALSE(checker.check_all_guards());
  EXPECT_EQ(checker.misuse_count(misuse_kind::overrun), 1u);
  EXPECT_EQ(checker.misuse_count(misuse_kind::underrun), 1u);
  EXPECT_TRUE(checker.check_all_guards()) << "each damaged block is reported once";
  checker.deallocate(first, 10, 1);
  checker.deallocate(second, 10, 1);
  EXPECT_EQ(checker.total_misuses(), 2u);
}

TEST(checked_resource_review, a_write_after_free_is_caught_in_quarantine) {
  checked_resource checker{test_heap()};
  auto* p = static_cast<unsigned char*>(checker.allocate(16, 8));
  checker.deallocate(p, 16, 8);
  p[3] = 1;  // the block is quarantined: still mapped, owned by the checker
  EXPECT_FALSE(checker.check_all_guards());
  EXPECT_EQ(checker.misuse_count(misuse_kind::write_after_free), 1u);
}

TEST(checked_resource_review, freed_history_is_bounded_by_the_quarantine) {
  tracking_resource upstream;
  checked_resource checker{&upstream, misuse_reaction::record, 4};
  for (int i = 0; i < 1000; ++i) checker.deallocate(checker.allocate(32, 8), 32, 8);
  EXPECT_EQ(checker.quarantined_blocks(), 4u);
  EXPECT_EQ(upstream.blocks().current, 4u);
  checker.release_quarantine();
  EXPECT_EQ(upstream.blocks().current, 0u);
  checked_resource unquarantined{&upstream, misuse_reaction::record, 0};
  unquarantined.deallocate(unquarantined.allocate(8, 8), 8, 8);
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST(checked_resource_review, reports_name_the_call_site) {
  checked_resource checker{test_heap()};
  checker.set_quiet(true);
  void* tagged = checker.allocate(24, 8, "parse_request");
  checker.deallocate(tagged, 23, 8);
  EXPECT_NE(checker.last_misuse().find("parse_request"), std::string::npos)
      << checker.last_misuse();
  checker.set_call_site("render_page");
  std::pmr::memory_resource& generic = checker;
  void* untagged = generic.allocate(24, 8);
  generic.deallocate(untagged, 25, 8);
  EXPECT_NE(checker.last_misuse().find("render_page"), std::string::npos) << checker.last_misuse();
}

TEST(checked_resource, default_arguments_use_the_default_resource_and_max_align) {
  checked_resource checker;
  EXPECT_EQ(checker.upstream(), std::pmr::get_default_resource());
  void* p = checker.allocate(8);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t), 0u);
  checker.deallocate(p, 8);
  EXPECT_EQ(checker.total_misuses(), 0u);
  EXPECT_EQ(checker.allocations(), 1u);
  EXPECT_EQ(checker.deallocations(), 1u);
}

}  // namespace
