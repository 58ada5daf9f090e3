#include <alloclab/limit_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

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

}  // namespace
