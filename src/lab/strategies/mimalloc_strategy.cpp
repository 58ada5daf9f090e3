// Peer strategy on a mimalloc first-class heap (mi_heap_new / mi_heap_malloc / mi_heap_destroy),
// destroyed and recreated every iteration.
//
// libmimalloc.so also defines malloc and free: linked into alloclab it would replace glibc in
// every worker, and every "glibc" cell would silently measure mimalloc. So the binary does not
// link it. Only a worker that runs this strategy loads it, with dlopen(RTLD_LOCAL) so that its
// malloc stays out of the global symbol scope, calls mi_heap_* through pointers from dlsym, and
// checks that malloc is still served by the library that served it before the load.
//
// A mimalloc heap allocates on the thread that created it only, and only that thread may destroy
// it. The thread that builds the strategy owns one heap; any other thread that allocates gets a
// heap of its own, created on first use and deleted by mimalloc when that thread exits (its blocks
// stay valid). Ending an iteration destroys and renews the calling thread's heap (the serve frame
// ends iterations on its connection threads). Blocks are freed with mi_free from any thread.
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "mallocs/liveness.hpp"
#include "mallocs/malloc_table.hpp"
#include "strategy_table.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab {
namespace {

constexpr const char* mimalloc_soname = "libmimalloc.so.2";
// mimalloc's guaranteed alignment for any block (MI_MAX_ALIGN_SIZE).
constexpr std::size_t mimalloc_natural_alignment = 16;

struct mi_heap;  // opaque mi_heap_t

struct mimalloc_heap_api {
  mi_heap* (*heap_new)() = nullptr;
  void (*heap_destroy)(mi_heap*) = nullptr;
  void* (*heap_malloc)(mi_heap*, std::size_t) = nullptr;
  void* (*heap_malloc_aligned)(mi_heap*, std::size_t, std::size_t) = nullptr;
  void (*free)(void*) = nullptr;
};

template <class F>
F symbol(void* library, const char* name) {
  void* p = dlsym(library, name);
  if (p == nullptr) throw std::runtime_error(std::string(mimalloc_soname) + " lacks " + name);
  return reinterpret_cast<F>(p);
}

mimalloc_heap_api load_mimalloc() {
  const std::string malloc_owner = alloclab::mallocs::symbol_owner("malloc");
  void* library = dlopen(mimalloc_soname, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw std::runtime_error(std::string("cannot load ") + dlerror());
  if (alloclab::mallocs::symbol_owner("malloc") != malloc_owner)
    throw std::runtime_error("loading " + std::string(mimalloc_soname) +
                             " changed the process's malloc; refusing to measure");
  mimalloc_heap_api api;
  api.heap_new = symbol<decltype(api.heap_new)>(library, "mi_heap_new");
  api.heap_destroy = symbol<decltype(api.heap_destroy)>(library, "mi_heap_destroy");
  api.heap_malloc = symbol<decltype(api.heap_malloc)>(library, "mi_heap_malloc");
  api.heap_malloc_aligned =
      symbol<decltype(api.heap_malloc_aligned)>(library, "mi_heap_malloc_aligned");
  api.free = symbol<decltype(api.free)>(library, "mi_free");
  return api;  // the library stays loaded for the life of the worker
}

const mimalloc_heap_api& mimalloc() {
  static const mimalloc_heap_api api = load_mimalloc();
  return api;
}

class mimalloc_heap_resource final : public std::pmr::memory_resource {
 public:
  mimalloc_heap_resource() : owner_(std::this_thread::get_id()), heap_(mi_.heap_new()) {
    if (heap_ == nullptr) throw std::bad_alloc();
  }
  ~mimalloc_heap_resource() override {
    // Another thread may not destroy the owner's heap: it then goes when the owner exits.
    if (std::this_thread::get_id() == owner_) mi_.heap_destroy(heap_);
  }
  mimalloc_heap_resource(const mimalloc_heap_resource&) = delete;
  mimalloc_heap_resource& operator=(const mimalloc_heap_resource&) = delete;

  // Frees every block the calling thread allocated from this resource at once, and starts that
  // thread a fresh heap.
  void release() {
    if (std::this_thread::get_id() != owner_) return release_this_threads_heap();
    mi_.heap_destroy(heap_);
    heap_ = mi_.heap_new();
    if (heap_ == nullptr) throw std::bad_alloc();
  }

 private:
  struct thread_heap {
    std::uint64_t resource = 0;  // the resource's identity (0: none)
    mi_heap* heap = nullptr;
  };
  static thread_heap& this_threads_slot() {
    thread_local thread_heap mine;
    return mine;
  }

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    mi_heap* heap = std::this_thread::get_id() == owner_ ? heap_ : this_threads_heap();
    void* p = alignment <= mimalloc_natural_alignment
                  ? mi_.heap_malloc(heap, bytes)
                  : mi_.heap_malloc_aligned(heap, bytes, alignment);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { mi_.free(p); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  // A non-owner thread's heap for this resource (an identity, not the address, tells resources
  // apart: a later resource may reuse this one's address).
  mi_heap* this_threads_heap() {
    thread_heap& mine = this_threads_slot();
    if (mine.resource != identity_) {
      mine.heap = mi_.heap_new();
      if (mine.heap == nullptr) throw std::bad_alloc();
      mine.resource = identity_;
    }
    return mine.heap;
  }

  // A non-owner thread's heap of this resource, destroyed with its blocks; the thread's next
  // allocation makes a fresh one.
  void release_this_threads_heap() {
    thread_heap& mine = this_threads_slot();
    if (mine.resource != identity_) return;
    mi_.heap_destroy(mine.heap);
    mine = {};
  }

  static inline std::atomic<std::uint64_t> next_identity{1};
  const mimalloc_heap_api& mi_ = mimalloc();
  const std::uint64_t identity_ = next_identity.fetch_add(1);
  const std::thread::id owner_;
  mi_heap* heap_;
};

class mimalloc_heap_source final : public strategy_instance {
 public:
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &resource_; }
  void end_iteration() override { resource_.release(); }

 private:
  mimalloc_heap_resource resource_;
};

std::string mimalloc_missing() {
  if (malloc_hidden("mimalloc")) return "libmimalloc.so.2 hidden by a test hook";
  if (alloclab::mallocs::resolve_library(mimalloc_soname)) return {};
  return std::string(mimalloc_soname) +
         " not found (Debian package libmimalloc2.0; scripts/deps.sh installs it)";
}

const strategy_registrar registration{
    {"mimalloc_heap",
     "a memory_resource over a mimalloc first-class heap (mi_heap_malloc, mi_free), destroyed "
     "and recreated every iteration; libmimalloc loaded with dlopen(RTLD_LOCAL), never linked",
     peer_side::peer, fallback_rule::none, always_applicable,
     [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
       return std::make_unique<mimalloc_heap_source>();
     },
     /*thread_safe=*/true, mimalloc_missing}};

}  // namespace
}  // namespace alloclab::lab
