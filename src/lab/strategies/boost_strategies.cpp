// Peer strategies on Boost.Container's pmr resources (Debian's libboost-container-dev, linked
// against libboost_container): monotonic, unsynchronized and synchronized pools. Boost has its own
// memory_resource hierarchy, so each sits behind a std::pmr::memory_resource; the forwarded call
// is on an object of known type, which the compiler resolves without a second virtual dispatch.
#include <boost/container/pmr/global_resource.hpp>
#include <boost/container/pmr/memory_resource.hpp>
#include <boost/container/pmr/monotonic_buffer_resource.hpp>
#include <boost/container/pmr/synchronized_pool_resource.hpp>
#include <boost/container/pmr/unsynchronized_pool_resource.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <memory_resource>
#include <string>

#include "buffer.hpp"
#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

namespace bpmr = boost::container::pmr;

template <class Resource>
class boost_bridge final : public std::pmr::memory_resource {
 public:
  template <class... Args>
  explicit boost_bridge(Args&&... args) : resource_(std::forward<Args>(args)...) {}
  Resource& get() { return resource_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    return resource_.allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    resource_.deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  Resource resource_;
};

// Pools over Boost's new_delete_resource that stay warm across iterations; their largest pooled
// block covers the workload's largest request (as alloclab_multipool's classes do).
template <class Pool>
class boost_pool_source final : public strategy_instance {
 public:
  explicit boost_pool_source(const workload_footprint& f)
      : pool_(options_for(f), bpmr::new_delete_resource()) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &pool_; }

 private:
  static bpmr::pool_options options_for(const workload_footprint& f) {
    bpmr::pool_options options;
    options.largest_required_pool_block =
        std::max<std::size_t>(4096, std::min<std::size_t>(f.largest_request, 1 << 20));
    return options;
  }
  boost_bridge<Pool> pool_;
};

// Boost's monotonic buffer over a tracking-sized buffer with a null upstream, released every
// iteration: overflow throws, so the cell has no number rather than a heap-assisted one.
class boost_monotonic_source final : public strategy_instance {
 public:
  explicit boost_monotonic_source(std::size_t size)
      : buffer_(size), monotonic_(buffer_.data(), buffer_.size(), bpmr::null_memory_resource()) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &monotonic_; }
  void end_iteration() override { monotonic_.get().release(); }
  std::size_t buffer_bytes() const override { return buffer_.size(); }

 private:
  owned_buffer buffer_;
  boost_bridge<bpmr::monotonic_buffer_resource> monotonic_;
};

const strategy_registrar boost_registrations[] = {
    strategy_registrar{
        {"boost_pmr_monotonic",
         "boost::container::pmr::monotonic_buffer_resource on a buffer sized by the tracking "
         "pass, null upstream, released every iteration",
         peer_side::peer, fallback_rule::forbidden, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<boost_monotonic_source>(f.suggested_arena_bytes);
         }}},
    strategy_registrar{
        {"boost_pmr_unsync_pool",
         "boost::container::pmr::unsynchronized_pool_resource (pools up to the largest request, "
         "at least 4 KiB) over Boost's new_delete_resource, kept warm",
         peer_side::peer, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<boost_pool_source<bpmr::unsynchronized_pool_resource>>(f);
         }}},
    strategy_registrar{
        {"boost_pmr_sync_pool",
         "boost::container::pmr::synchronized_pool_resource (pools as boost_pmr_unsync_pool) "
         "over Boost's new_delete_resource, kept warm",
         peer_side::peer, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<boost_pool_source<bpmr::synchronized_pool_resource>>(f);
         },
         /*thread_safe=*/true}},
};

}  // namespace
}  // namespace alloclab::lab
