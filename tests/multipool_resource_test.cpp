// Test plan: multipool_resource (also in conformance_test.cpp,
// container_exception_test.cpp and the model harness).
//
// | member / property                        | test case                                          |
// |------------------------------------------|----------------------------------------------------|
// | allocate / deallocate, reuse, GCC bug 118681 grid, oversize forwarded or thrown:           |
// |   multipool_family_test.cpp (typed over both multipools)                                   |
// | class grid, worst-case waste             | every_size_lands_in_the_smallest_class_that_holds_it |
// | alignment up to max_block_size pooled    | alignment_up_to_the_largest_class_stays_pooled     |
// | chunks from upstream, growth, release()  | takes_growing_chunks_and_returns_them_on_release   |
// | caller buffer with hard capacity         | fixed_buffer_throws_when_full_and_release_resets_it |
// | braced options never pick the buffer     | braced_options_never_select_a_fixed_buffer         |
// | max_block_size normalisation             | max_block_size_is_rounded_up_to_a_class            |
// | class_of, class_count, class_stats       | class_stats_follow_in_use_and_free_blocks          |
// | class_stats(no_class), index past count  | class_stats_of_an_oversize_request_is_empty        |
// | zero-byte requests, bad alignment        | zero_bytes_get_a_distinct_block, non_power_of_two_alignment_throws |
// | upstream failure leaves state unchanged  | upstream_failure_leaves_the_pool_usable            |
// | alloclab::allocator (non-virtual path)   | serves_alloclab_allocator_without_virtual_calls    |
// | chunk sizes near SIZE_MAX (no wrap)      | unlimited_chunk_bytes_never_wrap_the_chunk_size    |
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/checked_resource.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <type_traits>
#include <vector>

#include "test_heap.hpp"
#include "test_resources.hpp"

namespace {

using namespace alloclab;

TEST(multipool_resource, every_size_lands_in_the_smallest_class_that_holds_it) {
  multipool_resource pool{std::pmr::new_delete_resource(), multipool_options{std::size_t{1} << 20}};
  std::size_t previous_class_size = 0;
  for (std::size_t bytes = 1; bytes <= (std::size_t{1} << 20); ++bytes) {
    const std::size_t index = pool.class_of(bytes, 1);
    ASSERT_NE(index, multipool_resource::no_class) << bytes;
    const std::size_t block = pool.class_stats(index).block_size;
    ASSERT_GE(block, bytes);
    if (index > 0) {
      ASSERT_LT(pool.class_stats(index - 1).block_size, bytes) << bytes;
    }
    // The stated worst case: 7 bytes up to 64, under 20% of the block above.
    if (bytes <= 64) {
      ASSERT_LE(block - bytes, 7u) << bytes;
    } else {
      ASSERT_LT(static_cast<double>(block - bytes), 0.2 * static_cast<double>(block)) << bytes;
    }
    ASSERT_GE(block, previous_class_size);
    previous_class_size = block;
  }
  EXPECT_EQ(pool.class_count(), 64u);
}

TEST(multipool_resource, alignment_up_to_the_largest_class_stays_pooled) {
  multipool_resource pool{std::pmr::new_delete_resource()};
  for (std::size_t alignment = 1; alignment <= pool.max_block_size(); alignment *= 2) {
    for (std::size_t size : {1, 7, 72, 200, 1000}) {
      if (size > pool.max_block_size()) continue;
      void* p = pool.allocate(size, alignment);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u)
          << "size " << size << " alignment " << alignment;
      pool.deallocate(p, size, alignment);
    }
  }
  EXPECT_EQ(pool.oversize_allocations(), 0u);
  void* p = pool.allocate(8, 2 * pool.max_block_size());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (2 * pool.max_block_size()), 0u);
  EXPECT_EQ(pool.oversize_allocations(), 1u);
  pool.deallocate(p, 8, 2 * pool.max_block_size());
}

TEST(multipool_resource, takes_growing_chunks_and_returns_them_on_release) {
  tracking_resource upstream;
  multipool_options options;
  options.first_chunk_bytes = 4 * 64;
  options.max_chunk_bytes = 16 * 64;
  multipool_resource pool{&upstream, options};
  std::set<void*> distinct;
  for (int i = 0; i < 4 + 8 + 16 + 16; ++i) distinct.insert(pool.allocate(64, 8));
  EXPECT_EQ(distinct.size(), 44u);
  const multipool_class_stats stats = pool.class_stats(pool.class_of(64, 8));
  EXPECT_EQ(stats.chunks, 4u);
  EXPECT_EQ(stats.blocks_in_use, 44u);
  EXPECT_EQ(stats.blocks_free, 0u);
  EXPECT_EQ(upstream.blocks().current, 4u);
  pool.release();
  EXPECT_EQ(upstream.blocks().current, 0u);
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).chunks, 0u);
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).blocks_in_use, 0u);
}

