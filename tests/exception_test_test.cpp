// Tests of alloclab/exception_test.hpp, including meta-tests that prove the
// helper rejects wrong bodies.
//
// Test plan (public member -> test case):
//   run_exception_test: visits every point -> exception_test.visits_every_failure_point_of_a_correct_body
//   rejects a leak                         -> exception_test.catches_a_body_that_leaks_on_failure
//   rejects a misuse                       -> exception_test.catches_misuse_inside_the_body
//   rejects a swallowed failure            -> exception_test_meta.rejects_a_body_that_swallows_the_failure,
//                                             exception_test_meta.rejects_a_body_that_swallows_the_failure_and_leaks
//   other exceptions propagate             -> exception_test.other_exceptions_propagate
//   exception_test_options                 -> exception_test.gives_up_after_max_attempts,
//                                             exception_test.default_options_are_generous_and_use_the_heap
//   run_strong_exception_test              -> strong_exception_test.a_single_strong_operation_passes,
//                                             strong_exception_test.vector_push_back_keeps_the_strong_guarantee,
//                                             exception_test_meta.rejects_an_operation_that_breaks_the_strong_guarantee,
//                                             exception_test_meta.rejects_an_operation_that_changes_the_state_and_swallows
//   exception_test_report::passed          -> every test above
#include <alloclab/exception_test.hpp>

#include <gtest/gtest.h>

#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace alloclab;

TEST(exception_test, visits_every_failure_point_of_a_correct_body) {
  std::size_t calls = 0;
  const auto report = run_exception_test([&](std::pmr::memory_resource& r) {
    ++calls;
    std::pmr::vector<int> v{&r};
    v.reserve(1);
    v.reserve(2);
    v.reserve(4);
  });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_EQ(report.injected_failures, 3u);
  EXPECT_EQ(report.attempts, 4u);
  EXPECT_EQ(calls, 4u);
}

TEST(exception_test, catches_a_body_that_leaks_on_failure) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    void* first = r.allocate(16, 8);
    void* second = r.allocate(16, 8);  // if this throws, `first` leaks
    r.deallocate(second, 16, 8);
    r.deallocate(first, 16, 8);
  });
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.failure.find("allocation 2 failing"), std::string::npos) << report.failure;
  EXPECT_NE(report.failure.find("leaked"), std::string::npos) << report.failure;
}

TEST(exception_test, catches_misuse_inside_the_body) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    void* p = r.allocate(16, 8);
    r.deallocate(p, 8, 8);
  });
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.failure.find("size_mismatch"), std::string::npos) << report.failure;
}

TEST(exception_test, other_exceptions_propagate) {
  EXPECT_THROW(
      run_exception_test([](std::pmr::memory_resource&) { throw std::runtime_error("bug"); }),
      std::runtime_error);
}

TEST(exception_test, gives_up_after_max_attempts) {
  exception_test_options options;
  options.max_attempts = 3;
  const auto report = run_exception_test(
      [](std::pmr::memory_resource& r) {
        for (int i = 0; i < 10; ++i) r.deallocate(r.allocate(8, 8), 8, 8);
      },
      options);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.attempts, 3u);
}

TEST(strong_exception_test, vector_push_back_keeps_the_strong_guarantee) {
  const auto report = run_strong_exception_test(
      [](std::pmr::memory_resource& r) {
        std::pmr::vector<int> v{{1, 2, 3}, &r};
        return v;
      },
      [](std::pmr::vector<int>& v) {
        for (int i = 0; i < 100; ++i) v.push_back(i);
      });
  // push_back is strong per call, but the loop as a whole is not: the first
  // push_back that reallocates after others succeeded changes the state.
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.failure.find("strong guarantee broken"), std::string::npos);
}

TEST(strong_exception_test, a_single_strong_operation_passes) {
  const auto report = run_strong_exception_test(
      [](std::pmr::memory_resource& r) {
        std::pmr::vector<int> v{{1, 2, 3}, &r};
        return v;
      },
      [](std::pmr::vector<int>& v) { v.reserve(1000); });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_EQ(report.injected_failures, 1u);
}

// Meta-tests: the helper must be able to fail. Each body below is wrong in
// one way, and the helper must reject it.
TEST(exception_test_meta, rejects_a_body_that_swallows_the_failure_and_leaks) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    try {
      void* first = r.allocate(16, 8);
      void* second = r.allocate(16, 8);  // when this fails, `first` leaks
      r.deallocate(second, 16, 8);
      r.deallocate(first, 16, 8);
    } catch (const std::bad_alloc&) {
    }
  });
  EXPECT_FALSE(report.passed()) << "attempts " << report.attempts;
}

TEST(exception_test_meta, rejects_a_body_that_swallows_the_failure) {
  const auto report = run_exception_test([](std::pmr::memory_resource& r) {
    std::pmr::vector<int> v{&r};
    try {
      v.reserve(100);
    } catch (const std::bad_alloc&) {
    }
  });
  EXPECT_FALSE(report.passed()) << "attempts " << report.attempts;
  EXPECT_NE(report.failure.find("swallowed"), std::string::npos) << report.failure;
}

TEST(exception_test_meta, rejects_an_operation_that_breaks_the_strong_guarantee) {
  const auto report = run_strong_exception_test(
      [](std::pmr::memory_resource& r) {
        return std::pmr::vector<int>{{1, 2, 3}, &r};
      },
      [](std::pmr::vector<int>& v) {
        v.pop_back();  // changes the state before the allocation that may fail
        v.reserve(1000);
      });
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.failure.find("strong guarantee broken"), std::string::npos) << report.failure;
}

TEST(exception_test_meta, rejects_an_operation_that_changes_the_state_and_swallows) {
  const auto report = run_strong_exception_test(
      [](std::pmr::memory_resource& r) {
        return std::pmr::vector<int>{{1, 2, 3}, &r};
      },
      [](std::pmr::vector<int>& v) {
        try {
          v.reserve(1000);
        } catch (const std::bad_alloc&) {
          v.clear();
        }
      });
  EXPECT_FALSE(report.passed()) << "attempts " << report.attempts;
}

TEST(exception_test, default_options_are_generous_and_use_the_heap) {
  const exception_test_options options;
  EXPECT_EQ(options.max_attempts, 100000u);
  EXPECT_EQ(options.upstream, std::pmr::new_delete_resource());
}

}  // namespace
