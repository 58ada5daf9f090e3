// The contract every alloclab resource keeps as a std::pmr::memory_resource:
// honoured alignment, distinct live blocks, and std::bad_alloc (never a
// wrapped small block) for sizes that cannot be satisfied.
//
// Test plan (memory_resource member, for every resource and a stack of
// adaptors -> test case):
//   do_allocate: alignment 1..4096 x sizes -> conformance.honours_every_power_of_two_alignment_for_every_size
//   do_allocate/do_deallocate interleaved  -> conformance.blocks_stay_distinct_through_interleaved_frees
//   do_allocate: impossible sizes          -> conformance.impossible_sizes_throw_bad_alloc_instead_of_wrapping
//   do_is_equal                            -> conformance.is_equal_only_to_itself
//   as a pmr container's resource          -> conformance.serves_pmr_containers
#include <alloclab/alloclab.hpp>

#include <gtest/gtest.h>

#include "patterned_block.hpp"
#include "test_heap.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using namespace alloclab;
using alloclab::testing::intact;
using alloclab::testing::test_heap;

// Each fixture owns a resource under test plus whatever it is built on.
struct arena_fixture {
  alignas(std::max_align_t) std::byte buffer[4096];
  arena_resource resource{buffer, sizeof buffer, test_heap()};
};
struct inline_arena_fixture {
  inline_arena<2048> resource{test_heap()};
};
struct pool_fixture {
  pool_resource resource{64, test_heap()};
};
struct multipool_fixture {
  multipool_resource resource{test_heap()};
};
// A caller buffer large enough for the suite's requests; oversize goes to the heap.
struct multipool_buffer_fixture {
  alignas(std::max_align_t) std::byte buffer[512 * 1024];
  multipool_resource resource{fixed_buffer{buffer}, {}, test_heap()};
};
struct concurrent_multipool_fixture {
  concurrent_multipool_resource resource{test_heap()};
};
struct synchronized_fixture {
  synchronized_resource<> resource{test_heap()};
};
struct tracking_fixture {
  tracking_resource resource{test_heap()};
};
struct limit_fixture {
  limit_resource resource{test_heap(), {}};
};
struct checked_fixture {
  checked_resource resource{test_heap()};
};
// A stack of adaptors, as seed 000 recommends for tests.
struct chained_fixture {
  checked_resource checker{test_heap()};
  tracking_resource tracker{&checker};
  limit_resource resource{&tracker, {std::size_t{1} << 30}};
};

template <class Fixture>
class conformance : public ::testing::Test {
 protected:
  std::unique_ptr<Fixture> fixture = std::make_unique<Fixture>();
  std::pmr::memory_resource& resource() { return fixture->resource; }
};

using fixtures =
    ::testing::Types<arena_fixture, inline_arena_fixture, pool_fixture, multipool_fixture,
                     multipool_buffer_fixture, concurrent_multipool_fixture, synchronized_fixture,
                     tracking_fixture, limit_fixture, checked_fixture, chained_fixture>;
TYPED_TEST_SUITE(conformance, fixtures);

struct live_block {
  std::byte* p;
  std::size_t size;
  std::size_t alignment;
  unsigned char pattern;
};

void fill(const live_block& b) {
  std::memset(b.p, b.pattern, b.size);
}

const std::vector<std::size_t> sizes = {0, 1, 3, 7, 13, 64, 100, 4095, 4096, 4097, 65536 + 17};

TYPED_TEST(conformance, honours_every_power_of_two_alignment_for_every_size) {
  std::vector<live_block> live;
  unsigned char pattern = 1;
  for (std::size_t alignment = 1; alignment <= 4096; alignment *= 2) {
    for (std::size_t size : sizes) {
      void* p = this->resource().allocate(size, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u)
          << "size " << size << " alignment " << alignment;
      live.push_back({static_cast<std::byte*>(p), size, alignment, pattern++});
      fill(live.back());
    }
  }
  // Writing every block with its own pattern and reading all of them back
  // proves that no two live blocks overlap.
  for (const live_block& b : live)
    EXPECT_TRUE(intact(b)) << "block of " << b.size << " bytes was overwritten";
  for (const live_block& b : live) this->resource().deallocate(b.p, b.size, b.alignment);
}

TYPED_TEST(conformance, blocks_stay_distinct_through_interleaved_frees) {
  std::vector<live_block> live;
  unsigned char pattern = 1;
  for (int round = 0; round < 200; ++round) {
    const std::size_t size = static_cast<std::size_t>(round * 37 % 300);
    void* p = this->resource().allocate(size, 8);
    live.push_back({static_cast<std::byte*>(p), size, 8, pattern++});
    fill(live.back());
    if (round % 3 == 2) {
      const live_block victim = live[live.size() / 2];
      ASSERT_TRUE(intact(victim));
      this->resource().deallocate(victim.p, victim.size, victim.alignment);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(live.size() / 2));
    }
  }
  for (const live_block& b : live) EXPECT_TRUE(intact(b));
  for (const live_block& b : live) this->resource().deallocate(b.p, b.size, b.alignment);
}

TYPED_TEST(conformance, impossible_sizes_throw_bad_alloc_instead_of_wrapping) {
  const std::size_t near_overflow[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 4095, SIZE_MAX / 2 + 1};
  for (std::size_t size : near_overflow) {
    for (std::size_t alignment : {std::size_t{1}, std::size_t{16}, std::size_t{4096}}) {
      EXPECT_THROW((void)this->resource().allocate(size, alignment), std::bad_alloc)
          << "size " << size << " alignment " << alignment;
    }
  }
  // The resource still works afterwards.
  void* p = this->resource().allocate(32, 8);
  std::memset(p, 0x5A, 32);
  this->resource().deallocate(p, 32, 8);
}

TYPED_TEST(conformance, is_equal_only_to_itself) {
  TypeParam other;
  EXPECT_TRUE(this->resource().is_equal(this->resource()));
  EXPECT_FALSE(this->resource().is_equal(other.resource));
  EXPECT_FALSE(this->resource().is_equal(*std::pmr::new_delete_resource()));
}

TYPED_TEST(conformance, serves_pmr_containers) {
  std::pmr::vector<std::pmr::string> strings{&this->resource()};
  for (int i = 0; i < 50; ++i)
    strings.emplace_back("string number " + std::to_string(i) + " beyond SSO");
  ASSERT_EQ(strings.size(), 50u);
  EXPECT_EQ(strings[49], "string number 49 beyond SSO");
  EXPECT_EQ(strings[7].get_allocator().resource(), &this->resource());
}

}  // namespace
