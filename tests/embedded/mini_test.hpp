// tests/embedded/mini_test.hpp: the smallest test harness that runs on a
// bare-metal target (no GoogleTest, no exceptions, no RTTI): CHECK counts
// failures and prints them; reaches_failure_handler runs a body and says
// whether it ended in alloclab's failure hook (or, built with exceptions, in
// a std::bad_alloc or std::logic_error family exception).
#pragma once

#include <alloclab/failure.hpp>
#include <csetjmp>
#include <cstdio>
#include <exception>

namespace mini_test {

inline int failures = 0;
inline int checks = 0;

inline void check(bool ok, const char* expression, const char* file, int line) {
  ++checks;
  if (ok) return;
  ++failures;
  std::printf("FAIL %s:%d: %s\n", file, line, expression);
}

inline std::jmp_buf* landing = nullptr;
inline const char* last_failure = nullptr;

// Installed as alloclab's failure handler: back to reaches_failure_handler.
inline void jump_to_landing(const char* what) {
  last_failure = what;
  if (landing != nullptr) std::longjmp(*landing, 1);
}

// True when `body` ended in the failure hook (or, with exceptions, threw).
template <class Body>
bool reaches_failure_handler(Body&& body) {
  last_failure = nullptr;
#if ALLOCLAB_EXCEPTIONS
  try {
    body();
  } catch (const std::exception& e) {
    last_failure = e.what();
    return true;
  }
  return false;
#else
  std::jmp_buf here;
  landing = &here;
  alloclab::failure_handler previous = alloclab::set_failure_handler(&jump_to_landing);
  volatile bool failed = true;
  if (setjmp(here) == 0) {
    body();
    failed = false;
  }
  alloclab::set_failure_handler(previous);
  landing = nullptr;
  return failed;
#endif
}

// Prints the tally; the process's exit status is the failure count.
inline int finish(const char* name) {
  std::printf("%s: %d checks, %d failed\n", name, checks, failures);
  return failures > 255 ? 255 : failures;
}

}  // namespace mini_test

#define CHECK(expression) \
  ::mini_test::check(static_cast<bool>(expression), #expression, __FILE__, __LINE__)
