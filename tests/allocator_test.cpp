// Tests of alloclab/allocator.hpp.
//
// Test plan (public member -> test case):
//   allocator(Resource*), resource()        -> allocator.over_memory_resource_dispatches_virtually
//   allocator() (memory_resource only)      -> allocator_model.over_memory_resource_default_constructs_on_the_default_resource
//   converting constructor, rebind          -> allocator.equality_means_same_resource_across_rebinding,
//                                              allocator.node_containers_rebind_to_their_node_type
//   allocate(n), max_size()                 -> allocator.refuses_counts_that_overflow_the_byte_size,
//                                              allocator.honours_over_aligned_types
//   allocate/deallocate, no vtable needed   -> allocator.works_with_a_resource_that_has_no_vtable
//   traits (POCCA/POCMA/POCS, always_equal) -> allocator.traits_say_what_a_stateful_allocator_must
//   move assignment, unequal resources      -> allocator.move_assignment_keeps_the_target_resource,
//                                              allocator_model.move_assignment_between_resources_moves_the_elements
//   move assignment, equal resources        -> allocator_model.move_assignment_on_the_same_resource_steals_the_buffer
//   swap                                    -> allocator_model.swap_keeps_each_container_on_its_resource
//   select_on_container_copy_construction   -> allocator.copy_keeps_the_source_resource_and_copy_assignment_keeps_the_target,
//                                              allocator_model.copy_over_memory_resource_goes_to_the_default_resource
//   construct (uses-allocator), destroy     -> allocator_model.elements_that_take_an_allocator_get_the_resource,
//                                              allocator_model.pair_elements_get_the_resource_piecewise,
//                                              allocator_model.nested_alloclab_containers_get_the_resource
//   operator==, operator!= (is_equal)       -> allocator_model.equality_follows_is_equal,
//                                              allocator.equality_means_same_resource_across_rebinding
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/pool_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <string>
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
  static_assert(!traits::propagate_on_container_move_assignment::value);
  static_assert(!traits::propagate_on_container_swap::value);
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

