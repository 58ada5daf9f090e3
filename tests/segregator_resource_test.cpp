// Tests of alloclab/segregator_resource.hpp.
//
// | member / property                               | test case                                       |
// |-------------------------------------------------|-------------------------------------------------|
// | routing on bytes, the threshold inclusive       | requests_up_to_the_threshold_go_to_small        |
// | deallocate reaches the allocating side          | requests_up_to_the_threshold_go_to_small        |
// | random sequences (model: aligned, no overlap)   | random_sequences_match_the_model_on_both_sides  |
// | every allocation failing: no leak               | every_failing_allocation_leaves_nothing_behind  |
// | concrete upstreams: non-virtual, any Resource   | concrete_upstreams_need_no_memory_resource      |
#include <alloclab/allocator.hpp>
#include <alloclab/checked_resource.hpp>
#include <alloclab/exception_test.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/segregator_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "block_model.hpp"
#include "test_resources.hpp"

namespace {

using namespace alloclab;

TEST(segregator_resource, requests_up_to_the_threshold_go_to_small) {
  tracking_resource small, large;
  segregator_resource split{256, &small, &large};
  static_assert(
      std::is_same_v<decltype(split), segregator_resource<tracking_resource, tracking_resource>>);
  void* a = split.allocate(256, 8);
  void* b = split.allocate(257, 8);
  void* c = split.allocate(0, 1);
  EXPECT_EQ(small.blocks().current, 2u);
  EXPECT_EQ(large.blocks().current, 1u);
  EXPECT_EQ(large.bytes().current, 257u);
  split.deallocate(a, 256, 8);
  split.deallocate(b, 257, 8);
  split.deallocate(c, 0, 1);
  EXPECT_EQ(small.blocks().current, 0u);
  EXPECT_EQ(large.blocks().current, 0u);
  EXPECT_EQ(split.threshold(), 256u);
  EXPECT_EQ(split.small(), &small);
  EXPECT_EQ(split.large(), &large);
}

TEST(segregator_resource, random_sequences_match_the_model_on_both_sides) {
  checked_resource heap;  // misuse: a block freed on the wrong side or with the wrong size
  multipool_resource pool{&heap};
  segregator_resource<multipool_resource, checked_resource> split{512, &pool, &heap};
  alloclab::testing::block_model_options options;
  options.largest_size = 4096;
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    options.seed = seed;
    EXPECT_EQ(alloclab::testing::run_block_model(split, options), "") << seed;
  }
  for (std::size_t i = 0; i < pool.class_count(); ++i)
    EXPECT_EQ(pool.class_stats(i).blocks_in_use, 0u) << i;
  pool.release();
  EXPECT_EQ(heap.blocks_in_use(), 0u);
  EXPECT_EQ(heap.total_misuses(), 0u) << heap.last_misuse();
}

TEST(segregator_resource, every_failing_allocation_leaves_nothing_behind) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    multipool_resource pool{&r};
    segregator_resource split{128, &pool, &r};
    std::pmr::map<int, std::pmr::string> names{&split};
    for (int i = 0; i < 5; ++i) names.emplace(i, std::pmr::string(20 + 100 * i, 'x'));
    std::pmr::vector<int> big{&split};
    big.resize(1000);
  });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_GE(report.injected_failures, 5u);
}

TEST(segregator_resource, concrete_upstreams_need_no_memory_resource) {
  alloclab::testing::counting_heap small, large;
  segregator_resource<alloclab::testing::counting_heap, alloclab::testing::counting_heap> split{
      64, &small, &large};
  using alloc = allocator<std::uint64_t, segregator_resource<alloclab::testing::counting_heap,
                                                             alloclab::testing::counting_heap>>;
  {
    std::vector<std::uint64_t, alloc> values{alloc{&split}};
    values.reserve(8);  // 64 bytes: small
    EXPECT_EQ(small.live, 1u);
    values.reserve(9);  // 72 bytes: large
    EXPECT_EQ(large.live, 1u);
    EXPECT_EQ(small.live, 0u);
  }
  EXPECT_EQ(large.live, 0u);
}

TEST(segregator_resource, requests_over_ptrdiff_max_fail) {
  segregator_resource<> segregator{1024, std::pmr::new_delete_resource(),
                                   std::pmr::new_delete_resource()};
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)segregator.allocate(bytes, 64), std::bad_array_new_length) << bytes;
}

}  // namespace
