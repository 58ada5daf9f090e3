// Peer strategies on foonathan/memory (Debian's libfoonathan-memory-dev; how Debian built it is in
// the results' environment block): memory_stack, memory_pool_collection and memory_pool, each
// behind a std::pmr::memory_resource so the workloads' pmr containers can use them.
#include <foonathan/memory/memory_pool.hpp>
#include <foonathan/memory/memory_pool_collection.hpp>
#include <foonathan/memory/memory_stack.hpp>

#include <algorithm>
#include <cstddef>
#include <memory_resource>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "strategy_table.hpp"

namespace alloclab::lab {
namespace {

namespace fm = foonathan::memory;

// foonathan's nodes are aligned for their size, up to max_align_t; it takes no alignment argument.
void require_fundamental(std::size_t alignment) {
  if (alignment > alignof(std::max_align_t)) throw std::bad_alloc();
}

// A pmr resource over a foonathan allocator; `Backend` says how a block is taken and given back.
template <class Backend>
class foonathan_resource final : public std::pmr::memory_resource {
 public:
  template <class... Args>
  explicit foonathan_resource(Args&&... args) : backend_(std::forward<Args>(args)...) {}
  Backend& backend() { return backend_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    require_fundamental(alignment);
    return backend_.allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
    backend_.deallocate(p, bytes);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  Backend backend_;
};

// memory_stack: a bump allocator whose frees are no-ops; unwound to its start every iteration.
struct stack_backend {
  explicit stack_backend(std::size_t block_size) : stack(block_size), start(stack.top()) {}
  void* allocate(std::size_t bytes, std::size_t alignment) {
    return stack.allocate(bytes, alignment);
  }
  void deallocate(void*, std::size_t) {}
  fm::memory_stack<> stack;
  fm::memory_stack<>::marker start;
};

// memory_pool_collection: one free list per size bucket, over one growing arena.
template <class Buckets>
struct collection_backend {
  collection_backend(std::size_t max_node, std::size_t block_size) : pools(max_node, block_size) {}
  void* allocate(std::size_t bytes, std::size_t) {
    void* p = pools.allocate_node(bytes);
    if (p == nullptr) throw std::bad_alloc();  // a refill smaller than one node (see block_for)
    return p;
  }
  void deallocate(void* p, std::size_t bytes) { pools.deallocate_node(p, bytes); }
  fm::memory_pool_collection<fm::node_pool, Buckets> pools;
};

// memory_pool: one node size (the workload's largest request) for every request.
struct pool_backend {
  pool_backend(std::size_t node_size, std::size_t block_size) : pool(node_size, block_size) {}
  void* allocate(std::size_t, std::size_t) { return pool.allocate_node(); }
  void deallocate(void* p, std::size_t) { pool.deallocate_node(p); }
  fm::memory_pool<fm::node_pool> pool;
};

template <class Backend>
class foonathan_source final : public strategy_instance {
 public:
  template <class... Args>
  explicit foonathan_source(Args&&... args) : resource_(std::forward<Args>(args)...) {}
  allocator_kind kind() const override { return allocator_kind::polymorphic; }
  std::pmr::memory_resource* resource() override { return &resource_; }
  void end_iteration() override {
    if constexpr (std::is_same_v<Backend, stack_backend>)
      resource_.backend().stack.unwind(resource_.backend().start);
  }

 private:
  foonathan_resource<Backend> resource_;
};

// Identity buckets (one free list per byte size) while that stays small, log2 buckets above.
constexpr std::size_t identity_bucket_limit = 512;

// memory_pool_collection refills a list with (block size / number of lists) bytes at a time:
// the block must give every list several of its largest nodes at once.
std::size_t block_for(std::size_t lists, std::size_t largest_node) {
  return std::max<std::size_t>(std::size_t{1} << 20, lists * largest_node * 8);
}

std::unique_ptr<strategy_instance> make_collection(const workload_footprint& f) {
  const std::size_t largest = std::max<std::size_t>(f.largest_request, 16);
  if (largest <= identity_bucket_limit)
    return std::make_unique<foonathan_source<collection_backend<fm::identity_buckets>>>(
        largest, block_for(largest, largest));
  return std::make_unique<foonathan_source<collection_backend<fm::log2_buckets>>>(
      largest, block_for(64, largest));
}

std::string node_sized_only(const workload_footprint& f) {
  if (f.largest_request <= max_pool_block) return {};
  return fmt::format(
      "largest request is {} B; a one-size memory_pool only suits node-sized requests (<= {} B)",
      f.largest_request, max_pool_block);
}

const strategy_registrar foonathan_registrations[] = {
    strategy_registrar{
        {"foonathan_stack",
         "foonathan::memory::memory_stack (first block sized by the tracking pass), frees are "
         "no-ops, unwound to its start every iteration",
         peer_side::peer, fallback_rule::none, always_applicable,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           return std::make_unique<foonathan_source<stack_backend>>(f.suggested_arena_bytes + 4096);
         }}},
    strategy_registrar{
        {"foonathan_pool_collection",
         "foonathan::memory::memory_pool_collection<node_pool> up to the largest request "
         "(identity buckets up to 512 B, log2 buckets above), kept warm",
         peer_side::peer, fallback_rule::none, always_applicable, make_collection}},
    strategy_registrar{
        {"foonathan_pool",
         "foonathan::memory::memory_pool<node_pool>, one node size (largest request), kept warm; "
         "node containers only",
         peer_side::peer, fallback_rule::none, node_sized_only,
         [](const workload_footprint& f) -> std::unique_ptr<strategy_instance> {
           const std::size_t node = std::max<std::size_t>(f.largest_request, 16);
           return std::make_unique<foonathan_source<pool_backend>>(
               node, std::max<std::size_t>(64 * 1024, node * (f.peak_blocks + 4) * 2));
         }}},
};

}  // namespace
}  // namespace alloclab::lab
