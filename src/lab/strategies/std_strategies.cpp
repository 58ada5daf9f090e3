// Strategies built from the standard library only.
#include <memory_resource>

#include "buffer.hpp"
#include "counting_resource.hpp"
#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

class std_source final : public strategy_instance {
 public:
  allocator_kind kind() const override { return allocator_kind::standard; }
};

// pmr containers on a resource that outlives the cell and needs no per-iteration reset.
class shared_resource_source final : public strategy_instance {
 public:
  explicit shared_resource_source(std::pmr::memory_resource* r) : resource_(r) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return resource_; }

 private:
  std::pmr::memory_resource* resource_;
};

template <class Pool>
class pool_source final : public strategy_instance {
 public:
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }

 private:
  Pool pool_{std::pmr::new_delete_resource()};
};

// A monotonic buffer released after every iteration; its upstream decides what overflow means.
class monotonic_source : public strategy_instance {
 public:
  monotonic_source(std::size_t size, std::pmr::memory_resource* upstream)
      : buffer_(size), counter_(upstream), monotonic_(buffer_.data(), buffer_.size(), &counter_) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &monotonic_; }
  void end_iteration() override { monotonic_.release(); }
  std::uint64_t upstream_fallbacks() const override { return counter_.allocations(); }
  std::size_t buffer_bytes() const override { return buffer_.size(); }

 private:
  owned_buffer buffer_;
  counting_resource counter_;
  std::pmr::monotonic_buffer_resource monotonic_;
};

// Seed 004's composition: a monotonic buffer whose upstream is a synchronized pool
// (the pool is a base so that it is built before the buffer that uses it).
struct owned_sync_pool {
  std::pmr::synchronized_pool_resource pool{std::pmr::new_delete_resource()};
};

class monotonic_over_pool_source final : private owned_sync_pool, public monotonic_source {
 public:
  explicit monotonic_over_pool_source(std::size_t size) : monotonic_source(size, &pool) {}
};

const strategy_registrar std_registrations[] = {
    strategy_registrar{{"std", "std::allocator: the global heap (glibc malloc), the baseline",
                        peer_side::neither, fallback_rule::none, always_applicable,
                        [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
                          return std::make_unique<std_source>();
                        },
                        /*thread_safe=*/true}},
    strategy_registrar{
        {"pmr_new_delete",
         "pmr containers on new_delete_resource: the cost of the virtual indirection alone",
         peer_side::neither, fallback_rule::none, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<shared_resource_source>(std::pmr::new_delete_resource());
         },
         /*thread_safe=*/true}},
    strategy_registrar{
        {"pmr_monotonic",
         "monotonic_buffer_resource on a buffer sized by the tracking pass, null upstream, "
         "released every iteration",
         peer_side::peer, fallback_rule::forbidden, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<monotonic_source>(f.suggested_arena_bytes,
                                                     std::pmr::null_memory_resource());
         }}},
    strategy_registrar{
        {"pmr_monotonic_undersized",
         "seed 000's bug on purpose: a 16 000-byte buffer (1000*sizeof(int)*4), default "
         "upstream, so it silently falls back to the heap",
         peer_side::neither, fallback_rule::expected_warning, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<monotonic_source>(undersized_buffer_bytes,
                                                     std::pmr::get_default_resource());
         }}},
    strategy_registrar{
        {"pmr_unsync_pool", "unsynchronized_pool_resource over new_delete_resource, kept warm",
         peer_side::peer, fallback_rule::none, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<pool_source<std::pmr::unsynchronized_pool_resource>>();
         }}},
    strategy_registrar{
        {"pmr_sync_pool", "synchronized_pool_resource over new_delete_resource, kept warm",
         peer_side::peer, fallback_rule::none, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<pool_source<std::pmr::synchronized_pool_resource>>();
         },
         /*thread_safe=*/true}},
    strategy_registrar{
        {"pmr_monotonic_over_pool",
         "seed 004: monotonic buffer (tracking-sized) with a synchronized_pool_resource upstream, "
         "released every iteration",
         peer_side::peer, fallback_rule::forbidden, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<monotonic_over_pool_source>(f.suggested_arena_bytes);
         }}},
};

}  // namespace
}  // namespace alloclab::lab
