// Tests of alloclab/pool_resource.hpp.
//
// Test plan (public member -> test case):
//   pool_resource(block_size, upstream, options) -> pool_resource.takes_geometrically_larger_chunks_and_returns_them_on_release
//   pool_resource(block_size, fixed_buffer, options, oversize_upstream)
//                                       -> pool_resource.fixed_buffer_has_a_hard_capacity,
//                                          pool_resource.fixed_buffer_oversize_uses_the_given_upstream
//   braced options                      -> pool_resource.braced_options_never_select_a_fixed_buffer
//   refused block sizes                 -> pool_resource.refuses_a_block_size_that_cannot_be_laid_out
//   default arguments                   -> pool_resource.default_arguments_use_the_default_resource
//   allocate/deallocate (free list)     -> pool_resource.reuses_the_most_recently_freed_block
//   the alignment rule, block_size(), block_alignment(), pool_options::block_alignment
//                                       -> pool_resource.block_size_and_alignment_are_normalised,
//                                          pool_alignment.default_alignment_requests_are_served_from_blocks,
//                                          pool_alignment.small_pools_serve_default_aligned_requests,
//                                          pool_alignment.honours_every_alignment_its_layout_can,
//                                          pool_alignment.gcc_bug_118681_grid_is_always_aligned
//   oversize_policy, oversize_allocations() -> pool_resource.oversize_requests_are_forwarded_and_counted,
//                                          pool_resource.oversize_requests_can_be_refused
//   chunks(), max_chunk_blocks          -> pool_resource.chunk_growth_stops_at_the_maximum
//   capacity()                          -> pool_resource.capacity_counts_every_block_of_every_chunk
//   release(), fixed_capacity()         -> pool_resource.fixed_buffer_has_a_hard_capacity
//   upstream()                          -> pool_resource.default_arguments_use_the_default_resource
//   as a memory_resource for containers -> pool_resource.serves_node_containers
#include <alloclab/allocator.hpp>
#include <alloclab/checked_resource.hpp>
#include <alloclab/pool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "test_resources.hpp"

#include <list>
#include <map>
#include <set>
#include <cstdint>
#include <cstdio>
#include <memory_resource>
#include <stdexcept>
#include <type_traits>

