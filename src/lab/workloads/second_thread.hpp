// Runs work on a second thread beside the calling thread, for the multithreaded workloads.
// Started with pthread_create, which, unlike std::thread, allocates nothing with operator new:
// the lab counts operator new calls during an iteration as the strategy's heap use.
#pragma once

#include <pthread.h>

#include <exception>
#include <system_error>

namespace alloclab::lab {

// Runs `helper()` on a new thread and `caller()` on this one, then joins. An exception from
// either is rethrown here (the caller's first) after the join.
template <class Helper, class Caller>
void run_beside(Helper& helper, Caller&& caller) {
  struct task {
    Helper& work;
    std::exception_ptr error;
  } t{helper, nullptr};
  pthread_t thread;
  const int started = pthread_create(
      &thread, nullptr,
      [](void* p) -> void* {
        auto& me = *static_cast<task*>(p);
        try {
          me.work();
        } catch (...) {
          me.error = std::current_exception();
        }
        return nullptr;
      },
      &t);
  if (started != 0) throw std::system_error(started, std::generic_category(), "pthread_create");
  try {
    caller();
  } catch (...) {
    pthread_join(thread, nullptr);
    throw;
  }
  pthread_join(thread, nullptr);
  if (t.error) std::rethrow_exception(t.error);
}

}  // namespace alloclab::lab
