// Tests of alloclab/unique_ptr.hpp.
//
// | member / property                                  | test case                                        |
// |----------------------------------------------------|--------------------------------------------------|
// | allocate_unique<T>: exact size/alignment, freed once | one_object_takes_and_returns_exactly_its_bytes |
// | uses-allocator construction                        | pmr_members_are_built_on_the_same_resource       |
// | allocate_unique<T[]>: value-init, reverse destroy  | arrays_are_value_initialised_and_destroyed_last_first |
// | every allocation failing: no leak                  | every_failing_allocation_leaves_nothing_behind   |
// | a throwing constructor: built elements destroyed   | a_throwing_element_undoes_the_elements_before_it |
// | size overflow                                      | an_array_too_large_for_size_t_throws_before_allocating |
// | over-aligned T                                     | over_aligned_objects_are_aligned                 |
// | non-virtual path (any Resource, no vtable)         | works_with_a_resource_that_is_not_a_memory_resource |
// | empty pointer                                      | an_empty_pointer_needs_no_resource               |
#include <alloclab/arena_resource.hpp>
#include <alloclab/checked_resource.hpp>
#include <alloclab/exception_test.hpp>
#include <alloclab/unique_ptr.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "test_resources.hpp"

namespace {

using namespace alloclab;

struct point {
  int x, y;
  point(int a, int b) : x(a), y(b) {}
};

TEST(allocate_unique, one_object_takes_and_returns_exactly_its_bytes) {
  checked_resource checker;  // reports a wrong size or alignment as misuse
  {
    auto p = allocate_unique<point>(&checker, 3, 4);
    static_assert(std::is_same_v<decltype(p), resource_unique_ptr<point, checked_resource>>);
    EXPECT_EQ(p->x + p->y, 7);
    EXPECT_EQ(checker.blocks_in_use(), 1u);
    EXPECT_EQ(checker.bytes_in_use(), sizeof(point));
    EXPECT_EQ(p.get_deleter().resource(), &checker);
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

TEST(allocate_unique, pmr_members_are_built_on_the_same_resource) {
  checked_resource checker;
  std::pmr::memory_resource* r = &checker;
  {
    auto names = allocate_unique<std::pmr::vector<std::pmr::string>>(r);
    names->emplace_back(100, 'x');
    EXPECT_EQ(names->get_allocator().resource(), r);
    EXPECT_EQ(names->front().get_allocator().resource(), r);
    EXPECT_EQ(checker.blocks_in_use(), 3u);  // the vector object, its buffer, the string's
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

struct recorder {
  static inline std::vector<int> destroyed;
  int id = 0;
  recorder() {
    static int next = 0;
    id = next++;
  }
  ~recorder() { destroyed.push_back(id); }
};

TEST(allocate_unique, arrays_are_value_initialised_and_destroyed_last_first) {
  checked_resource checker;
  recorder::destroyed.clear();
  {
    auto xs = allocate_unique<int[]>(&checker, 1000);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(xs[i], 0);
    EXPECT_EQ(xs.get_deleter().size(), 1000u);
    auto rs = allocate_unique<recorder[]>(&checker, 3);
    EXPECT_EQ(checker.bytes_in_use(), 1000 * sizeof(int) + 3 * sizeof(recorder));
    const int first = rs[0].id;
    rs.reset();
    EXPECT_EQ(recorder::destroyed, (std::vector<int>{first + 2, first + 1, first}));
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

// Allocates from its resource when built by uses-allocator construction.
struct allocating_element {
  using allocator_type = std::pmr::polymorphic_allocator<char>;
  std::pmr::string text;
  allocating_element(std::allocator_arg_t, const allocator_type& a)
      : text("longer than any small-string buffer", a) {}
};

TEST(allocate_unique, every_failing_allocation_leaves_nothing_behind) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    auto one = allocate_unique<allocating_element>(&r);
    auto many = allocate_unique<allocating_element[]>(&r, 5);
    auto names = allocate_unique<std::pmr::vector<std::pmr::string>>(&r);
    for (int i = 0; i < 4; ++i) names->emplace_back(50, 'n');
    if (many[4].text.get_allocator().resource() != &r) throw std::logic_error("wrong resource");
  });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_GE(report.injected_failures, 13u);  // 2 + (1 + 5) + 1 + 4 allocations at least
}

struct fragile {
  static inline int built = 0;
  static inline int destroyed = 0;
  fragile() {
    if (built == 2) throw std::runtime_error("third element");
    ++built;
  }
  ~fragile() { ++destroyed; }
};

TEST(allocate_unique, a_throwing_element_undoes_the_elements_before_it) {
  checked_resource checker;
  EXPECT_THROW((void)allocate_unique<fragile[]>(&checker, 5), std::runtime_error);
  EXPECT_EQ(fragile::destroyed, 2);
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

TEST(allocate_unique, an_array_too_large_for_size_t_throws_before_allocating) {
  checked_resource checker;
  EXPECT_THROW((void)allocate_unique<double[]>(&checker, SIZE_MAX / sizeof(double) + 1),
               std::bad_array_new_length);
  EXPECT_EQ(checker.allocations(), 0u);
}

struct alignas(256) page_header {
  std::byte bytes[256];
};

TEST(allocate_unique, over_aligned_objects_are_aligned) {
  checked_resource checker;
  auto one = allocate_unique<page_header>(&checker);
  auto many = allocate_unique<page_header[]>(&checker, 3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(one.get()) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(many.get()) % 256, 0u);
}

TEST(allocate_unique, works_with_a_resource_that_is_not_a_memory_resource) {
  alloclab::testing::counting_heap heap;
  {
    auto p = allocate_unique<point>(&heap, 1, 2);
    auto xs = allocate_unique<double[]>(&heap, 4);
    EXPECT_EQ(heap.live, 2u);
  }
  EXPECT_EQ(heap.live, 0u);
}

TEST(allocate_unique, an_empty_pointer_needs_no_resource) {
  resource_unique_ptr<point> empty;
  resource_unique_ptr<int[], arena_resource> empty_array;
  EXPECT_FALSE(empty);
  EXPECT_FALSE(empty_array);
  EXPECT_EQ(empty.get_deleter().resource(), nullptr);
}

}  // namespace
