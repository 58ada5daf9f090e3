// Tests of alloclab/allocator_resource.hpp.
//
// | member / property                                   | test case                                      |
// |-----------------------------------------------------|------------------------------------------------|
// | allocate/deallocate: units, the same n back          | the_allocator_gets_back_exactly_what_it_gave   |
// | any size and alignment (model: aligned, no overlap)  | random_sizes_and_alignments_match_the_model    |
// | every allocation failing: no leak                   | every_failing_allocation_leaves_nothing_behind |
// | 0 bytes                                             | zero_bytes_get_distinct_blocks                 |
// | bad alignment, overflowing size                     | impossible_requests_throw_before_the_allocator |
// | is_equal                                            | equal_when_the_type_and_the_allocators_are     |
// | get_allocator                                       | the_allocator_gets_back_exactly_what_it_gave   |
#include <alloclab/allocator.hpp>
#include <alloclab/allocator_resource.hpp>
#include <alloclab/exception_test.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>

#include "block_model.hpp"

namespace {

using namespace alloclab;

// Every block it hands out, with its count; a deallocate with another count,
// or of a pointer it never gave, is recorded.
struct allocator_ledger {
  std::map<void*, std::size_t> live;
  std::size_t mismatches = 0;
  std::size_t calls = 0;
};

template <class T>
struct ledger_allocator {
  using value_type = T;
  allocator_ledger* ledger;
  explicit ledger_allocator(allocator_ledger* l) noexcept : ledger(l) {}
  template <class U>
  ledger_allocator(const ledger_allocator<U>& other) noexcept : ledger(other.ledger) {}
  T* allocate(std::size_t n) {
    ++ledger->calls;
    T* p = std::allocator<T>{}.allocate(n);
    ledger->live.emplace(p, n);
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const auto it = ledger->live.find(p);
    if (it == ledger->live.end() || it->second != n) {
      ++ledger->mismatches;
      return;
    }
    ledger->live.erase(it);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const ledger_allocator<U>& o) const noexcept {
    return ledger == o.ledger;
  }
  template <class U>
  bool operator!=(const ledger_allocator<U>& o) const noexcept {
    return ledger != o.ledger;
  }
};

TEST(allocator_resource, the_allocator_gets_back_exactly_what_it_gave) {
  allocator_ledger ledger;
  allocator_resource<ledger_allocator<char>> resource{ledger_allocator<char>{&ledger}};
  EXPECT_EQ(resource.get_allocator().ledger, &ledger);
  void* small = resource.allocate(17, 8);
  constexpr std::size_t unit = alignof(std::max_align_t);
  EXPECT_EQ(ledger.live.begin()->second, (17 + unit - 1) / unit);  // two 16-byte units on x86-64
  void* big = resource.allocate(100, 512);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big) % 512, 0u);
  resource.deallocate(small, 17, 8);
  resource.deallocate(big, 100, 512);
  EXPECT_TRUE(ledger.live.empty());
  EXPECT_EQ(ledger.mismatches, 0u);
}

TEST(allocator_resource, random_sizes_and_alignments_match_the_model) {
  allocator_ledger ledger;
  allocator_resource<ledger_allocator<char>> resource{ledger_allocator<char>{&ledger}};
  alloclab::testing::block_model_options options;
  options.largest_alignment_log2 = 12;  // up to 4 KiB: most are over-aligned
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    options.seed = seed;
    EXPECT_EQ(alloclab::testing::run_block_model(resource, options), "") << seed;
  }
  EXPECT_TRUE(ledger.live.empty());
  EXPECT_EQ(ledger.mismatches, 0u);
}

TEST(allocator_resource, every_failing_allocation_leaves_nothing_behind) {
  // The STL allocator is alloclab::allocator over the failing resource.
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    allocator_resource<allocator<std::byte>> resource{allocator<std::byte>{&r}};
    std::pmr::map<int, std::pmr::string> names{&resource};
    for (int i = 0; i < 6; ++i) names.emplace(i, std::pmr::string(40, 'x'));
    void* page = resource.allocate(64, 256);
    resource.deallocate(page, 64, 256);
  });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_GE(report.injected_failures, 13u);
}

TEST(allocator_resource, zero_bytes_get_distinct_blocks) {
  allocator_resource<std::allocator<int>> resource;
  void* a = resource.allocate(0, 1);
  void* b = resource.allocate(0, 1);
  void* c = resource.allocate(0, 64);
  void* d = resource.allocate(0, 64);
  EXPECT_NE(a, b);
  EXPECT_NE(c, d);
  resource.deallocate(a, 0, 1);
  resource.deallocate(b, 0, 1);
  resource.deallocate(c, 0, 64);
  resource.deallocate(d, 0, 64);
}

TEST(allocator_resource, impossible_requests_throw_before_the_allocator) {
  allocator_ledger ledger;
  allocator_resource<ledger_allocator<char>> resource{ledger_allocator<char>{&ledger}};
  EXPECT_THROW((void)resource.allocate(8, 3), std::bad_alloc);
  EXPECT_THROW((void)resource.allocate(SIZE_MAX, 8), std::bad_alloc);
  EXPECT_THROW((void)resource.allocate(SIZE_MAX - 100, 256), std::bad_alloc);
  EXPECT_EQ(ledger.calls, 0u);
}

TEST(allocator_resource, equal_when_the_type_and_the_allocators_are) {
  allocator_ledger one, two;
  allocator_resource<ledger_allocator<char>> a{ledger_allocator<char>{&one}};
  allocator_resource<ledger_allocator<long>> a_again{ledger_allocator<long>{&one}};
  allocator_resource<ledger_allocator<char>> b{ledger_allocator<char>{&two}};
  allocator_resource<std::allocator<char>> heap1, heap2;
  EXPECT_TRUE(a.is_equal(a_again));  // both rebind to the same unit allocator type
  EXPECT_FALSE(a.is_equal(b));
  EXPECT_TRUE(heap1.is_equal(heap2));  // std::allocator: any instance frees any block
  EXPECT_FALSE(heap1.is_equal(a));
  EXPECT_FALSE(heap1.is_equal(*std::pmr::new_delete_resource()));
  // Memory from one std::allocator adaptor is freed by the other.
  void* p = heap1.allocate(100, 1024);
  heap2.deallocate(p, 100, 1024);
}

}  // namespace
