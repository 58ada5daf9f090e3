// Strategies on alloclab's size-class pools (issue 9): any workload, any request size.
#include "lab_config.hpp"

#if ALLOCLAB_LAB_HAS_LIBRARY && __has_include(<alloclab/multipool_resource.hpp>) && \
    __has_include(<alloclab/concurrent_multipool_resource.hpp>)

#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>

#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

// A pool over new_delete_resource that stays warm across iterations, as pmr_unsync_pool does.
// Requests beyond the largest class (4 KiB) are forwarded to new_delete_resource.
template <class Pool>
class multipool_source final : public strategy_instance {
 public:
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }

 private:
  Pool pool_{std::pmr::new_delete_resource()};
};

std::string always_applicable(const workload_footprint&) {
  return {};
}

const strategy_registrar registrations[] = {
    strategy_registrar{
        {"alloclab_multipool",
         "pmr containers on alloclab::multipool_resource (size classes up to 4 KiB, larger "
         "requests forwarded to new_delete_resource), kept warm",
         fallback_rule::none, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<multipool_source<alloclab::multipool_resource>>();
         }}},
    strategy_registrar{
        {"alloclab_concurrent_multipool",
         "pmr containers on alloclab::concurrent_multipool_resource (per-thread caches, "
         "lock-free remote frees), kept warm",
         fallback_rule::none, always_applicable,
         [](const workload_footprint&) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<multipool_source<alloclab::concurrent_multipool_resource>>();
         }}},
};

}  // namespace
}  // namespace alloclab::lab

#endif