namespace {

using namespace alloclab;

TEST(pool_resource, reuses_the_most_recently_freed_block) {
  pool_resource pool{32};
  void* a = pool.allocate(32, 8);
  void* b = pool.allocate(32, 8);
  pool.deallocate(a, 32, 8);
  EXPECT_EQ(pool.allocate(24, 8), a);
  pool.deallocate(b, 32, 8);
  EXPECT_EQ(pool.allocate(1, 1), b);
}

TEST(pool_resource, block_size_and_alignment_are_normalised) {
  EXPECT_EQ(pool_resource{1}.block_size(), alignof(std::max_align_t)) << "serves allocate(1)";
  constexpr std::size_t wide = alignof(std::max_align_t);  // 16 on x86-64, 8 on armhf
  EXPECT_EQ(pool_resource{20}.block_size(), (20 + wide - 1) / wide * wide)
      << "rounded to the default alignment";
  EXPECT_EQ(pool_resource{24}.block_alignment(), wide == 16 ? 32u : 8u);
  EXPECT_EQ(pool_resource{48}.block_size(), 48u);
  EXPECT_EQ(pool_resource{48}.block_alignment(), 16u);
  EXPECT_EQ(pool_resource{64}.block_alignment(), 64u);
  EXPECT_EQ(pool_resource{8192}.block_alignment(), pool_resource::max_block_alignment);
  pool_options dense;
  dense.block_alignment = 8;
  EXPECT_EQ((pool_resource{20, std::pmr::get_default_resource(), dense}.block_size()), 24u);
  EXPECT_EQ((pool_resource{24, std::pmr::get_default_resource(), dense}.block_alignment()), 8u);
  EXPECT_EQ((pool_resource{1, std::pmr::get_default_resource(), dense}.block_size()),
            std::max<std::size_t>(sizeof(void*), 8));  // a free-list node, a multiple of 8
}

TEST(pool_resource, takes_geometrically_larger_chunks_and_returns_them_on_release) {
  tracking_resource upstream;
  pool_resource pool{64, &upstream, pool_options{oversize_policy::forward_to_upstream, 4, 64}};
  std::set<void*> distinct;
  for (int i = 0; i < 4 + 8 + 16; ++i) distinct.insert(pool.allocate(64, 8));
  EXPECT_EQ(distinct.size(), 28u);
  EXPECT_EQ(pool.chunks(), 3u);
  EXPECT_EQ(pool.capacity(), 28u);
  EXPECT_EQ(upstream.blocks().current, 3u);
  pool.release();
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(pool.capacity(), 0u);
}

TEST(pool_resource, chunk_growth_stops_at_the_maximum) {
  tracking_resource upstream;
  pool_resource pool{16, &upstream, pool_options{oversize_policy::forward_to_upstream, 2, 4}};
  for (int i = 0; i < 2 + 4 + 4 + 4; ++i) (void)pool.allocate(16, 8);
  EXPECT_EQ(pool.chunks(), 4u);
}

TEST(pool_resource, oversize_requests_are_forwarded_and_counted) {
  tracking_resource upstream;
  pool_resource pool{64, &upstream};
  void* big = pool.allocate(65, 8);
  void* aligned = pool.allocate(8, 128);  // alignment beyond the block's
  EXPECT_EQ(pool.oversize_allocations(), 2u);
  EXPECT_EQ(upstream.blocks().current, 2u);
  pool.deallocate(big, 65, 8);
  pool.deallocate(aligned, 8, 128);
  EXPECT_EQ(upstream.blocks().current, 0u);
}

TEST(pool_resource, oversize_requests_can_be_refused) {
  tracking_resource upstream;
  pool_resource pool{64, &upstream, pool_options{oversize_policy::throw_bad_alloc, 32, 4096}};
  try {
    (void)pool.allocate(100, 8);
    FAIL() << "expected pool_exhausted";
  } catch (const pool_exhausted& e) {
    EXPECT_EQ(e.bytes(), 100u);
  }
  EXPECT_EQ(upstream.blocks().total, 0u);
}

// Regression: {48, &upstream, {}} chose the fixed-buffer constructor
// (a pool of capacity 0); clang rejected it.
TEST(pool_resource, braced_options_never_select_a_fixed_buffer) {
  tracking_resource upstream;
  pool_resource pool{48, &upstream, {}};
  EXPECT_FALSE(pool.fixed_capacity());
  EXPECT_EQ(pool.upstream(), &upstream);
  void* p = pool.allocate(48);
  EXPECT_EQ(upstream.blocks().current, 1u);
  pool.deallocate(p, 48);
  static_assert(!std::is_constructible_v<pool_resource, std::size_t, void*, std::size_t>,
                "a buffer must be named: pool_resource{48, alloclab::fixed_buffer{p, n}}");
}

TEST(pool_resource, fixed_buffer_has_a_hard_capacity) {
  alignas(32) std::byte buffer[32 * 10];  // aligned to the blocks: no padding lost
  pool_resource pool{32, fixed_buffer{buffer}};
  EXPECT_EQ(pool.capacity(), 10u);
  void* blocks[10];
  for (void*& b : blocks) {
    b = pool.allocate(32, 8);
    EXPECT_GE(static_cast<std::byte*>(b), buffer);
    EXPECT_LT(static_cast<std::byte*>(b), buffer + sizeof buffer);
  }
  EXPECT_THROW((void)pool.allocate(32, 8), pool_exhausted);
  pool.deallocate(blocks[3], 32, 8);
  EXPECT_EQ(pool.allocate(32, 8), blocks[3]);
  pool.release();
  EXPECT_EQ(pool.allocate(32, 8), buffer) << "release restarts the buffer";
}

TEST(pool_resource, fixed_buffer_oversize_uses_the_given_upstream) {
  alignas(std::max_align_t) std::byte buffer[256];
  pool_resource refusing{32, fixed_buffer{buffer}};
  EXPECT_THROW((void)refusing.allocate(100, 8), std::bad_alloc);
  tracking_resource upstream;
  pool_resource forwarding{32, fixed_buffer{buffer}, pool_options{}, &upstream};
  void* p = forwarding.allocate(100, 8);
  EXPECT_EQ(upstream.blocks().current, 1u);
  forwarding.deallocate(p, 100, 8);
}

TEST(pool_resource, serves_node_containers) {
  tracking_resource upstream;
  {
    pool_resource pool{64, &upstream};
    std::pmr::map<int, int> m{&pool};
    for (int i = 0; i < 500; ++i) m.emplace(i, i * i);
    std::pmr::list<double> l{&pool};
    for (int i = 0; i < 500; ++i) l.push_back(i);
    EXPECT_EQ(m.at(21), 441);
    EXPECT_EQ(pool.oversize_allocations(), 0u);
    EXPECT_LT(upstream.blocks().total, 20u) << "nodes come from chunks, not one upstream call each";
  }
  EXPECT_EQ(upstream.blocks().current, 0u);
}

// Review defect 6: a request with the default alignment (max_align_t) fits
// a block whose layout honours it.
TEST(pool_alignment, default_alignment_requests_are_served_from_blocks) {
  tracking_resource upstream;
  pool_resource pool{24, &upstream};
  void* a = pool.allocate(24);
  std::pmr::memory_resource& generic = pool;
  void* b = generic.allocate(8);
  EXPECT_EQ(pool.oversize_allocations(), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % alignof(std::max_align_t), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % alignof(std::max_align_t), 0u);
  generic.deallocate(b, 8);
  pool.deallocate(a, 24);
}

// Regression: pool_resource{1|4|8} had 8-aligned blocks, so every
// allocate(n) (which asks alignof(max_align_t)) went upstream as oversize.
TEST(pool_alignment, small_pools_serve_default_aligned_requests) {
  for (const std::size_t size : {1, 4, 8}) {
    tracking_resource upstream;
    pool_resource pool{size, &upstream};
    void* a = pool.allocate(size);
    std::pmr::memory_resource& generic = pool;
    void* b = generic.allocate(size);
    EXPECT_EQ(pool.oversize_allocations(), 0u) << "pool_resource{" << size << "}";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % alignof(std::max_align_t), 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % alignof(std::max_align_t), 0u);
    EXPECT_NE(a, b);
    generic.deallocate(b, size);
    pool.deallocate(a, size);
  }
}

