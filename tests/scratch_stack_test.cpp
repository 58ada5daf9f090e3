// Tests of alloclab/scratch_stack.hpp (threaded ones run under TSan: the
// tsan preset's filter includes "scratch").
//
// | member / property                                | test case                                         |
// |--------------------------------------------------|---------------------------------------------------|
// | a scope rewinds on close; the next reuses memory | a_closed_scope_gives_its_memory_to_the_next       |
// | nested scopes: only the innermost allocates      | only_the_innermost_scope_may_allocate             |
// | a scope used on another thread                   | a_scope_refuses_other_threads                     |
// | one stack per thread                             | threads_have_separate_stacks                      |
// | growth past the buffer (model: aligned, no overlap) | large_scopes_grow_and_match_the_model          |
// | a refused request: the stack stays usable         | a_refused_request_leaves_the_scope_usable        |
// | closing out of LIFO order                        | closing_an_outer_scope_first_terminates (death)   |
// | alloclab::allocator over a scope                 | serves_alloclab_allocator                         |
// | a scope after the thread's stack is destroyed    | a_scope_in_a_thread_local_destructor_uses_its_own_arena |
// |   (static destructor: tests/scratch_static_exit.cpp, ctest scratch_stack.static_destructor) | |
#include <alloclab/allocator.hpp>
#include <alloclab/scratch_stack.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <new>
#include <optional>
#include <thread>
#include <vector>

#include "block_model.hpp"

namespace {

using alloclab::scratch_misuse;
using alloclab::scratch_scope;

TEST(scratch_stack, a_closed_scope_gives_its_memory_to_the_next) {
  void* first = nullptr;
  std::size_t used_before = 0;
  {
    scratch_scope scope;
    used_before = scope.arena().used();
    first = scope.allocate(100, 8);
    EXPECT_GE(scope.arena().used(), used_before + 100);
  }
  scratch_scope again;
  EXPECT_EQ(again.arena().used(), used_before);
  EXPECT_EQ(again.allocate(100, 8), first);
}

TEST(scratch_stack, only_the_innermost_scope_may_allocate) {
  scratch_scope outer;
  void* a = outer.allocate(16);
  {
    scratch_scope inner;
    void* b = inner.allocate(16);
    EXPECT_NE(a, b);
    EXPECT_THROW((void)outer.allocate(16), scratch_misuse);
  }
  EXPECT_NO_THROW((void)outer.allocate(16));  // innermost again
}

TEST(scratch_stack, a_scope_refuses_other_threads) {
  scratch_scope scope;
  bool refused = false;
  std::thread other{[&] {
    try {
      (void)scope.allocate(16);
    } catch (const scratch_misuse&) {
      refused = true;
    }
  }};
  other.join();
  EXPECT_TRUE(refused);
}

TEST(scratch_stack, threads_have_separate_stacks) {
  // Each thread fills its blocks with its own byte, opens and closes scopes
  // while the others do, and checks nothing else wrote there.
  constexpr int threads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([t, &failures] {
      for (int round = 0; round < 200; ++round) {
        scratch_scope scope;
        std::vector<unsigned char*> blocks;
        for (int i = 0; i < 20; ++i) {
          auto* p = static_cast<unsigned char*>(scope.allocate(512, 16));
          std::memset(p, t + 1, 512);
          blocks.push_back(p);
        }
        std::this_thread::yield();
        for (unsigned char* p : blocks)
          for (int k = 0; k < 512; ++k)
            if (p[k] != t + 1) ++failures;
      }
    });
  }
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(scratch_stack, large_scopes_grow_and_match_the_model) {
  scratch_scope outer;
  const std::size_t used = outer.arena().used();
  {
    scratch_scope scope;
    alloclab::testing::block_model_options options;
    options.free_blocks = false;  // an arena frees on close only
    options.operations = 300;     // about 300 KiB: far past the 16 KiB buffer
    options.largest_alignment_log2 = 9;
    EXPECT_EQ(alloclab::testing::run_block_model(scope, options), "");
    EXPECT_GT(scope.arena().upstream_allocations(), 0u);
  }
  EXPECT_EQ(outer.arena().used(), used);
}

TEST(scratch_stack, a_refused_request_leaves_the_scope_usable) {
  scratch_scope scope;
  void* before = scope.allocate(8, 8);
  EXPECT_THROW((void)scope.allocate(SIZE_MAX - 8, 8), std::bad_alloc);  // size overflows
  EXPECT_THROW((void)scope.allocate(8, 3), std::bad_alloc);             // not a power of two
  auto* after = static_cast<std::byte*>(scope.allocate(8, 8));
  EXPECT_EQ(after, static_cast<std::byte*>(before) + 8);  // nothing was taken
}

TEST(scratch_stack, serves_alloclab_allocator) {
  scratch_scope scope;
  using alloc = alloclab::allocator<int, scratch_scope>;
  std::vector<int, alloc> values{alloc{&scope}};
  for (int i = 0; i < 10000; ++i) values.push_back(i);
  EXPECT_EQ(values[9999], 9999);
}

TEST(scratch_stack_death, closing_an_outer_scope_first_terminates) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::optional<scratch_scope> outer{std::in_place};
        scratch_scope inner;
        outer.reset();  // inner is still open
      },
      "");
}

// Destroyed after the thread's stack (thread_locals die in reverse order of
// construction): its destructor opens a scope when the stack is already gone.
struct late_scratch_user {
  std::atomic<int>* outcome;
  ~late_scratch_user() {
    scratch_scope late;
    auto* bytes = static_cast<unsigned char*>(late.allocate(100, 8));
    std::memset(bytes, 0xab, 100);
    const bool own_arena = late.arena().buffer_size() == 0 && late.arena().used() >= 100;
    outcome->store(own_arena ? 1 : 2);
  }
};

TEST(scratch_stack, a_scope_in_a_thread_local_destructor_uses_its_own_arena) {
  std::atomic<int> outcome{0};
  std::thread worker{[&] {
    thread_local late_scratch_user user{&outcome};  // constructed before the stack
    scratch_scope early;                            // constructs this thread's stack
    (void)early.allocate(64);
  }};
  worker.join();
  EXPECT_EQ(outcome.load(), 1) << "1: own arena from new/delete, 2: the destroyed stack's";
}

}  // namespace
