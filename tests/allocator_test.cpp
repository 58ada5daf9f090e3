#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/pool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <list>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>

namespace {

using namespace alloclab;

// A resource with no virtual functions at all: proves the adapter needs only
// the two member functions of the Resource concept.
struct plain_counting_resource {
  std::size_t allocations = 0;
  std::size_t live_bytes = 0;
  void* allocate(std::size_t bytes, std::size_t alignment) {
    ++allocations;
    live_bytes += bytes;
    return ::operator new (bytes, std::align_val_t{alignment});
  }
  void deallocate(void* p, std::size_t bytes, std::size_t alignment) {
    live_bytes -= bytes;
    ::operator delete (p, std::align_val_t{alignment});
  }
};

TEST(allocator, traits_say_what_a_stateful_allocator_must) {
  using traits = std::allocator_traits<allocator<int, arena_resource>>;
  static_assert(!traits::is_always_equal::value);
  static_assert(!traits::propagate_on_container_copy_assignment::value);
  static_assert(traits::propagate_on_container_move_assignment::value);
  static_assert(traits::propagate_on_container_swap::value);
  static_assert(std::is_same_v<traits::rebind_alloc<double>, allocator<double, arena_resource>>);
  static_assert(!std::is_default_constructible_v<allocator<int, arena_resource>>);
  SUCCEED();
}

TEST(allocator, equality_means_same_resource_across_rebinding) {
  pool_resource a{32}, b{32};
  allocator<int, pool_resource> ia{&a};
  allocator<double, pool_resource> da{ia};
  EXPECT_EQ(da.resource(), &a);
  EXPECT_TRUE(ia == da);
  EXPECT_FALSE(ia == (allocator<int, pool_resource>{&b}));
  EXPECT_TRUE(ia != (allocator<int, pool_resource>{&b}));
}

TEST(allocator, works_with_a_resource_that_has_no_vtable) {
  plain_counting_resource r;
  {
    std::vector<int, allocator<int, plain_counting_resource>> v{
        allocator<int, plain_counting_resource>{&r}};
    for (int i = 0; i < 100; ++i) v.push_back(i);
    EXPECT_GT(r.allocations, 1u);
  }
  EXPECT_EQ(r.live_bytes, 0u);
}

TEST(allocator, honours_over_aligned_types) {
  struct alignas(64) cache_line {
    char bytes[64];
  };
  alignas(std::max_align_t) std::byte buffer[4096];
  arena_resource arena{buffer + 8, sizeof buffer - 8, std::pmr::null_memory_resource()};
  std::vector<cache_line, allocator<cache_line, arena_resource>> v{
      allocator<cache_line, arena_resource>{&arena}};
  v.resize(3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u);
}

TEST(allocator, refuses_counts_that_overflow_the_byte_size) {
  tracking_resource tracker;
  allocator<std::uint64_t, tracking_resource> a{&tracker};
  EXPECT_THROW((void)a.allocate(SIZE_MAX / 4), std::bad_array_new_length);
  EXPECT_EQ(tracker.blocks().total, 0u);
}

TEST(allocator, node_containers_rebind_to_their_node_type) {
  tracking_resource tracker;
  {
    using alloc = allocator<std::pair<const int, int>, tracking_resource>;
    std::map<int, int, std::less<>, alloc> m{alloc{&tracker}};
    for (int i = 0; i < 10; ++i) m.emplace(i, i);
    EXPECT_EQ(tracker.blocks().current, 10u) << "one node per element, through the tracker";
  }
  EXPECT_EQ(tracker.blocks().current, 0u);
}

TEST(allocator, move_assignment_carries_the_resource) {
  tracking_resource first, second;
  using alloc = allocator<int, tracking_resource>;
  std::vector<int, alloc> a{{1, 2, 3}, alloc{&first}};
  std::vector<int, alloc> b{alloc{&second}};
  const int* data = a.data();
  b = std::move(a);
  EXPECT_EQ(b.get_allocator().resource(), &first);
  EXPECT_EQ(b.data(), data) << "no element-wise move, no new allocation";
  EXPECT_EQ(second.blocks().total, 0u);
}

TEST(allocator, copy_keeps_the_source_resource_and_copy_assignment_keeps_the_target) {
  tracking_resource first, second;
  using alloc = allocator<int, tracking_resource>;
  std::vector<int, alloc> a{{1, 2, 3}, alloc{&first}};
  std::vector<int, alloc> copy{a};
  EXPECT_EQ(copy.get_allocator().resource(), &first);
  std::vector<int, alloc> target{alloc{&second}};
  target = a;
  EXPECT_EQ(target.get_allocator().resource(), &second);
  EXPECT_EQ(second.blocks().current, 1u);
}

TEST(allocator, over_memory_resource_dispatches_virtually) {
  tracking_resource tracker;
  std::pmr::memory_resource* base = &tracker;
  std::vector<int, allocator<int>> v{allocator<int>{base}};
  v.push_back(1);
  EXPECT_EQ(tracker.blocks().current, 1u);
}

}  // namespace