TEST(pool_alignment, honours_every_alignment_its_layout_can) {
  tracking_resource upstream;
  pool_resource pool{64, &upstream};
  for (int i = 0; i < 100; ++i) {
    void* p = pool.allocate(64, 64);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u) << i;
  }
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

// GCC bug 118681: libstdc++'s pools misalign requests whose alignment exceeds
// what the size implies. Every cell of the bug's grid, against our pools:
// one pool per size, and one pool whose blocks serve every size.
TEST(pool_alignment, gcc_bug_118681_grid_is_always_aligned) {
  const std::size_t sizes[] = {9, 12, 24, 40, 48, 56, 72};
  const std::size_t alignments[] = {8, 16, 32, 64};
  tracking_resource upstream;
  pool_resource shared{72, &upstream};
  std::size_t cells = 0;
  for (std::size_t size : sizes) {
    pool_resource own{size, &upstream};
    for (std::size_t alignment : alignments) {
      for (pool_resource* pool : {&own, &shared}) {
        for (int i = 0; i < 8; ++i) {
          void* p = pool->allocate(size, alignment);
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u)
              << "size " << size << " alignment " << alignment << " block " << pool->block_size();
          pool->deallocate(p, size, alignment);
        }
      }
      ++cells;
    }
  }
  EXPECT_EQ(cells, 28u);
}

// For the record (not asserted: it is the platform's library, not ours): how
// many cells of the grid this machine's std::pmr pool misaligns.
TEST(pool_alignment, gcc_bug_118681_grid_on_the_standard_pool_is_reported) {
  std::size_t misaligned = 0, cells = 0;
  for (std::size_t size : {9, 12, 24, 40, 48, 56, 72}) {
    for (std::size_t alignment : {8, 16, 32, 64}) {
      std::pmr::unsynchronized_pool_resource pool;
      void* first = pool.allocate(size, alignment);
      void* second = pool.allocate(size, alignment);
      for (void* p : {first, second}) {
        misaligned += reinterpret_cast<std::uintptr_t>(p) % alignment != 0 ? 1 : 0;
        ++cells;
      }
      pool.deallocate(second, size, alignment);
      pool.deallocate(first, size, alignment);
    }
  }
  RecordProperty("std_pool_misaligned_cells", static_cast<int>(misaligned));
  std::printf("std::pmr::unsynchronized_pool_resource: %zu of %zu grid cases misaligned\n",
              misaligned, cells);
}

// Review defect 6: a block size that cannot be laid out is refused.
TEST(pool_resource, refuses_a_block_size_that_cannot_be_laid_out) {
  EXPECT_THROW(pool_resource{SIZE_MAX}, std::length_error);
  alignas(std::max_align_t) std::byte buffer[256];
  EXPECT_THROW((pool_resource{SIZE_MAX, fixed_buffer{buffer}}), std::length_error);
  EXPECT_THROW((pool_resource{SIZE_MAX - 3, fixed_buffer{buffer}}), std::length_error);
}