TEST(multipool_resource, fixed_buffer_throws_when_full_and_release_resets_it) {
  alignas(64) static std::byte buffer[4096];
  multipool_resource pool{fixed_buffer{buffer}};
  std::vector<void*> blocks;
  try {
    for (;;) blocks.push_back(pool.allocate(64, 8));
  } catch (const multipool_exhausted& e) {
    EXPECT_EQ(e.bytes(), 64u);
  }
  EXPECT_EQ(blocks.size(), sizeof buffer / 64);
  for (void* p : blocks) {
    EXPECT_GE(static_cast<std::byte*>(p), buffer);
    EXPECT_LE(static_cast<std::byte*>(p) + 64, buffer + sizeof buffer);
  }
  EXPECT_THROW((void)pool.allocate(8, 8), multipool_exhausted);  // no room for another class
  pool.deallocate(blocks.back(), 64, 8);
  EXPECT_EQ(pool.allocate(64, 8), blocks.back());  // freed blocks are still reused
  pool.release();
  EXPECT_EQ(pool.allocate(8, 8), static_cast<void*>(buffer));
  EXPECT_TRUE(pool.fixed_capacity());
}

// Regression: {&upstream, {2048}} chose the fixed-buffer constructor
// (a buffer of capacity 1 inside the upstream object); clang rejected it.
TEST(multipool_resource, braced_options_never_select_a_fixed_buffer) {
  tracking_resource upstream;
  multipool_resource pool{&upstream, {2048}};
  EXPECT_FALSE(pool.fixed_capacity());
  EXPECT_EQ(pool.upstream(), &upstream);
  EXPECT_EQ(pool.max_block_size(), 2048u);
  void* p = pool.allocate(100, 8);
  EXPECT_EQ(upstream.blocks().current, 1u);
  pool.deallocate(p, 100, 8);
  static_assert(!std::is_constructible_v<multipool_resource, void*, std::size_t>,
                "a buffer must be named: multipool_resource{alloclab::fixed_buffer{p, n}}");
}

std::size_t normalized(std::size_t max_block_size) {
  return multipool_resource{std::pmr::null_memory_resource(), multipool_options{max_block_size}}
      .max_block_size();
}

TEST(multipool_resource, max_block_size_is_rounded_up_to_a_class) {
  EXPECT_EQ(normalized(1), 8u);
  EXPECT_EQ(normalized(65), 80u);
  EXPECT_EQ(normalized(5000), 5120u);
  EXPECT_EQ(normalized(std::size_t{1} << 30), std::size_t{1} << 20);
  EXPECT_EQ(
      (multipool_resource{std::pmr::null_memory_resource(), multipool_options{80}}.class_count()),
      9u);
}

TEST(multipool_resource, class_stats_follow_in_use_and_free_blocks) {
  multipool_options options;
  options.first_chunk_bytes = 10 * 96;
  multipool_resource pool{std::pmr::new_delete_resource(), options};
  const std::size_t index = pool.class_of(90, 8);
  ASSERT_EQ(pool.class_stats(index).block_size, 96u);
  void* a = pool.allocate(90, 8);
  void* b = pool.allocate(96, 16);
  multipool_class_stats stats = pool.class_stats(index);
  EXPECT_EQ(stats.blocks_in_use, 2u);
  EXPECT_EQ(stats.blocks_free, 8u);
  EXPECT_EQ(stats.chunks, 1u);
  pool.deallocate(a, 90, 8);
  pool.deallocate(b, 96, 16);
  stats = pool.class_stats(index);
  EXPECT_EQ(stats.blocks_in_use, 0u);
  EXPECT_EQ(stats.blocks_free, 10u);
  EXPECT_EQ(pool.class_of(4097, 1), multipool_resource::no_class);
  EXPECT_EQ(pool.class_of(8, 3), multipool_resource::no_class);
}

TEST(multipool_resource, zero_bytes_get_a_distinct_block) {
  multipool_resource pool{std::pmr::new_delete_resource()};
  void* a = pool.allocate(0, 8);
  void* b = pool.allocate(0, 8);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.class_stats(0).blocks_in_use, 2u);
  pool.deallocate(a, 0, 8);
  pool.deallocate(b, 0, 8);
  EXPECT_EQ(pool.class_stats(0).blocks_in_use, 0u);
}

