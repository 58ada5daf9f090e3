// Upstreams that misbehave on purpose, for the adaptor tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace alloclab::testing {

// Allocates from the heap; every deallocation returns the block and then
// throws, as a foreign std::pmr resource may.
class throwing_deallocate_resource final : public std::pmr::memory_resource {
 public:
  std::size_t deallocations = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    ++deallocations;
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
    throw std::runtime_error("upstream deallocate failed");
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

// Forwards to `upstream` until close(); from then on refuses every request
// (as alloclab::null_resource()) and counts it. Frees are always forwarded.
class closable_upstream final : public std::pmr::memory_resource {
 public:
  explicit closable_upstream(std::pmr::memory_resource* upstream) noexcept : upstream_(upstream) {}
  void close() noexcept { closed_ = true; }
  std::size_t requests_after_close() const noexcept { return refused_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (!closed_) return upstream_->allocate(bytes, alignment);
    ++refused_;
    throw std::bad_alloc();
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    upstream_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::pmr::memory_resource* upstream_;
  bool closed_ = false;
  std::size_t refused_ = 0;
};

// Hands out addresses without memory behind them, for any size: lets an
// adaptor's counters be driven to their limits. Never dereference.
class address_only_resource final : public std::pmr::memory_resource {
 private:
  void* do_allocate(std::size_t, std::size_t alignment) override {
    next_ += 4096;
    return reinterpret_cast<void*>(next_ & ~(std::uintptr_t{alignment} - 1));
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::uintptr_t next_ = std::uintptr_t{1} << (sizeof(std::uintptr_t) < 8 ? 28 : 40);
};

// The Resource concept and nothing more (no memory_resource base, nothing
// virtual), counting its live blocks: proves an adaptor calls it directly.
struct counting_heap {
  std::size_t live = 0;
  void* allocate(std::size_t bytes, std::size_t alignment) {
    void* p = ::operator new (bytes, std::align_val_t{alignment});
    ++live;
    return p;
  }
  void deallocate(void* p, std::size_t, std::size_t alignment) noexcept {
    --live;
    ::operator delete (p, std::align_val_t{alignment});  // clang: no sized delete by default
  }
};
static_assert(!std::is_polymorphic_v<counting_heap>);

// An alloclab resource whose virtual entry points (do_allocate,
// do_deallocate) count their calls: a test proves a path is non-virtual by
// seeing the count stay at zero. Built with Resource's constructors.
template <class Resource>
class counts_virtual_calls final : public Resource {
 public:
  using Resource::Resource;
  std::size_t virtual_calls = 0;

 protected:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    ++virtual_calls;
    return Resource::do_allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    ++virtual_calls;
    Resource::do_deallocate(p, bytes, alignment);
  }
};

// Hands out blocks aligned to 16 bytes and never more, whatever alignment is asked.
class misaligning_resource final : public std::pmr::memory_resource {
 public:
  std::size_t live = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    auto* raw = static_cast<std::byte*>(
        std::pmr::new_delete_resource()->allocate(bytes + alignment + 16, alignment));
    ++live;
    return raw + 16;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    --live;
    std::pmr::new_delete_resource()->deallocate(static_cast<std::byte*>(p) - 16,
                                                bytes + alignment + 16, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

// Request sizes no object can have (over PTRDIFF_MAX): every resource must refuse them with
// std::bad_array_new_length. Asked at alignment 64, libstdc++'s aligned new rounds the last two
// up past SIZE_MAX and returns a tiny block.
inline constexpr std::size_t sizes_past_ptrdiff_max[] = {static_cast<std::size_t>(PTRDIFF_MAX) + 1,
                                                         SIZE_MAX - 15, SIZE_MAX};

// Replaces the global operator new of the test binary (failing_global_new.cpp):
// while a `global_new_failure` is alive, every global allocation throws.
struct global_new_failure {
  global_new_failure();
  ~global_new_failure();
  global_new_failure(const global_new_failure&) = delete;
  global_new_failure& operator=(const global_new_failure&) = delete;
};
// Global operator new calls so far (successful or not).
std::size_t global_new_calls() noexcept;

}  // namespace alloclab::testing
