// Tests of reserve() on pool_resource, multipool_resource and
// concurrent_multipool_resource: after it, the reserved allocations take
// nothing from the upstream (closed: it refuses every request), and an
// upstream failure at any request during reserve leaks nothing.
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/pool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "test_heap.hpp"
#include "test_resources.hpp"

namespace {

using namespace alloclab;
using alloclab::testing::closable_upstream;

// One request shape and how many blocks of it a test reserves.
struct reservation {
  std::size_t bytes;
  std::size_t alignment;
  std::size_t blocks;
};
const std::vector<reservation> shapes = {{16, 8, 300}, {64, 8, 700}, {1000, 16, 90}, {24, 8, 5}};

// Allocates every reserved block (stamped, distinct), frees them, does it again.
template <class Resource>
void use_every_reserved_block(Resource& pool, const std::vector<reservation>& reserved) {
  for (int round = 0; round < 2; ++round) {
    std::vector<std::pair<void*, const reservation*>> blocks;
    std::set<void*> distinct;
    for (const reservation& r : reserved) {
      for (std::size_t i = 0; i < r.blocks; ++i) {
        void* p = pool.allocate(r.bytes, r.alignment);
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % r.alignment, 0u);
        ASSERT_TRUE(distinct.insert(p).second);
        std::memset(p, static_cast<int>(i), r.bytes);
        blocks.emplace_back(p, &r);
      }
    }
    for (auto& [p, r] : blocks) pool.deallocate(p, r->bytes, r->alignment);
  }
}

TEST(pool_reserve, no_upstream_call_after_reserve) {
  closable_upstream upstream{alloclab::testing::test_heap()};
  pool_resource pool{48, &upstream, pool_options{oversize_policy::forward_to_upstream, 4, 8, 0}};
  (void)pool.allocate(48, 8);  // a chunk partly carved: reserve keeps its blocks
  pool.reserve(1000);
  EXPECT_GE(pool.free_blocks(), 1000u);
  EXPECT_EQ(pool.chunks(), 2u) << "one chunk for the blocks missing";
  upstream.close();
  use_every_reserved_block(pool, {{48, 8, 1000}});
  EXPECT_EQ(upstream.requests_after_close(), 0u);
  EXPECT_THROW(
      {
        for (int i = 0; i < 1002; ++i) (void)pool.allocate(48, 8);
      },
      std::bad_alloc)
      << "past the reserve, the closed upstream refuses";
}

TEST(pool_reserve, a_fixed_buffer_reserves_what_it_holds) {
  alignas(64) std::byte storage[64 * 10];  // aligned to the blocks: 10 of them
  pool_resource pool{64, fixed_buffer{storage}};
  pool.reserve(10);
  EXPECT_THROW(pool.reserve(11), pool_exhausted);
  use_every_reserved_block(pool, {{64, 8, 10}});
}

TEST(multipool_reserve, no_upstream_call_after_reserve) {
  closable_upstream upstream{alloclab::testing::test_heap()};
  multipool_resource pool{&upstream};
  (void)pool.allocate(64, 8);
  for (const reservation& r : shapes) pool.reserve(r.bytes, r.alignment, r.blocks);
  for (const reservation& r : shapes)
    EXPECT_GE(pool.class_stats(pool.class_of(r.bytes, r.alignment)).blocks_free, r.blocks);
  upstream.close();
  use_every_reserved_block(pool, shapes);
  EXPECT_EQ(upstream.requests_after_close(), 0u);
  EXPECT_THROW(pool.reserve(8192, 8, 1), multipool_exhausted) << "oversize: no class";
}

TEST(multipool_reserve, a_fixed_buffer_gives_what_it_has) {
  alignas(std::max_align_t) static std::byte storage[64 * 1024];
  multipool_resource pool{fixed_buffer{storage}};
  pool.reserve(64, 8, 500);
  EXPECT_GE(pool.class_stats(pool.class_of(64, 8)).blocks_free, 500u);
  EXPECT_THROW(pool.reserve(128, 8, 1000), multipool_exhausted);
  use_every_reserved_block(pool, {{64, 8, 500}});
}

TEST(concurrent_multipool_reserve, no_upstream_call_after_reserve) {
  closable_upstream upstream{alloclab::testing::test_heap()};
  concurrent_multipool_resource pool{&upstream,
                                     {4096, oversize_policy::forward_to_upstream, 16384}};
  (void)pool.allocate(64, 8);
  for (const reservation& r : shapes) pool.reserve(r.bytes, r.alignment, r.blocks);
  std::thread worker{[&] {
    for (const reservation& r : shapes) pool.reserve(r.bytes, r.alignment, r.blocks);
  }};
  worker.join();  // its cache, reserved, goes idle: the next new thread adopts it
  upstream.close();
  use_every_reserved_block(pool, shapes);
  std::thread adopter{[&] { use_every_reserved_block(pool, shapes); }};
  adopter.join();
  EXPECT_EQ(upstream.requests_after_close(), 0u);
  EXPECT_THROW(pool.reserve(8192, 8, 1), std::length_error);
}

// Failure injection: the upstream fails at its Nth request during the
// reserves, for every N until one pass needs no failure. Nothing leaks and
// the resource still works.
template <class Reserve>
void inject_failures_during_reserve(Reserve reserve_all) {
  for (std::size_t fail_at = 1;; ++fail_at) {
    tracking_resource heap{alloclab::testing::test_heap()};
    limit_resource failing{&heap, {SIZE_MAX, fail_at, false}};
    const bool failed = reserve_all(failing);
    EXPECT_EQ(heap.blocks().current, 0u) << "failing at request " << fail_at;
    EXPECT_EQ(heap.unmatched_deallocations(), 0u) << "failing at request " << fail_at;
    if (!failed) break;
    ASSERT_LT(fail_at, 100u);
  }
}

// Reserves every shape, each failure caught, then uses what was reserved; true when a reserve
// failed.
template <class Pool>
bool reserve_every_shape(Pool& pool) {
  bool failed = false;
  for (const reservation& r : shapes) {
    try {
      pool.reserve(r.bytes, r.alignment, r.blocks);
    } catch (const std::bad_alloc&) {
      failed = true;
    }
  }
  use_every_reserved_block(pool, shapes);
  return failed;
}

TEST(pool_reserve, an_upstream_failure_during_reserve_leaks_nothing) {
  inject_failures_during_reserve([](std::pmr::memory_resource& upstream) {
    pool_resource pool{32, &upstream, pool_options{oversize_policy::forward_to_upstream, 4, 8, 0}};
    bool failed = false;
    for (std::size_t blocks : {3, 10, 100, 1000}) {
      try {
        (void)pool.allocate(32, 8);
        pool.reserve(blocks);
      } catch (const std::bad_alloc&) {
        failed = true;
      }
    }
    (void)pool.allocate(32, 8);  // still usable (the failure was one request)
    return failed;
  });
}

TEST(multipool_reserve, an_upstream_failure_during_reserve_leaks_nothing) {
  inject_failures_during_reserve([](std::pmr::memory_resource& upstream) {
    multipool_resource pool{&upstream};
    return reserve_every_shape(pool);
  });
}

TEST(concurrent_multipool_reserve, an_upstream_failure_during_reserve_leaks_nothing) {
  inject_failures_during_reserve([](std::pmr::memory_resource& upstream) {
    concurrent_multipool_resource pool{&upstream,
                                       {4096, oversize_policy::forward_to_upstream, 16384}};
    return reserve_every_shape(pool);
  });
}

}  // namespace
