// alloclab/failure.hpp: what the library does where it cannot go on (an
// exhausted arena or pool, a budget hit, a size that overflows, a misuse
// caught): the exhaustion hook.
//
// Every such place calls `alloclab::fail<E>(what, args...)`:
//
// | build                                   | fail<E>(what, args...)                        |
// |-----------------------------------------|-----------------------------------------------|
// | with exceptions (the default)           | `throw E(args...)`: the exception each header documents |
// | `-fno-exceptions`, or `ALLOCLAB_EXCEPTIONS=0` | calls the failure handler with `what`; std::abort() if it returns |
//
// The failure handler is process-wide, null (abort) by default; install one
// with `set_failure_handler` at start-up, before any other thread runs. It may
// log, reset the device or longjmp out; the resource that failed is left as
// it was before the request. `what` is a static string naming the component.
// A shared library built with hidden visibility has its own handler.
//
// ALLOCLAB_TRY / ALLOCLAB_CATCH_ALL / ALLOCLAB_RETHROW write the library's
// clean-up-and-rethrow blocks; without exceptions the clean-up never runs.
//
// Example:
//   #include <alloclab/failure.hpp>
//
//   void log_and_reset(const char* /*what*/) { /* log `what`, reset the device */ }
//
//   int main() {
//     alloclab::failure_handler previous = alloclab::set_failure_handler(&log_and_reset);
//     alloclab::set_failure_handler(previous);
//     return alloclab::get_failure_handler() == previous ? 0 : 1;
//   }
//
// Thread safety: set_failure_handler is for start-up; fail may be called from any thread.
#pragma once

#include <atomic>
#include <cstdlib>
#include <utility>

#if !defined(ALLOCLAB_EXCEPTIONS)
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define ALLOCLAB_EXCEPTIONS 1
#else
#define ALLOCLAB_EXCEPTIONS 0
#endif
#endif

#if ALLOCLAB_EXCEPTIONS
#define ALLOCLAB_TRY try
#define ALLOCLAB_CATCH_ALL catch (...)
#define ALLOCLAB_RETHROW throw
#else
#define ALLOCLAB_TRY if (true)
#define ALLOCLAB_CATCH_ALL else
#define ALLOCLAB_RETHROW static_cast<void>(0)
#endif

namespace alloclab {

// Called with a static string naming what failed; may return (then abort).
using failure_handler = void (*)(const char* what);

namespace detail {
inline std::atomic<failure_handler> installed_failure_handler{nullptr};

[[noreturn]] inline void call_failure_handler(const char* what) noexcept {
  const failure_handler handler = installed_failure_handler.load(std::memory_order_acquire);
  if (handler != nullptr) handler(what);
  std::abort();
}
}  // namespace detail

inline failure_handler get_failure_handler() noexcept {
  return detail::installed_failure_handler.load(std::memory_order_acquire);
}

// Installs `handler` (null: abort) and returns the previous one.
inline failure_handler set_failure_handler(failure_handler handler) noexcept {
  const failure_handler previous = get_failure_handler();
  detail::installed_failure_handler.store(handler, std::memory_order_release);
  return previous;
}

// Throws E(args...) or, without exceptions, hands `what` to the failure handler.
template <class E, class... Args>
[[noreturn]] void fail([[maybe_unused]] const char* what, Args&&... args) {
#if ALLOCLAB_EXCEPTIONS
  throw E(std::forward<Args>(args)...);
#else
  (static_cast<void>(args), ...);
  detail::call_failure_handler(what);
#endif
}

}  // namespace alloclab
