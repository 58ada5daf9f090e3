// Replaces the global allocation functions so a separate, untimed pass can count heap use
// (the same idea as Google Benchmark's MemoryManager).
#include "heap_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

// Atomic so that multithreaded workloads can be counted too; relaxed: only the totals matter.
std::atomic<bool> counting{false};
std::atomic<std::uint64_t> counted_allocations{0};
std::atomic<std::uint64_t> counted_bytes{0};
alloclab::lab::allocation_observer observer = nullptr;
void* observer_context = nullptr;

inline void note(const void* p, std::size_t size) {
  if (__builtin_expect(counting.load(std::memory_order_relaxed), 0)) {
    counted_allocations.fetch_add(1, std::memory_order_relaxed);
    counted_bytes.fetch_add(size, std::memory_order_relaxed);
    if (observer != nullptr) observer(observer_context, p, size);
  }
}

void* allocate_or_throw(std::size_t size) {
  if (size == 0) size = 1;
  for (;;) {
    if (void* p = std::malloc(size)) {
      note(p, size);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* allocate_aligned_or_throw(std::size_t size, std::align_val_t alignment) {
  auto align = static_cast<std::size_t>(alignment);
  if (align < sizeof(void*)) align = sizeof(void*);
  std::size_t rounded = (size + align - 1) / align * align;
  if (rounded == 0) rounded = align;
  for (;;) {
    if (void* p = std::aligned_alloc(align, rounded)) {
      note(p, size);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

namespace alloclab::lab {

void heap_counting_begin() {
  counted_allocations.store(0, std::memory_order_relaxed);
  counted_bytes.store(0, std::memory_order_relaxed);
  counting.store(true, std::memory_order_relaxed);
}

heap_usage heap_counting_end() {
  counting.store(false, std::memory_order_relaxed);
  return heap_usage{counted_allocations.load(std::memory_order_relaxed),
                    counted_bytes.load(std::memory_order_relaxed)};
}

void set_allocation_observer(allocation_observer new_observer, void* context) noexcept {
  observer = new_observer;
  observer_context = context;
}

}  // namespace alloclab::lab

void* operator new(std::size_t size) {
  return allocate_or_throw(size);
}
void* operator new[](std::size_t size) {
  return allocate_or_throw(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate_or_throw(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate_or_throw(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t a) {
  return allocate_aligned_or_throw(size, a);
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return allocate_aligned_or_throw(size, a);
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return allocate_aligned_or_throw(size, a);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return allocate_aligned_or_throw(size, a);
  } catch (...) {
    return nullptr;
  }
}

void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
