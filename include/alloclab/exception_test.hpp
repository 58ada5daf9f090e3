// alloclab/exception_test.hpp: exception-safety tests for code that takes a
// memory resource, the way BDE tests its own containers.
//
// `run_exception_test(body)` calls `body(resource)` with a resource whose
// first allocation fails, then again with the second failing, and so on,
// until `body` completes without meeting a failure. After every attempt it
// checks, through a `checked_resource`, that nothing leaked and nothing was
// misused. A body that completes although its injected failure was thrown
// swallowed it, and is rejected: the failure points after it would go
// untested. `run_strong_exception_test(make, operation)` also checks the strong
// guarantee: when `operation(state)` throws, `state` compares equal to a copy
// taken before it ran.
//
// Example:
//   #include <alloclab/exception_test.hpp>
//   #include <memory_resource>
//   #include <string>
//   #include <vector>
//
//   int main() {
//     const auto report = alloclab::run_exception_test([](std::pmr::memory_resource& r) {
//       std::pmr::vector<std::pmr::string> names{&r};
//       for (int i = 0; i < 8; ++i) names.emplace_back("a string too long for SSO #" + std::to_string(i));
//     });
//     // Every failure point was visited and none of them leaked.
//     return report.passed() && report.injected_failures > 8 ? 0 : 1;
//   }
#pragma once

#include <cstddef>
#include <memory_resource>
#include <string>
#include <utility>

#include "checked_resource.hpp"
#include "limit_resource.hpp"

#if !ALLOCLAB_EXCEPTIONS
#error "alloclab/exception_test.hpp tests exception safety: it needs exceptions"
#endif

namespace alloclab {

struct exception_test_options {
  std::size_t max_attempts = 100000;
  std::pmr::memory_resource* upstream = std::pmr::new_delete_resource();
};

struct exception_test_report {
  std::size_t attempts = 0;           // times the body ran
  std::size_t injected_failures = 0;  // attempts that ended in an injected failure
  bool completed = false;             // the last attempt ran to the end
  std::string failure;                // first problem found; empty when none

  bool passed() const noexcept { return completed && failure.empty(); }
};

namespace detail {

inline bool injected_failure_was_thrown(const limit_resource& limit) noexcept {
  const std::size_t fail_at = limit.limits().fail_at_allocation;
  return fail_at != 0 && limit.requests() >= fail_at;
}

inline std::string describe_leak(std::size_t attempt, const checked_resource& checker) {
  std::string text = "allocation " + std::to_string(attempt) + " failing: ";
  if (checker.blocks_in_use() != 0) {
    text += std::to_string(checker.blocks_in_use()) + " block(s), " +
            std::to_string(checker.bytes_in_use()) + " byte(s) leaked";
  } else {
    text += checker.last_misuse();
  }
  return text;
}

// Runs one attempt with allocation `attempt` failing. `run(limit)` returns
// false when it observed a broken guarantee (reported through `failure`).
template <class Attempt>
bool run_attempt(std::size_t attempt, const exception_test_options& options,
                 exception_test_report& report, Attempt&& run) {
  checked_resource checker{options.upstream};
  checker.set_quiet(true);
  limit_resource limit{&checker, {}};
  bool failed = false;
  ++report.attempts;
  try {
    if (!run(limit, attempt)) return true;
    if (injected_failure_was_thrown(limit)) {
      report.failure = "allocation " + std::to_string(attempt) +
                       " failing: the body completed anyway (it swallowed the injected failure)";
      return true;
    }
    report.completed = true;
  } catch (const allocation_limit_exceeded& e) {
    if (e.why() != allocation_limit_exceeded::reason::injected_failure) throw;
    ++report.injected_failures;
    failed = true;
  }
  if (checker.blocks_in_use() != 0 || checker.total_misuses() != 0) {
    report.failure = describe_leak(attempt, checker);
    return true;
  }
  return !failed;
}

template <class Attempt>
exception_test_report run_attempts(const exception_test_options& options, Attempt&& run) {
  exception_test_report report;
  for (std::size_t attempt = 1; attempt <= options.max_attempts; ++attempt) {
    if (run_attempt(attempt, options, report, run)) return report;
  }
  report.failure = "no attempt completed within max_attempts";
  return report;
}

}  // namespace detail

// Body: void(std::pmr::memory_resource&). Exceptions other than the injected
// failure propagate to the caller.
template <class Body>
exception_test_report run_exception_test(Body&& body, exception_test_options options = {}) {
  return detail::run_attempts(options, [&](limit_resource& limit, std::size_t attempt) {
    limit.fail_after(attempt);
    body(static_cast<std::pmr::memory_resource&>(limit));
    return true;
  });
}

// make: State(std::pmr::memory_resource&), State copyable and equality
// comparable; operation: void(State&). Allocations made by `make` never fail.
template <class Make, class Operation>
exception_test_report run_strong_exception_test(Make&& make, Operation&& operation,
                                                exception_test_options options = {}) {
  std::string broken;
  exception_test_report report =
      detail::run_attempts(options, [&](limit_resource& limit, std::size_t attempt) {
        auto state = make(static_cast<std::pmr::memory_resource&>(limit));
        const auto before = state;
        limit.fail_after(attempt);
        try {
          operation(state);
        } catch (const allocation_limit_exceeded&) {
          if (state == before) throw;
          broken = "allocation " + std::to_string(attempt) +
                   " failing: state changed (strong guarantee broken)";
          return false;
        }
        return true;
      });
  if (!broken.empty()) report.failure = broken;
  return report;
}

}  // namespace alloclab
