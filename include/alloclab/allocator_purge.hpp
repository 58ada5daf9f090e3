// alloclab/allocator_purge.hpp: returns the live malloc's free memory to the
// OS, whichever malloc that is, found at run time.
//
// `allocator_purge::find()` asks the dynamic linker which object defines
// `malloc` (so an LD_PRELOADed allocator wins), then looks in that same object
// for its purge entry point:
//
// | malloc from | symbol | call |
// |---|---|---|
// | jemalloc | `mallctl` | `mallctl("thread.tcache.flush")`, then `mallctl("arena.4096.purge")` (4096 = MALLCTL_ARENAS_ALL) |
// | mimalloc | `mi_collect` | `mi_collect(true)` |
// | tcmalloc | `MallocExtension_ReleaseFreeMemory` | as named |
// | oneTBB's malloc proxy | `__TBB_malloc_proxy` | `scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS, nullptr)` (in libtbbmalloc) |
// | dlmalloc (USE_DL_PREFIX, e.g. the lab's dlmalloc preload) | `dlmalloc_trim` | `dlmalloc_trim(0)` |
// | the lab's newlib preload | `alloclab_newlib_trim` | `alloclab_newlib_trim(0)` (newlib's `_malloc_trim_r`) |
// | glibc | `malloc_trim` | `malloc_trim(0)` |
//
// Scope of each purge: jemalloc's `arena.4096.purge`, mimalloc's
// `mi_collect(true)`, tcmalloc's, tbbmalloc's and dlmalloc's calls and `malloc_trim` act on
// the whole process's free memory. jemalloc's `thread.tcache.flush` flushes
// only the calling thread's cache (the watcher thread's, under
// budget_watcher): objects other threads hold in their caches stay there, and
// the purge cannot return their pages, until those threads flush them
// (jemalloc's cache GC does so as they keep allocating). jemalloc offers no
// call that flushes another thread's cache.
//
// Anything else (a sanitizer's malloc in the executable, a static allocator)
// gives kind `none` and says so in `reason()`; run() then does nothing.
// Nothing is linked at build time; the process needs the dynamic linker's
// dlsym/dladdr (in libc since glibc 2.34, in -ldl before).
//
// Example:
//   #include <alloclab/allocator_purge.hpp>
//   #include <cstdio>
//   #include <cstdlib>
//
//   int main() {
//     for (int i = 0; i < 1000; ++i) std::free(std::malloc(64 * 1024));
//     const alloclab::allocator_purge purge = alloclab::allocator_purge::find();
//     std::printf("%s (%s)\n", alloclab::to_string(purge.kind()), purge.reason().c_str());
//     // A plain build on Linux uses glibc's malloc: the purge is malloc_trim(0).
//     return purge.run() || purge.kind() == alloclab::purge_kind::none ? 0 : 1;
//   }
//
// Thread-safe: find() and run() keep no shared state.
#pragma once

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <string>

namespace alloclab {

enum class purge_kind {
  none,
  jemalloc_mallctl,
  mimalloc_collect,
  tcmalloc_release,
  tbbmalloc_clean,
  dlmalloc_trim,
  newlib_trim,
  glibc_malloc_trim
};

inline const char* to_string(purge_kind kind) noexcept {
  switch (kind) {
    case purge_kind::none:
      return "none";
    case purge_kind::jemalloc_mallctl:
      return "jemalloc mallctl(arena.4096.purge)";
    case purge_kind::mimalloc_collect:
      return "mimalloc mi_collect(true)";
    case purge_kind::tcmalloc_release:
      return "tcmalloc MallocExtension_ReleaseFreeMemory()";
    case purge_kind::tbbmalloc_clean:
      return "tbbmalloc scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS)";
    case purge_kind::dlmalloc_trim:
      return "dlmalloc dlmalloc_trim(0)";
    case purge_kind::newlib_trim:
      return "newlib _malloc_trim_r(0)";
    case purge_kind::glibc_malloc_trim:
      return "glibc malloc_trim(0)";
  }
  return "unknown";
}

class allocator_purge {
 public:
  static allocator_purge find() {
    allocator_purge purge;
    Dl_info malloc_owner{};
    void* malloc_address = ::dlsym(RTLD_DEFAULT, "malloc");
    if (!malloc_address || !::dladdr(malloc_address, &malloc_owner)) {
      purge.reason_ = "the dynamic linker does not say which object defines malloc";
      return purge;
    }
    purge.library_ = malloc_owner.dli_fname ? malloc_owner.dli_fname : "";
    for (const candidate& c : candidates()) {
      void* marker = ::dlsym(RTLD_DEFAULT, c.marker);
      Dl_info owner{};
      if (!marker || !::dladdr(marker, &owner) || owner.dli_fbase != malloc_owner.dli_fbase)
        continue;
      purge.reason_ = "malloc comes from " + purge.library_ + ", which defines " + c.marker;
      purge.entry_ = ::dlsym(RTLD_DEFAULT, c.entry);
      if (!purge.entry_) {
        purge.reason_ += ", but no " + std::string(c.entry) + " is loaded";
        return purge;
      }
      purge.kind_ = c.kind;
      return purge;
    }
    purge.reason_ = "malloc comes from " + purge.library_ +
                    ", which defines none of mallctl, mi_collect, "
                    "MallocExtension_ReleaseFreeMemory, __TBB_malloc_proxy, dlmalloc_trim, "
                    "alloclab_newlib_trim, malloc_trim";
    return purge;
  }