TEST(allocator, move_assignment_keeps_the_target_resource) {
  tracking_resource first, second;
  using alloc = allocator<int, tracking_resource>;
  std::vector<int, alloc> a{{1, 2, 3}, alloc{&first}};
  std::vector<int, alloc> b{alloc{&second}};
  b = std::move(a);
  EXPECT_EQ(b.get_allocator().resource(), &second);
  EXPECT_EQ(b, (std::vector<int, alloc>{{1, 2, 3}, alloc{&second}}));
  EXPECT_EQ(second.blocks().current, 1u) << "the elements moved into the target's memory";
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

// Regression: over memory_resource a copy used to stay on its
// source's resource, so a copy taken out of a scoped arena dangled.
TEST(allocator_model, copy_over_memory_resource_goes_to_the_default_resource) {
  tracking_resource fallback;
  std::pmr::memory_resource* previous = std::pmr::set_default_resource(&fallback);
  using alloc = allocator<int>;
  std::vector<int, alloc> kept{alloc{std::pmr::new_delete_resource()}};
  {
    alignas(std::max_align_t) std::byte buffer[1024];
    arena_resource scratch{buffer, sizeof buffer, std::pmr::null_memory_resource()};
    arena_scope scope{scratch};
    std::vector<int, alloc> temporary{{1, 2, 3}, alloc{&scratch}};
    std::vector<int, alloc> copy{temporary};
    EXPECT_EQ(copy.get_allocator().resource(), &fallback);
    kept = copy;
  }
  std::pmr::set_default_resource(previous);
  EXPECT_EQ(kept, (std::vector<int, alloc>{{1, 2, 3}}));
  EXPECT_EQ(fallback.blocks().total, 1u) << "the copy's buffer came from the default resource";
  const std::pmr::polymorphic_allocator<int> standard{std::pmr::new_delete_resource()};
  EXPECT_EQ(
      alloc{std::pmr::new_delete_resource()}.select_on_container_copy_construction().resource(),
      standard.select_on_container_copy_construction().resource())
      << "the same choice as polymorphic_allocator";
}

TEST(allocator, over_memory_resource_dispatches_virtually) {
  tracking_resource tracker;
  std::pmr::memory_resource* base = &tracker;
  std::vector<int, allocator<int>> v{allocator<int>{base}};
  v.push_back(1);
  EXPECT_EQ(tracker.blocks().current, 1u);
}

// Review defect 2: a long-lived container move-assigned from a scratch one
// must not adopt the scratch resource (polymorphic_allocator's model).
TEST(allocator_model, move_assignment_between_resources_moves_the_elements) {
  tracking_resource long_lived;
  using alloc = allocator<int, arena_resource>;
  alignas(std::max_align_t) std::byte buffer[4096];
  arena_resource scratch{buffer, sizeof buffer, std::pmr::null_memory_resource()};
  alignas(std::max_align_t) std::byte kept_buffer[4096];
  arena_resource kept{kept_buffer, sizeof kept_buffer, &long_lived};
  std::vector<int, alloc> result{alloc{&kept}};
  {
    arena_scope scope{scratch};
    std::vector<int, alloc> work{{1, 2, 3, 4}, alloc{&scratch}};
    result = std::move(work);
  }
  // The scratch memory is reused for something else.
  std::memset(scratch.allocate(sizeof buffer, 1), 0xEE, sizeof buffer);
  EXPECT_EQ(result.get_allocator().resource(), &kept);
  EXPECT_EQ(result, (std::vector<int, alloc>{{1, 2, 3, 4}, alloc{&kept}}));
}

TEST(allocator_model, move_assignment_on_the_same_resource_steals_the_buffer) {
  tracking_resource tracker;
  using alloc = allocator<int, tracking_resource>;
  std::vector<int, alloc> a{{1, 2, 3}, alloc{&tracker}};
  std::vector<int, alloc> b{alloc{&tracker}};
  const int* data = a.data();
  const std::size_t allocations = tracker.blocks().total;
  b = std::move(a);
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(tracker.blocks().total, allocations);
}

TEST(allocator_model, swap_keeps_each_container_on_its_resource) {
  tracking_resource tracker;
  using alloc = allocator<int, tracking_resource>;
  std::vector<int, alloc> a{{1, 2}, alloc{&tracker}};
  std::vector<int, alloc> b{{3}, alloc{&tracker}};
  a.swap(b);
  EXPECT_EQ(a, (std::vector<int, alloc>{{3}, alloc{&tracker}}));
  EXPECT_EQ(b.size(), 2u);
}

// Review defect 2: uses-allocator construction.
TEST(allocator_model, elements_that_take_an_allocator_get_the_resource) {
  tracking_resource tracker;
  using alloc = allocator<std::pmr::string, tracking_resource>;
  std::vector<std::pmr::string, alloc> names{alloc{&tracker}};
  names.emplace_back("a string that is much too long for the small-string buffer");
  names.push_back(std::pmr::string{"another string too long for the small-string buffer"});
  EXPECT_EQ(names[0].get_allocator().resource(), &tracker);
  EXPECT_EQ(names[1].get_allocator().resource(), &tracker);
}

TEST(allocator_model, pair_elements_get_the_resource_piecewise) {
  tracking_resource tracker;
  using value = std::pair<const int, std::pmr::string>;
  using alloc = allocator<value, tracking_resource>;
  std::map<int, std::pmr::string, std::less<>, alloc> m{alloc{&tracker}};
  m.emplace(1, "a string that is much too long for the small-string buffer");
  m.emplace(std::piecewise_construct, std::forward_as_tuple(2), std::forward_as_tuple(40, 'x'));
  m.insert(value{3, "a third string, also too long for the small-string buffer"});
  m[4];
  for (const auto& [key, text] : m) EXPECT_EQ(text.get_allocator().resource(), &tracker) << key;
}

TEST(allocator_model, nested_alloclab_containers_get_the_resource) {
  tracking_resource tracker;
  using inner_alloc = allocator<int, tracking_resource>;
  using inner = std::vector<int, inner_alloc>;
  using outer_alloc = allocator<inner, tracking_resource>;
  std::vector<inner, outer_alloc> rows{outer_alloc{&tracker}};
  rows.emplace_back(3u, 7);
  EXPECT_EQ(rows[0].get_allocator().resource(), &tracker);
}

// Review defect 2: default construction on the default resource.
template <class Allocator>
Allocator default_or_null() {
  if constexpr (std::is_default_constructible_v<Allocator>) {
    return Allocator{};
  } else {
    return Allocator{std::pmr::null_memory_resource()};
  }
}

TEST(allocator_model, over_memory_resource_default_constructs_on_the_default_resource) {
  EXPECT_TRUE(std::is_default_constructible_v<allocator<int>>);
  EXPECT_EQ(default_or_null<allocator<int>>().resource(), std::pmr::get_default_resource());
  static_assert(!std::is_default_constructible_v<allocator<int, arena_resource>>);
}

// Review defect 2: equality follows memory_resource::is_equal.
struct interchangeable_resource final : std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return dynamic_cast<const interchangeable_resource*>(&other) != nullptr;
  }
};

TEST(allocator_model, equality_follows_is_equal) {
  interchangeable_resource first, second;
  EXPECT_TRUE(allocator<int>{&first} == allocator<int>{&second});
  EXPECT_FALSE(allocator<int>{&first} != allocator<long>{&second});
  pool_resource pool{32};
  EXPECT_FALSE(allocator<int>{&first} == allocator<int>{&pool});
}

}  // namespace
