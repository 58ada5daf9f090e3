// tests/embedded/portable_resources_test.cpp: every portable resource, built
// without exceptions and RTTI, on the host, under qemu-user (armhf) and on a
// Cortex-M3 under qemu-system-arm. Exhaustion must reach alloclab's failure
// hook and leave the resource usable. Exit status: the number of failures.
#include <alloclab/allocator.hpp>
#include <alloclab/allocator_resource.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/pool_resource.hpp>
#include <alloclab/segregator_resource.hpp>
#include <alloclab/tracking_resource.hpp>
#include <alloclab/unique_ptr.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <memory_resource>
#include <vector>

#include "mini_test.hpp"

namespace {

using mini_test::reaches_failure_handler;

alignas(64) std::byte arena_buffer[2048];
alignas(64) std::byte pool_buffer[1024];
alignas(64) std::byte multipool_buffer[16384];

bool aligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

// Fills [p, p + bytes) with `tag`; a later overlap shows as a changed byte.
void stamp(void* p, std::size_t bytes, unsigned char tag) {
  std::memset(p, tag, bytes);
}
bool stamped(const void* p, std::size_t bytes, unsigned char tag) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i)
    if (b[i] != tag) return false;
  return true;
}

void arena_fills_its_buffer_then_reaches_the_hook() {
  alloclab::arena_options options;
  options.policy = alloclab::overflow_policy::throw_bad_alloc;
  alloclab::arena_resource arena{arena_buffer, sizeof arena_buffer,
                                 std::pmr::null_memory_resource(), options};
  void* blocks[256];
  std::size_t count = 0;
  while (arena.remaining() >= 24 + 16 && count < 256) {
    blocks[count] = arena.allocate(24, 8 << (count % 2));
    CHECK(aligned(blocks[count], 8 << (count % 2)));
    stamp(blocks[count], 24, static_cast<unsigned char>(count));
    ++count;
  }
  CHECK(count > 60);
  for (std::size_t i = 0; i < count; ++i)
    CHECK(stamped(blocks[i], 24, static_cast<unsigned char>(i)));
  const std::size_t before = arena.used();
  CHECK(reaches_failure_handler([&] { (void)arena.allocate(sizeof arena_buffer, 8); }));
  CHECK(arena.used() == before);
  CHECK(reaches_failure_handler([&] { (void)arena.allocate(16, 3); }));  // not a power of two
  arena.release();
  CHECK(arena.used() == 0);
  CHECK(arena.allocate(64, 64) == arena_buffer);
}

void arena_grows_from_its_upstream_and_rewinds() {
  alloclab::arena_resource arena{arena_buffer, 256};
  const alloclab::arena_mark start = arena.mark();
  for (int i = 0; i < 100; ++i) stamp(arena.allocate(48, 16), 48, 7);
  CHECK(arena.upstream_allocations() > 0);
  arena.rewind(start);
  CHECK(arena.used() == 0);
}

void pool_hands_out_every_block_once() {
  alloclab::pool_resource pool{32, alloclab::fixed_buffer{pool_buffer}};
  std::vector<void*> blocks;
  blocks.reserve(64);
  for (std::size_t i = 0; i < pool.capacity(); ++i) {
    blocks.push_back(pool.allocate(32, 8));
    stamp(blocks.back(), 32, static_cast<unsigned char>(i));
  }
  CHECK(pool.capacity() == sizeof pool_buffer / 32);
  for (std::size_t i = 0; i < blocks.size(); ++i)
    CHECK(stamped(blocks[i], 32, static_cast<unsigned char>(i)));
  CHECK(reaches_failure_handler([&] { (void)pool.allocate(32, 8); }));
  CHECK(reaches_failure_handler([&] { (void)pool.allocate(64, 8); }));  // oversize: no upstream
  void* freed = blocks.back();
  pool.deallocate(freed, 32, 8);
  CHECK(pool.allocate(32, 8) == freed);
  for (void* p : blocks) pool.deallocate(p, 32, 8);
}

void pool_takes_chunks_from_its_upstream() {
  alloclab::pool_resource pool{24};
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate(24, 8));
  CHECK(pool.chunks() >= 2);
  for (void* p : blocks) pool.deallocate(p, 24, 8);
  pool.release();
  CHECK(pool.chunks() == 0);
}