  purge_kind kind() const noexcept { return kind_; }
  // The object that defines the live malloc (a path from the dynamic linker).
  const std::string& library() const noexcept { return library_; }
  const std::string& reason() const noexcept { return reason_; }

  // Calls the purge. True when one was called and did not report an error
  // (malloc_trim's "nothing released" is not an error).
  bool run() const noexcept {
    switch (kind_) {
      case purge_kind::jemalloc_mallctl: {
        using mallctl_fn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
        const auto mallctl = reinterpret_cast<mallctl_fn>(entry_);
        // The calling thread's cache only (see the top of this file); ENOENT when off.
        (void)mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
        return mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) == 0;
      }
      case purge_kind::mimalloc_collect:
        reinterpret_cast<void (*)(bool)>(entry_)(true);
        return true;
      case purge_kind::tcmalloc_release:
        reinterpret_cast<void (*)()>(entry_)();
        return true;
      case purge_kind::tbbmalloc_clean: {
        // 0 = TBBMALLOC_CLEAN_ALL_BUFFERS; returns 0 (OK) or 4 (NO_EFFECT).
        const int rc = reinterpret_cast<int (*)(int, void*)>(entry_)(0, nullptr);
        return rc == 0 || rc == 4;
      }
      case purge_kind::dlmalloc_trim:  // all three return 1 when memory was released, else 0
      case purge_kind::newlib_trim:
      case purge_kind::glibc_malloc_trim:
        reinterpret_cast<int (*)(std::size_t)>(entry_)(0);
        return true;
      case purge_kind::none:
        return false;
    }
    return false;
  }

 private:
  struct candidate {
    purge_kind kind;
    const char* marker;  // must be defined by the object that defines malloc
    const char* entry;   // the purge call, wherever it is loaded
  };
  // Allocator-specific entry points first: an allocator that also defines
  // malloc_trim for compatibility is still purged its own way.
  static const std::array<candidate, 7>& candidates() noexcept {
    static const std::array<candidate, 7> list = {
        {{purge_kind::jemalloc_mallctl, "mallctl", "mallctl"},
         {purge_kind::mimalloc_collect, "mi_collect", "mi_collect"},
         {purge_kind::tcmalloc_release, "MallocExtension_ReleaseFreeMemory",
          "MallocExtension_ReleaseFreeMemory"},
         {purge_kind::tbbmalloc_clean, "__TBB_malloc_proxy", "scalable_allocation_command"},
         {purge_kind::dlmalloc_trim, "dlmalloc_trim", "dlmalloc_trim"},
         {purge_kind::newlib_trim, "alloclab_newlib_trim", "alloclab_newlib_trim"},
         {purge_kind::glibc_malloc_trim, "malloc_trim", "malloc_trim"}}};
    return list;
  }

  purge_kind kind_ = purge_kind::none;
  void* entry_ = nullptr;
  std::string library_;
  std::string reason_;
};

}  // namespace alloclab
