// A pass-through memory_resource that counts what reaches it. Used as the upstream of
// arenas to count heap fallbacks, and under the tracking pass to see the largest request.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory_resource>

namespace alloclab::lab {

class counting_resource final : public std::pmr::memory_resource {
 public:
  explicit counting_resource(std::pmr::memory_resource* upstream) : upstream_(upstream) {}

  std::size_t allocations() const noexcept { return allocations_; }
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t largest_request() const noexcept { return largest_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    void* p = upstream_->allocate(bytes, alignment);
    ++allocations_;
    bytes_ += bytes;
    largest_ = std::max(largest_, bytes);
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    upstream_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::pmr::memory_resource* upstream_;
  std::size_t allocations_ = 0;
  std::size_t bytes_ = 0;
  std::size_t largest_ = 0;
};

}  // namespace alloclab::lab