// Review defect 6: capacity() counts the blocks of every chunk taken, carved
// out yet or not.
TEST(pool_resource, capacity_counts_every_block_of_every_chunk) {
  tracking_resource upstream;
  pool_resource pool{32, &upstream, pool_options{oversize_policy::forward_to_upstream, 4, 64}};
  EXPECT_EQ(pool.capacity(), 0u);
  void* p = pool.allocate(32, 8);
  EXPECT_EQ(pool.capacity(), 4u) << "one chunk of four blocks, one of them carved";
  EXPECT_EQ(pool.chunks(), 1u);
  pool.deallocate(p, 32, 8);
}

TEST(pool_resource, default_arguments_use_the_default_resource) {
  pool_resource pool{32};
  EXPECT_EQ(pool.upstream(), std::pmr::get_default_resource());
  pool.deallocate(pool.allocate(16), 16);
  EXPECT_EQ(pool.oversize_allocations(), 0u);
  alignas(std::max_align_t) std::byte buffer[256];
  pool_resource fixed{32, fixed_buffer{buffer}};
  EXPECT_EQ(fixed.upstream(), alloclab::null_resource());  // refuses through the failure hook
}

TEST(pool_resource, requests_over_ptrdiff_max_fail) {
  pool_resource pool{64, std::pmr::new_delete_resource()};
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)pool.allocate(bytes, 64), std::bad_array_new_length) << bytes;
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

}  // namespace

// Issue 39, defect 10: release() of a fixed-buffer pool under a live
// container, then the container's frees, used to put its blocks on the free
// list while the cursor carved them again: each block was handed out twice.
// A free of a block not carved since the release is dropped and counted.
TEST(pool_resource, a_free_from_before_release_is_dropped_not_reissued) {
  alignas(std::max_align_t) std::byte storage[64 * 32];
  pool_resource pool{32, fixed_buffer{storage}};
  {
    std::pmr::list<int> before_release{&pool};
    for (int i = 0; i < 20; ++i) before_release.push_back(i);
    pool.release();  // the misuse under test: the list is still live
  }                  // its 20 frees name blocks the pool no longer counts as handed out
  EXPECT_EQ(pool.stale_deallocations(), 20u);
  std::set<void*> handed_out;
  for (std::size_t i = 0; i < pool.capacity(); ++i) {
    ASSERT_TRUE(handed_out.insert(pool.allocate(32, 8)).second) << "block " << i << " twice";
  }
  EXPECT_THROW((void)pool.allocate(32, 8), pool_exhausted);
}

// The checked mode catches every reissue, the blocks carved again after the
// release too: checked_resource over the pool flags each overlap.
TEST(pool_resource, checked_resource_over_a_released_pool_flags_each_reissue) {
  alignas(std::max_align_t) static std::byte storage[128 * 32];
  pool_resource pool{128, fixed_buffer{storage}};
  checked_resource checker{&pool};
  checker.set_quiet(true);
  void* before = checker.allocate(16, 8);
  pool.release();  // the misuse under test
  void* after = checker.allocate(16, 8);
  EXPECT_EQ(after, before) << "the pool handed the live block out again";
  EXPECT_EQ(checker.misuse_count(misuse_kind::reissued_live_block), 1u) << checker.last_misuse();
  checker.deallocate(after, 16, 8);
}

// The core without std::pmr: basic_pool over a fixed buffer, oversize
// requests refused by refusing_upstream, through alloclab::allocator.
TEST(basic_pool, serves_a_node_container_from_a_fixed_buffer_without_pmr) {
  alignas(std::max_align_t) static std::byte storage[64 * 256];
  refusing_upstream oversize;
  using pool_type = basic_pool<refusing_upstream>;
  pool_type pool{64, fixed_buffer{storage}, {}, &oversize};
  {
    std::list<int, allocator<int, pool_type>> values{allocator<int, pool_type>{&pool}};
    for (int i = 0; i < 200; ++i) values.push_back(i);
    EXPECT_EQ(values.back(), 199);
  }
  EXPECT_EQ(pool.free_blocks(), pool.capacity());
  EXPECT_THROW((void)pool.allocate(128, 8), std::bad_alloc) << "oversize: refused";
}
