// Tests of alloclab/limit_resource.hpp.
//
// Test plan (public member -> test case):
//   limit_resource(upstream, limits)      -> limit_resource.enforces_the_byte_budget_and_refunds_on_free
//   allocate: max_bytes                   -> limit_resource.enforces_the_byte_budget_and_refunds_on_free,
//                                            limit_resource.huge_requests_do_not_wrap_the_budget
//   allocate: fail_at_allocation          -> limit_resource.fails_at_the_nth_request_and_after,
//                                            limit_resource.can_fail_exactly_once
//   allocate: upstream failure            -> limit_resource.upstream_failure_rolls_the_budget_back,
//                                            limit_resource.upstream_failure_is_not_counted_as_a_request
//   deallocate                            -> limit_resource.a_throwing_upstream_deallocate_still_refunds_the_budget
//   default arguments                     -> limit_resource.default_arguments_use_max_align
//   set_limits, limits()                  -> limit_resource.set_limits_replaces_the_limits_and_keeps_the_counts
//   fail_after(n), fail_after(0)          -> limit_resource.fail_after_counts_from_now,
//                                            limit_resource.fail_after_zero_clears_the_injected_failure,
//                                            limit_resource.fail_after_a_huge_count_never_wraps
//   requests(), bytes_in_use()            -> limit_resource.fails_at_the_nth_request_and_after
//   allocation_limit_exceeded::why/bytes  -> limit_resource.enforces_the_byte_budget_and_refunds_on_free
#include <alloclab/limit_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "test_resources.hpp"

namespace {

using namespace alloclab;

TEST(limit_resource, enforces_the_byte_budget_and_refunds_on_free) {
  tracking_resource upstream;
  limit_resource limit{&upstream, {100}};
  void* a = limit.allocate(60, 8);
  try {
    (void)limit.allocate(41, 4);
    FAIL() << "expected allocation_limit_exceeded";
  } catch (const allocation_limit_exceeded& e) {
    EXPECT_EQ(e.why(), allocation_limit_exceeded::reason::byte_budget);
    EXPECT_EQ(e.bytes(), 41u);
    EXPECT_EQ(e.alignment(), 4u);
  }
  void* b = limit.allocate(40, 8);
  EXPECT_EQ(limit.bytes_in_use(), 100u);
  limit.deallocate(a, 60, 8);
  limit.deallocate(b, 40, 8);
  EXPECT_EQ(limit.bytes_in_use(), 0u);
  EXPECT_EQ(upstream.blocks().total, 2u) << "a refused request never reaches the upstream";
}

TEST(limit_resource, fails_at_the_nth_request_and_after) {
  limit_resource limit{std::pmr::new_delete_resource(), {SIZE_MAX, 3}};
  void* a = limit.allocate(8, 8);
  void* b = limit.allocate(8, 8);
  EXPECT_THROW((void)limit.allocate(8, 8), allocation_limit_exceeded);
  EXPECT_THROW((void)limit.allocate(8, 8), allocation_limit_exceeded);
  EXPECT_EQ(limit.requests(), 4u);
  limit.deallocate(a, 8, 8);
  limit.deallocate(b, 8, 8);
}

TEST(limit_resource, can_fail_exactly_once) {
  limit_resource limit{std::pmr::new_delete_resource(), {SIZE_MAX, 2, false}};
  void* a = limit.allocate(8, 8);
  EXPECT_THROW((void)limit.allocate(8, 8), allocation_limit_exceeded);
  void* b = limit.allocate(8, 8);
  limit.deallocate(a, 8, 8);
  limit.deallocate(b, 8, 8);
}

TEST(limit_resource, fail_after_counts_from_now) {
  limit_resource limit{std::pmr::new_delete_resource(), {}};
  limit.deallocate(limit.allocate(8, 8), 8, 8);
  limit.fail_after(2);
  void* a = limit.allocate(8, 8);
  EXPECT_THROW((void)limit.allocate(8, 8), allocation_limit_exceeded);
  limit.deallocate(a, 8, 8);
}

// Regression: requests() + n used to wrap, so fail_after(SIZE_MAX)
// after three requests meant "fail at request 2" (and every one after it).
TEST(limit_resource, fail_after_a_huge_count_never_wraps) {
  limit_resource limit{std::pmr::new_delete_resource(), {}};
  for (int i = 0; i < 3; ++i) limit.deallocate(limit.allocate(8, 8), 8, 8);
  for (const std::size_t n : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 3}) {
    limit.fail_after(n);
    void* p = nullptr;
    EXPECT_NO_THROW(p = limit.allocate(8, 8)) << "fail_after(SIZE_MAX - " << SIZE_MAX - n << ")";
    limit.deallocate(p, 8, 8);
  }
  EXPECT_EQ(limit.limits().fail_at_allocation, SIZE_MAX) << "saturated, not wrapped";
}

