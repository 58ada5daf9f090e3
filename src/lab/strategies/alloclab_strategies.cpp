// Strategies built on the alloclab library (compiled only when its headers are present).

#include <alloclab/arena_resource.hpp>
#include <fmt/format.h>

#include "buffer.hpp"
#include "strategy_table.hpp"

#include <alloclab/pool_resource.hpp>

namespace alloclab::lab {
namespace {

// An alloclab arena over a tracking-sized buffer; overflow throws instead of touching the heap.
class arena_source final : public strategy_instance {
 public:
  arena_source(std::size_t size, allocator_kind kind)
      : buffer_(size),
        arena_(buffer_.data(), buffer_.size(), std::pmr::null_memory_resource(),
               throwing_options()),
        kind_(kind) {}
  allocator_kind kind() const override { return kind_; }
  std::pmr::memory_resource* resource() override { return &arena_; }
  alloclab::arena_resource* arena() override { return &arena_; }
  void end_iteration() override { arena_.release(); }
  std::uint64_t upstream_fallbacks() const override { return arena_.overflows(); }
  std::size_t buffer_bytes() const override { return buffer_.size(); }

 private:
  static alloclab::arena_options throwing_options() {
    alloclab::arena_options options;
    options.policy = alloclab::overflow_policy::throw_bad_alloc;
    return options;
  }
  owned_buffer buffer_;
  alloclab::arena_resource arena_;
  allocator_kind kind_;
};

// A fixed-capacity alloclab pool whose block fits the workload's largest request.
class node_pool_source final : public strategy_instance {
 public:
  explicit node_pool_source(const workload_footprint& f)
      : buffer_(capacity_for(f)),
        pool_(f.largest_request, alloclab::fixed_buffer{buffer_.data(), buffer_.size()},
              refusing_options()) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }
  std::uint64_t upstream_fallbacks() const override { return pool_.oversize_allocations(); }
  std::size_t buffer_bytes() const override { return buffer_.size(); }

 private:
  static alloclab::pool_options refusing_options() {
    alloclab::pool_options options;
    options.oversize = alloclab::oversize_policy::throw_bad_alloc;
    return options;
  }
  // Peak live blocks plus 25 %, each a block of the largest request rounded to 16 bytes.
  static std::size_t capacity_for(const workload_footprint& f) {
    const std::size_t block = (f.largest_request + 15) / 16 * 16;
    return (f.peak_blocks + f.peak_blocks / 4 + 4) * block;
  }
  owned_buffer buffer_;
  alloclab::pool_resource pool_;
};

std::string pool_applicability(const workload_footprint& f) {
  if (f.largest_request <= max_pool_block) return {};
  return fmt::format(
      "largest request is {} B; a fixed-block pool only suits node-sized requests (<= {} B)",
      f.largest_request, max_pool_block);
}

const strategy_registrar alloclab_registrations[] = {
    strategy_registrar{
        {"alloclab_arena",
         "pmr containers on alloclab::arena_resource (tracking-sized buffer, null upstream, "
         "overflow throws), released every iteration",
         peer_side::alloclab, fallback_rule::forbidden, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<arena_source>(f.suggested_arena_bytes,
                                                 allocator_kind::polymorphic);
         }}},
    strategy_registrar{
        {"alloclab_arena_static",
         "alloclab::allocator<T, arena_resource>: the same arena without a virtual call",
         peer_side::alloclab, fallback_rule::forbidden, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<arena_source>(f.suggested_arena_bytes,
                                                 allocator_kind::arena_static);
         }}},
    strategy_registrar{
        {"alloclab_pool",
         "alloclab::pool_resource, one fixed block size (largest request), fixed buffer; "
         "node containers only",
         peer_side::alloclab, fallback_rule::forbidden, pool_applicability,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<node_pool_source>(f);
         }}},
};

}  // namespace
}  // namespace alloclab::lab
