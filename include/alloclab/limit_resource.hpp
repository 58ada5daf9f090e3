// alloclab/limit_resource.hpp: an adaptor that enforces a byte budget and
// injects allocation failures.
//
// `limit_resource` forwards to its upstream until a limit is hit, then throws
// `allocation_limit_exceeded`, a `std::bad_alloc` that says which request
// failed and why. Two limits, usable together:
//   - `max_bytes`: the bytes live through this resource may not exceed it;
//   - `fail_at_allocation`: the Nth request (1-based) fails, and with
//     `keep_failing` every later one too. 0 disables it.
// The budget is charged before the upstream is asked and refunded if the
// upstream throws; a request the upstream refuses is not counted either, so
// an upstream failure leaves the adaptor as if the call never happened and
// `fail_at_allocation` keeps numbering the requests this adaptor decided.
// A request refused by a limit (budget or injected) is counted. Deallocation
// refunds the budget before forwarding, so the budget is right even if the
// upstream throws.
//
// Example:
//   #include <alloclab/limit_resource.hpp>
//   #include <memory_resource>
//   #include <vector>
//
//   int main() {
//     alloclab::limit_resource limited{std::pmr::new_delete_resource(), {1024}};
//     std::pmr::vector<char> bytes{&limited};
//     try {
//       bytes.resize(4096);
//       return 1;  // the budget should have refused this
//     } catch (const alloclab::allocation_limit_exceeded& e) {
//       return e.bytes() == 4096 && limited.bytes_in_use() == 0 ? 0 : 1;
//     }
//   }
//
// Bounds: allocate and deallocate O(1) plus the upstream's call.
//
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>

#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"
#include "failure.hpp"

namespace alloclab {

struct allocation_limits {
  std::size_t max_bytes = SIZE_MAX;
  std::size_t fail_at_allocation = 0;  // 1-based request number; 0 = never
  bool keep_failing = true;            // fail every request after that one too
};

class allocation_limit_exceeded : public detail::refused_request {
 public:
  enum class reason { byte_budget, injected_failure };

  allocation_limit_exceeded(reason why, std::size_t bytes, std::size_t alignment) noexcept
      : refused_request(bytes, alignment), why_(why) {}

  const char* what() const noexcept override {
    return why_ == reason::byte_budget ? "alloclab::limit_resource: byte budget exceeded"
                                       : "alloclab::limit_resource: injected allocation failure";
  }
  reason why() const noexcept { return why_; }

 private:
  reason why_;
};

class limit_resource final : public detail::pmr_bridge<limit_resource> {
 public:
  limit_resource(std::pmr::memory_resource* upstream, allocation_limits limits) noexcept
      : upstream_(upstream), limits_(limits) {}
  limit_resource(const limit_resource&) = delete;
  limit_resource& operator=(const limit_resource&) = delete;

  // Within the budget, a size over PTRDIFF_MAX throws std::bad_array_new_length and, as an
  // upstream failure, is not counted.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::size_t request_number = ++requests_;
    if (injected_failure_due(request_number)) {
      fail<allocation_limit_exceeded>("alloclab::limit_resource: injected allocation failure",
                                      allocation_limit_exceeded::reason::injected_failure, bytes,
                                      alignment);
    }
    if (bytes > limits_.max_bytes || bytes_in_use_ > limits_.max_bytes - bytes) {
      fail<allocation_limit_exceeded>("alloclab::limit_resource: byte budget exceeded",
                                      allocation_limit_exceeded::reason::byte_budget, bytes,
                                      alignment);
    }
    bytes_in_use_ += bytes;
    ALLOCLAB_TRY {
      detail::require_representable_size(bytes);
      return upstream_->allocate(bytes, alignment);
    }
    ALLOCLAB_CATCH_ALL {
      bytes_in_use_ -= bytes;
      --requests_;
      ALLOCLAB_RETHROW;
    }
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    bytes_in_use_ -= bytes < bytes_in_use_ ? bytes : bytes_in_use_;
    upstream_->deallocate(p, bytes, alignment);
  }

  // Replaces the limits; counts so far are kept.
  void set_limits(allocation_limits limits) noexcept { limits_ = limits; }
  // Makes the request `n` requests from now fail; n == 0 clears the injected
  // failure. A count past SIZE_MAX requests saturates (it never comes).
  void fail_after(std::size_t n, bool keep_failing = true) noexcept {
    const std::size_t room = SIZE_MAX - requests_;
    limits_.fail_at_allocation = n == 0 ? 0 : n > room ? SIZE_MAX : requests_ + n;
    limits_.keep_failing = keep_failing;
  }

  const allocation_limits& limits() const noexcept { return limits_; }
  std::size_t requests() const noexcept { return requests_; }
  std::size_t bytes_in_use() const noexcept { return bytes_in_use_; }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  bool injected_failure_due(std::size_t request_number) const noexcept {
    const std::size_t n = limits_.fail_at_allocation;
    if (n == 0) return false;
    return limits_.keep_failing ? request_number >= n : request_number == n;
  }

  std::pmr::memory_resource* upstream_;
  allocation_limits limits_;
  std::size_t requests_ = 0;
  std::size_t bytes_in_use_ = 0;
};

}  // namespace alloclab
