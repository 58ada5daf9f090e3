#include <alloclab/checked_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace {

using namespace alloclab;

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

TEST(checked_resource, throwing_reaction_keeps_bookkeeping_consistent) {
  tracking_resource upstream;
  checked_resource checker{&upstream, misuse_reaction::throw_exception};
  void* p = checker.allocate(32, 8);
  try {
    checker.deallocate(p, 31, 8);
    FAIL() << "expected misuse_error";
  } catch (const misuse_error& e) {
    EXPECT_EQ(e.kind(), misuse_kind::size_mismatch);
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_THROW(checker.deallocate(p, 32, 8), misuse_error);
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

}  // namespace