void multipool_serves_each_class_aligned() {
  alloclab::multipool_options options;
  options.first_chunk_bytes = 256;
  alloclab::multipool_resource pool{alloclab::fixed_buffer{multipool_buffer}, options};
  void* blocks[32];
  for (std::size_t i = 0; i < 32; ++i) {
    const std::size_t bytes = 8 + i * 12;
    blocks[i] = pool.allocate(bytes, 8);
    CHECK(aligned(blocks[i], 8));
    stamp(blocks[i], bytes, static_cast<unsigned char>(i));
  }
  for (std::size_t i = 0; i < 32; ++i)
    CHECK(stamped(blocks[i], 8 + i * 12, static_cast<unsigned char>(i)));
  CHECK(reaches_failure_handler([&] {
    for (;;) (void)pool.allocate(1024, 8);
  }));
  CHECK(reaches_failure_handler([&] { (void)pool.allocate(8192, 8); }));  // oversize
  for (std::size_t i = 0; i < 32; ++i) pool.deallocate(blocks[i], 8 + i * 12, 8);
  CHECK(pool.allocate(8, 8) != nullptr);
}

void allocator_runs_containers_on_any_resource() {
  alloclab::arena_resource arena{arena_buffer, sizeof arena_buffer};
  std::vector<int, alloclab::allocator<int, alloclab::arena_resource>> values{
      alloclab::allocator<int, alloclab::arena_resource>{&arena}};
  for (int i = 0; i < 200; ++i) values.push_back(i * i);
  CHECK(values[199] == 199 * 199);
  alloclab::pool_resource nodes{sizeof(int) + 2 * sizeof(void*)};
  std::list<int, alloclab::allocator<int, alloclab::pool_resource>> list{
      alloclab::allocator<int, alloclab::pool_resource>{&nodes}};
  for (int i = 0; i < 50; ++i) list.push_back(i);
  CHECK(list.size() == 50 && list.back() == 49);
  alloclab::allocator<std::uint64_t, alloclab::arena_resource> wide{&arena};
  CHECK(reaches_failure_handler([&] { (void)wide.allocate(SIZE_MAX / 4); }));
}

void limit_refuses_over_budget_and_on_injection() {
  alloclab::limit_resource limit{std::pmr::new_delete_resource(), {100, 0, true}};
  void* p = limit.allocate(64, 8);
  CHECK(reaches_failure_handler([&] { (void)limit.allocate(64, 8); }));
  CHECK(limit.bytes_in_use() == 64);
  limit.deallocate(p, 64, 8);
  alloclab::limit_resource injected{std::pmr::new_delete_resource(), {SIZE_MAX, 2, false}};
  void* first = injected.allocate(8, 8);
  CHECK(reaches_failure_handler([&] { (void)injected.allocate(8, 8); }));
  void* third = injected.allocate(8, 8);
  injected.deallocate(first, 8, 8);
  injected.deallocate(third, 8, 8);
}

void tracking_counts_and_scopes() {
  alloclab::tracking_resource tracker{std::pmr::new_delete_resource()};
  void* a = tracker.allocate(100, 8);
  void* b = tracker.allocate(50, 8);
  tracker.deallocate(a, 100, 8);
  CHECK(tracker.bytes().current == 50 && tracker.bytes().peak == 150);
  CHECK(tracker.blocks().total == 2);
  tracker.deallocate(b, 50, 8);
  CHECK(reaches_failure_handler([&] { (void)tracker.pop_scope(); }));  // none open
}

void segregator_unique_ptr_and_allocator_resource() {
  alloclab::pool_resource small{64};
  alloclab::arena_resource large{arena_buffer, sizeof arena_buffer};
  alloclab::segregator_resource<alloclab::pool_resource, alloclab::arena_resource> both{64, &small,
                                                                                        &large};
  void* s = both.allocate(40, 8);
  void* l = both.allocate(400, 8);
  CHECK(large.used() >= 400 && small.capacity() > 0);
  both.deallocate(s, 40, 8);
  both.deallocate(l, 400, 8);
  {
    auto number = alloclab::allocate_unique<long>(&small, 42L);
    auto numbers = alloclab::allocate_unique<int[]>(&small, 4);
    CHECK(*number == 42 && numbers[3] == 0);
  }
  alloclab::allocator_resource<std::allocator<char>> one;
  alloclab::allocator_resource<std::allocator<char>> other;
  CHECK(one.is_equal(other) && !one.is_equal(small) && !small.is_equal(one));
  void* p = one.allocate(100, 64);
  CHECK(aligned(p, 64));
  other.deallocate(p, 100, 64);
}

}  // namespace

int main() {
  arena_fills_its_buffer_then_reaches_the_hook();
  arena_grows_from_its_upstream_and_rewinds();
  pool_hands_out_every_block_once();
  pool_takes_chunks_from_its_upstream();
  multipool_serves_each_class_aligned();
  allocator_runs_containers_on_any_resource();
  limit_refuses_over_budget_and_on_injection();
  tracking_counts_and_scopes();
  segregator_unique_ptr_and_allocator_resource();
  return mini_test::finish("portable_resources_test");
}