TEST(multipool_resource, non_power_of_two_alignment_throws) {
  multipool_resource pool{std::pmr::new_delete_resource()};
  EXPECT_THROW((void)pool.allocate(8, 3), std::bad_alloc);
  EXPECT_THROW((void)pool.allocate(8, 0), std::bad_alloc);
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

TEST(multipool_resource, upstream_failure_leaves_the_pool_usable) {
  alignas(64) std::byte one_chunk[4096 + 64];
  arena_resource budget{one_chunk, sizeof one_chunk, std::pmr::null_memory_resource(),
                        arena_options{overflow_policy::throw_bad_alloc, 2.0, 0, {}}};
  multipool_resource pool{&budget};
  void* first = pool.allocate(16, 8);                        // takes the only chunk
  EXPECT_THROW((void)pool.allocate(32, 8), std::bad_alloc);  // no second chunk
  EXPECT_EQ(pool.class_stats(pool.class_of(32, 8)).chunks, 0u);
  pool.deallocate(first, 16, 8);
  EXPECT_EQ(pool.allocate(16, 8), first);
}

// This test used to pass unchanged through polymorphic_allocator.
// Now a virtual call is counted, and the control shows the counter works.
TEST(multipool_resource, serves_alloclab_allocator_without_virtual_calls) {
  alloclab::testing::counts_virtual_calls<multipool_resource> pool{std::pmr::new_delete_resource()};
  using alloc = allocator<std::uint64_t, multipool_resource>;
  {
    std::vector<std::uint64_t, alloc> values{alloc{&pool}};
    for (std::uint64_t i = 0; i < 500; ++i) values.push_back(i);
    EXPECT_EQ(values[499], 499u);
    EXPECT_EQ(pool.class_stats(pool.class_of(values.capacity() * 8, 8)).blocks_in_use, 1u);
  }
  EXPECT_EQ(pool.virtual_calls, 0u);
  std::pmr::vector<std::uint64_t> control{&pool};
  control.push_back(1);
  EXPECT_EQ(pool.virtual_calls, 1u) << "the counter sees a call through memory_resource";
}

// Regression: class_stats(class_of(n)) for an oversize n indexed the
// class array with no_class (the header's own example pattern).
TEST(multipool_resource, class_stats_of_an_oversize_request_is_empty) {
  multipool_resource pool{std::pmr::new_delete_resource(), multipool_options{256}};
  const std::size_t oversize = pool.class_of(4096, 8);
  ASSERT_EQ(oversize, multipool_resource::no_class);
  void* p = pool.allocate(4096, 8);
  for (const std::size_t index : {oversize, pool.class_count(), pool.class_count() + 1}) {
    const multipool_class_stats stats = pool.class_stats(index);
    EXPECT_EQ(stats.block_size, 0u) << index;
    EXPECT_EQ(stats.blocks_in_use, 0u) << index;
    EXPECT_EQ(stats.blocks_free, 0u) << index;
    EXPECT_EQ(stats.chunks, 0u) << index;
  }
  EXPECT_EQ(pool.class_stats(pool.class_count() - 1).block_size, 256u);
  pool.deallocate(p, 4096, 8);
}

// SIZE_MAX as "no limit": the chunk size must not wrap (it asked the upstream
// for 24 bytes and wrote the trailer before them).
TEST(multipool_resource, unlimited_chunk_bytes_never_wrap_the_chunk_size) {
  tracking_resource upstream{
      alloclab::testing::test_heap()};  // absurd sizes throw, even under ASan
  multipool_options unlimited;
  unlimited.first_chunk_bytes = SIZE_MAX;
  unlimited.max_chunk_bytes = SIZE_MAX;
  multipool_resource pool{&upstream, unlimited};
  for (const std::size_t bytes : {8, 64, 4096})
    EXPECT_THROW((void)pool.allocate(bytes, 8), std::bad_alloc) << bytes;
  EXPECT_EQ(upstream.blocks().total, 0u) << "asked the upstream for " << upstream.bytes().total;

  multipool_options growing;
  growing.max_chunk_bytes = SIZE_MAX;  // the first chunk is the default 4 KiB
  multipool_resource grows{&upstream, growing};
  for (int i = 0; i < 200; ++i) std::memset(grows.allocate(64, 8), 0, 64);
  EXPECT_EQ(grows.class_stats(grows.class_of(64, 8)).blocks_in_use, 200u);
}

TEST(multipool_resource, requests_over_ptrdiff_max_fail) {
  multipool_resource pool{std::pmr::new_delete_resource()};
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)pool.allocate(bytes, 64), std::bad_array_new_length) << bytes;
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

}  // namespace

// The core without std::pmr: basic_multipool over a fixed buffer, oversize
// requests refused by refusing_upstream, through alloclab::allocator.
TEST(basic_multipool, serves_a_container_from_a_fixed_buffer_without_pmr) {
  alignas(std::max_align_t) static std::byte storage[16 * 1024];
  refusing_upstream oversize;
  using pool_type = basic_multipool<refusing_upstream>;
  multipool_options options;
  options.first_chunk_bytes = 512;  // each class vector growth visits takes 512 bytes first
  pool_type pool{fixed_buffer{storage}, options, &oversize};
  {
    std::vector<int, allocator<int, pool_type>> values{allocator<int, pool_type>{&pool}};
    for (int i = 0; i < 500; ++i) values.push_back(i);
    EXPECT_EQ(values[499], 499);
  }
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).blocks_in_use, 0u);
  EXPECT_THROW((void)pool.allocate(8192, 8), std::bad_alloc) << "oversize: refused";
}
