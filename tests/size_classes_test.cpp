// Tests of alloclab/detail/size_classes.hpp's class index (the
// table covers 4 KiB and is the expected path) and of multipool's free
// lists kept apart from the class records.
//
// | property                                         | test case                                    |
// |--------------------------------------------------|----------------------------------------------|
// | table and computed index agree on every size      | table_and_formula_agree_up_to_1_MiB          |
// | the index names the smallest class that holds it  | every_size_maps_to_the_smallest_holding_class |
// | one class's head never serves another class       | heads_of_neighbouring_classes_stay_separate  |
// | classes past the table (computed, out of line)    | classes_beyond_the_table_keep_their_blocks_too |
// | the builtin-free floor_log2 agrees with the builtin | floor_log2_fallback_agrees_on_every_bit      |
#include <alloclab/detail/compiler.hpp>
#include <alloclab/detail/size_classes.hpp>
#include <alloclab/multipool_resource.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <vector>

namespace {

using namespace alloclab::detail;

TEST(size_classes, floor_log2_fallback_agrees_on_every_bit) {
  static_assert(floor_log2_portable(1) == 0 && floor_log2(1) == 0);
  static_assert(floor_log2_portable(SIZE_MAX) == sizeof(std::size_t) * 8 - 1);
  for (unsigned bit = 0; bit < sizeof(std::size_t) * 8; ++bit) {
    const std::size_t power = std::size_t{1} << bit;
    for (const std::size_t value : {power, power | (power - 1), power | 1}) {
      ASSERT_EQ(floor_log2_portable(value), bit) << value;
      ASSERT_EQ(floor_log2(value), bit) << value;
    }
  }
}

TEST(size_classes, table_and_formula_agree_up_to_1_MiB) {
  for (std::size_t minus_one = 0; minus_one < largest_class_limit; ++minus_one)
    ASSERT_EQ(class_index_from_minus_one(minus_one), computed_class_index(minus_one)) << minus_one;
}

TEST(size_classes, every_size_maps_to_the_smallest_holding_class) {
  for (std::size_t bytes = 1; bytes <= largest_class_limit; ++bytes) {
    const std::size_t index = class_index_from_minus_one(bytes - 1);
    ASSERT_LT(index, max_class_count) << bytes;
    ASSERT_GE(class_size(index), bytes) << bytes;
    if (index > 0) {
      ASSERT_LT(class_size(index - 1), bytes) << bytes;
    }
  }
}

// Every class up to `largest` holds blocks at once; each block carries its
// size as a pattern. A head shared or mixed up between classes would hand a
// block of one size to a request of another: the patterns or sizes disagree.
void random_sizes_keep_their_classes(alloclab::multipool_resource& pool, std::size_t largest,
                                     int rounds) {
  struct block {
    unsigned char* p;
    std::size_t size;
  };
  std::vector<block> live;
  std::uint32_t state = 7;
  for (int round = 0; round < rounds; ++round) {
    state = state * 1664525u + 1013904223u;
    if (!live.empty() && (state >> 28) < 7) {
      const std::size_t i = (state >> 8) % live.size();
      for (std::size_t k = 0; k < live[i].size; ++k)
        ASSERT_EQ(live[i].p[k], static_cast<unsigned char>(live[i].size)) << live[i].size;
      pool.deallocate(live[i].p, live[i].size, 8);
      live[i] = live.back();
      live.pop_back();
      continue;
    }
    const std::size_t size = 1 + (state >> 8) % largest;
    auto* p = static_cast<unsigned char*>(pool.allocate(size, 8));
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % 8, 0u);
    std::memset(p, static_cast<unsigned char>(size), size);
    live.push_back({p, size});
  }
  for (const block& b : live) pool.deallocate(b.p, b.size, 8);
  for (std::size_t i = 0; i < pool.class_count(); ++i)
    EXPECT_EQ(pool.class_stats(i).blocks_in_use, 0u) << i;
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

TEST(size_classes, heads_of_neighbouring_classes_stay_separate) {
  alloclab::multipool_resource pool{std::pmr::new_delete_resource()};
  random_sizes_keep_their_classes(pool, 4096, 20000);  // the default: every class in the table
}

TEST(size_classes, classes_beyond_the_table_keep_their_blocks_too) {
  // 4 KiB .. 64 KiB classes take the out-of-line computed index.
  alloclab::multipool_options options;
  options.max_block_size = 64 * 1024;
  alloclab::multipool_resource pool{std::pmr::new_delete_resource(), options};
  random_sizes_keep_their_classes(pool, 64 * 1024, 2000);
  for (const std::size_t size : {4095, 4096, 4097, 5120, 5121, 65536}) {
    void* p = pool.allocate(size, 8);
    const std::size_t index = pool.class_of(size, 8);
    EXPECT_EQ(pool.class_stats(index).blocks_in_use, 1u) << size;
    EXPECT_GE(pool.class_stats(index).block_size, static_cast<std::size_t>(size));
    pool.deallocate(p, size, 8);
    EXPECT_EQ(pool.class_stats(index).blocks_in_use, 0u) << size;
  }
}

}  // namespace
