#include "heap/purge.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>
#include <cstring>

namespace alloclab::heap {

namespace {

/// dlsym for a function: converts the object pointer without a pointer-to-function cast.
template <class Fn>
Fn find_function(const char* name) noexcept {
  void* sym = dlsym(RTLD_DEFAULT, name);
  if (sym == nullptr) return nullptr;
  static_assert(sizeof(Fn) == sizeof(void*), "function and object pointers differ in size");
  Fn fn;
  std::memcpy(&fn, &sym, sizeof fn);
  return fn;
}

// jemalloc 5.x: MALLCTL_ARENAS_ALL == 4096 ("arena.<i>.purge" with i == MALLCTL_ARENAS_ALL
// purges every arena).
constexpr const char* jemalloc_purge_all = "arena.4096.purge";
// oneTBB: enum ScalableAllocationCmd { TBBMALLOC_CLEAN_ALL_BUFFERS, TBBMALLOC_CLEAN_THREAD_BUFFERS }
constexpr int tbbmalloc_clean_all_buffers = 0;

}  // namespace

purge_result purge_glibc() {
  purge_result r;
  r.method = "malloc_trim(0)";
  r.available = true;
  r.rc = ::malloc_trim(0);
  return r;
}

purge_result purge_jemalloc() {
  using mallctl_t = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  purge_result r;
  r.method =
      std::string("mallctl(\"thread.tcache.flush\"); mallctl(\"") + jemalloc_purge_all + "\")";
  auto mallctl = find_function<mallctl_t>("mallctl");
  if (mallctl == nullptr) return r;
  r.available = true;
  (void)mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  r.rc = mallctl(jemalloc_purge_all, nullptr, nullptr, nullptr, 0);
  return r;
}

purge_result purge_mimalloc() {
  using mi_collect_t = void (*)(bool);
  purge_result r;
  r.method = "mi_collect(true)";
  auto fn = find_function<mi_collect_t>("mi_collect");
  if (fn == nullptr) return r;
  r.available = true;
  fn(true);
  return r;
}

purge_result purge_tcmalloc() {
  using release_t = void (*)();
  purge_result r;
  r.method = "MallocExtension_ReleaseFreeMemory()";
  auto fn = find_function<release_t>("MallocExtension_ReleaseFreeMemory");
  if (fn == nullptr) return r;
  r.available = true;
  fn();
  return r;
}

purge_result purge_tbbmalloc() {
  using command_t = int (*)(int, void*);
  purge_result r;
  r.method = "scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS, nullptr)";
  auto fn = find_function<command_t>("scalable_allocation_command");
  if (fn == nullptr) return r;
  r.available = true;
  r.rc = fn(tbbmalloc_clean_all_buffers, nullptr);
  return r;
}

}  // namespace alloclab::heap
