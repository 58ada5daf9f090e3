// Test plan: what multipool_resource and concurrent_multipool_resource promise alike, as one
// typed test over both (their own drivers cover the rest).
//
// | member / property                         | test case                                       |
// |-------------------------------------------|-------------------------------------------------|
// | allocate / deallocate, reuse in a class    | reuses_the_most_recently_freed_block_of_a_class |
// | alignment rule, GCC bug 118681 grid        | gcc_bug_118681_grid_is_aligned_and_distinct     |
// | oversize forwarded and counted             | oversize_requests_are_forwarded_and_counted     |
// | oversize thrown under the throw policy     | oversize_requests_throw_under_throw_policy      |
#include <alloclab/checked_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using namespace alloclab;

template <class Pool>
struct options_of;
template <>
struct options_of<multipool_resource> {
  using type = multipool_options;
};
template <>
struct options_of<concurrent_multipool_resource> {
  using type = concurrent_multipool_options;
};

template <class Pool>
class multipool_family : public ::testing::Test {
 protected:
  using options = typename options_of<Pool>::type;
};
using pools = ::testing::Types<multipool_resource, concurrent_multipool_resource>;
TYPED_TEST_SUITE(multipool_family, pools);

TYPED_TEST(multipool_family, reuses_the_most_recently_freed_block_of_a_class) {
  TypeParam pool{std::pmr::new_delete_resource()};
  void* a = pool.allocate(40, 8);
  void* b = pool.allocate(40, 8);
  pool.deallocate(a, 40, 8);
  EXPECT_EQ(pool.allocate(33, 8), a);  // 33..40 share the 40-byte class
  pool.deallocate(b, 40, 8);
  EXPECT_NE(pool.allocate(48, 8), b);  // another class
  pool.deallocate(a, 33, 8);
}

TYPED_TEST(multipool_family, gcc_bug_118681_grid_is_aligned_and_distinct) {
  checked_resource upstream{std::pmr::new_delete_resource()};
  {
    TypeParam pool{&upstream};
    struct block {
      void* p;
      std::size_t size, alignment;
    };
    std::vector<block> live;
    for (int round = 0; round < 50; ++round)
      for (std::size_t size : {9, 12, 24, 40, 48, 56, 72})
        for (std::size_t alignment : {8, 16, 32, 64}) {
          void* p = pool.allocate(size, alignment);
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u)
              << "size " << size << " alignment " << alignment;
          std::memset(p, static_cast<int>(live.size() & 0xff), size);
          live.push_back({p, size, alignment});
        }
    for (std::size_t i = 0; i < live.size(); ++i) {
      const auto* bytes = static_cast<const unsigned char*>(live[i].p);
      for (std::size_t j = 0; j < live[i].size; ++j)
        ASSERT_EQ(bytes[j], i & 0xff) << "block " << i << " was overwritten";
    }
    EXPECT_EQ(pool.oversize_allocations(), 0u);
    for (const block& b : live) pool.deallocate(b.p, b.size, b.alignment);
  }
  EXPECT_EQ(upstream.blocks_in_use(), 0u);
  EXPECT_EQ(upstream.total_misuses(), 0u) << upstream.last_misuse();
}

TYPED_TEST(multipool_family, oversize_requests_are_forwarded_and_counted) {
  tracking_resource upstream;
  typename TestFixture::options small_classes;
  small_classes.max_block_size = 1024;
  TypeParam pool{&upstream, small_classes};
  EXPECT_EQ(pool.max_block_size(), 1024u);
  const std::size_t before = upstream.blocks().current;  // a pool may hold a chunk already
  void* big = pool.allocate(1025, 8);
  void* aligned = pool.allocate(8, 2048);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % 2048, 0u);
  EXPECT_EQ(pool.oversize_allocations(), 2u);
  EXPECT_EQ(upstream.blocks().current, before + 2);
  pool.deallocate(big, 1025, 8);
  pool.deallocate(aligned, 8, 2048);
  EXPECT_EQ(upstream.blocks().current, before);
}

TYPED_TEST(multipool_family, oversize_requests_throw_under_throw_policy) {
  typename TestFixture::options throwing;
  throwing.oversize = oversize_policy::throw_bad_alloc;
  TypeParam pool{std::pmr::new_delete_resource(), throwing};
  EXPECT_THROW((void)pool.allocate(4097, 8), multipool_exhausted);
  EXPECT_EQ(pool.oversize_allocations(), 0u);
  void* p = pool.allocate(4096, 8);
  pool.deallocate(p, 4096, 8);
}

}  // namespace