TEST(limit_resource, upstream_failure_rolls_the_budget_back) {
  limit_resource limit{std::pmr::null_memory_resource(), {1000}};
  EXPECT_THROW((void)limit.allocate(500, 8), std::bad_alloc);
  EXPECT_EQ(limit.bytes_in_use(), 0u);
}

TEST(limit_resource, huge_requests_do_not_wrap_the_budget) {
  limit_resource limit{std::pmr::new_delete_resource(), {1000}};
  void* a = limit.allocate(10, 1);
  EXPECT_THROW((void)limit.allocate(SIZE_MAX - 5, 1), allocation_limit_exceeded);
  EXPECT_EQ(limit.bytes_in_use(), 10u);
  limit.deallocate(a, 10, 1);
}

// Review defect 3: the budget follows the caller, whatever the upstream does.
TEST(limit_resource, a_throwing_upstream_deallocate_still_refunds_the_budget) {
  alloclab::testing::throwing_deallocate_resource upstream;
  limit_resource limit{&upstream, {100}};
  void* p = limit.allocate(64, 8);
  EXPECT_THROW(limit.deallocate(p, 64, 8), std::runtime_error);
  EXPECT_EQ(limit.bytes_in_use(), 0u);
  void* q = limit.allocate(100, 8);
  EXPECT_THROW(limit.deallocate(q, 100, 8), std::runtime_error);
}

// Review defect 8: an upstream failure leaves the adaptor as if the call never
// happened, request count included, so fail_at_allocation keeps its meaning.
TEST(limit_resource, upstream_failure_is_not_counted_as_a_request) {
  limit_resource flaky{std::pmr::new_delete_resource(), {SIZE_MAX, 1, false}};
  limit_resource limit{&flaky, {SIZE_MAX, 2, false}};
  EXPECT_THROW((void)limit.allocate(8, 8), allocation_limit_exceeded);  // flaky refuses
  EXPECT_EQ(limit.requests(), 0u);
  void* first = limit.allocate(8, 8);
  try {
    (void)limit.allocate(8, 8);
    ADD_FAILURE() << "request 2 should be the injected failure";
  } catch (const allocation_limit_exceeded& e) {
    EXPECT_EQ(e.why(), allocation_limit_exceeded::reason::injected_failure);
  }
  limit.deallocate(first, 8, 8);
}

TEST(limit_resource, set_limits_replaces_the_limits_and_keeps_the_counts) {
  limit_resource limit{std::pmr::new_delete_resource(), {100}};
  void* p = limit.allocate(80, 8);
  limit.set_limits({1000, 0, true});
  EXPECT_EQ(limit.limits().max_bytes, 1000u);
  EXPECT_EQ(limit.bytes_in_use(), 80u);
  EXPECT_EQ(limit.requests(), 1u);
  void* q = limit.allocate(900, 8);
  EXPECT_THROW((void)limit.allocate(21, 8), allocation_limit_exceeded);
  limit.set_limits({SIZE_MAX, 1, true});  // request 1 is long gone: every later one fails
  EXPECT_THROW((void)limit.allocate(1, 8), allocation_limit_exceeded);
  limit.deallocate(q, 900, 8);
  limit.deallocate(p, 80, 8);
}

TEST(limit_resource, fail_after_zero_clears_the_injected_failure) {
  limit_resource limit{std::pmr::new_delete_resource(), {}};
  for (int i = 0; i < 3; ++i) limit.deallocate(limit.allocate(8, 8), 8, 8);
  limit.fail_after(1);
  limit.fail_after(0);
  EXPECT_EQ(limit.limits().fail_at_allocation, 0u);
  EXPECT_NO_THROW(limit.deallocate(limit.allocate(8, 8), 8, 8));
}

TEST(limit_resource, default_arguments_use_max_align) {
  limit_resource limit{std::pmr::new_delete_resource(), {}};
  void* p = limit.allocate(24);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t), 0u);
  limit.deallocate(p, 24);
  EXPECT_EQ(limit.bytes_in_use(), 0u);
  limit.fail_after(3);
  EXPECT_TRUE(limit.limits().keep_failing);
  EXPECT_EQ(limit.limits().fail_at_allocation, limit.requests() + 3);
}

TEST(limit_resource, requests_over_ptrdiff_max_fail) {
  limit_resource limit{std::pmr::new_delete_resource(), {}};  // no byte budget
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)limit.allocate(bytes, 64), std::bad_array_new_length) << bytes;
  EXPECT_EQ(limit.requests(), 0u);
  EXPECT_EQ(limit.bytes_in_use(), 0u);
}

}  // namespace
