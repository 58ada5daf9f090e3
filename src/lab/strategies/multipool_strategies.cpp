// Strategies on alloclab's size-class pools: any workload, any request size.

#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>

#include <algorithm>

#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

// Classes up to the workload's largest request (at least 4 KiB, at most 1 MiB), so after the
// first iteration no request reaches the heap.
template <class Options>
Options options_for(const workload_footprint& f) {
  Options options;
  options.max_block_size = std::max<std::size_t>(options.max_block_size, f.largest_request);
  return options;
}

// A pool over new_delete_resource that stays warm across iterations, as pmr_unsync_pool does.
template <class Pool, class Options>
class multipool_source final : public strategy_instance {
 public:
  explicit multipool_source(const workload_footprint& f)
      : pool_(std::pmr::new_delete_resource(), options_for<Options>(f)) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }

 private:
  Pool pool_;
};

// The same pool reached through alloclab::allocator<T, multipool_resource>: no virtual call.
class multipool_static_source final : public strategy_instance {
 public:
  explicit multipool_static_source(const workload_footprint& f)
      : pool_(std::pmr::new_delete_resource(), options_for<alloclab::multipool_options>(f)) {}
  allocator_kind kind() const override { return allocator_kind::multipool_static; }
  alloclab::multipool_resource* multipool() override { return &pool_; }

 private:
  alloclab::multipool_resource pool_;
};

const strategy_registrar multipool_registrations[] = {
    strategy_registrar{
        {"alloclab_multipool",
         "pmr containers on alloclab::multipool_resource over new_delete_resource (size classes "
         "up to the largest request, at least 4 KiB, at most 1 MiB), kept warm",
         peer_side::alloclab, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<
               multipool_source<alloclab::multipool_resource, alloclab::multipool_options>>(f);
         }}},
    strategy_registrar{
        {"alloclab_concurrent_multipool",
         "pmr containers on alloclab::concurrent_multipool_resource (per-thread caches, "
         "lock-free remote frees; classes as alloclab_multipool), kept warm",
         peer_side::alloclab, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<multipool_source<alloclab::concurrent_multipool_resource,
                                                    alloclab::concurrent_multipool_options>>(f);
         },
         /*thread_safe=*/true}},
    strategy_registrar{
        {"alloclab_multipool_static",
         "alloclab::allocator<T, multipool_resource>: alloclab_multipool without a virtual call",
         peer_side::alloclab, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<multipool_static_source>(f);
         }}},
};

}  // namespace
}  // namespace alloclab::lab
