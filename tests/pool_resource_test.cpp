#include <alloclab/pool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <list>
#include <map>
#include <set>

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
  EXPECT_EQ(pool_resource{1}.block_size(), sizeof(void*));
  EXPECT_EQ(pool_resource{20}.block_size(), 24u);
  EXPECT_EQ(pool_resource{24}.block_alignment(), 8u);
  EXPECT_EQ(pool_resource{64}.block_alignment(), alignof(std::max_align_t));
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
  void* aligned = pool.allocate(8, 64);  // alignment beyond the block's
  EXPECT_EQ(pool.oversize_allocations(), 2u);
  EXPECT_EQ(upstream.blocks().current, 2u);
  pool.deallocate(big, 65, 8);
  pool.deallocate(aligned, 8, 64);
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

TEST(pool_resource, fixed_buffer_has_a_hard_capacity) {
  alignas(std::max_align_t) std::byte buffer[32 * 10];
  pool_resource pool{32, buffer, sizeof buffer};
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
  pool_resource refusing{32, buffer, sizeof buffer};
  EXPECT_THROW((void)refusing.allocate(100, 8), std::bad_alloc);
  tracking_resource upstream;
  pool_resource forwarding{32, buffer, sizeof buffer, pool_options{}, &upstream};
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

}  // namespace
