// Strategies on alloclab's size-class pools (issue 9): any workload, any request size.

#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>

#include <algorithm>

#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

// A pool over new_delete_resource that stays warm across iterations, as pmr_unsync_pool does.
// Its largest class covers the workload's largest request (at least 4 KiB, at most 1 MiB), so
// after the first iteration no request reaches the heap.
template <class Pool, class Options>
class multipool_source final : public strategy_instance {
 public:
  explicit multipool_source(const workload_footprint& f)
      : pool_(std::pmr::new_delete_resource(), options_for(f)) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }

 private:
  static Options options_for(const workload_footprint& f) {
    Options options;
    options.max_block_size = std::max<std::size_t>(options.max_block_size, f.largest_request);
    return options;
  }
  Pool pool_;
};

std::string always_applicable(const workload_footprint&) {
  return {};
}

const strategy_registrar registrations[] = {
    strategy_registrar{
        {"alloclab_multipool",
         "pmr containers on alloclab::multipool_resource over new_delete_resource (size classes "
         "up to the largest request, at least 4 KiB, at most 1 MiB), kept warm",
         fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<
               multipool_source<alloclab::multipool_resource, alloclab::multipool_options>>(f);
         }}},
    strategy_registrar{
        {"alloclab_concurrent_multipool",
         "pmr containers on alloclab::concurrent_multipool_resource (per-thread caches, "
         "lock-free remote frees; classes as alloclab_multipool), kept warm",
         fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<multipool_source<alloclab::concurrent_multipool_resource,
                                                    alloclab::concurrent_multipool_options>>(f);
         }}},
};

}  // namespace
}  // namespace alloclab::lab
