#include "frames/replay/replay_resources.hpp"

#include <sys/mman.h>

#include <new>

#include <fmt/format.h>

#include <alloclab/arena_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>

namespace alloclab::lab {
namespace {

// A resource object held with no other state.
template <class Resource>
class owned_resource final : public replay_resource {
 public:
  template <class... Args>
  explicit owned_resource(Args&&... args) : resource_(std::forward<Args>(args)...) {}
  std::pmr::memory_resource* resource() override { return &resource_; }

 private:
  Resource resource_;
};

// Anonymous pages for the arena: first touched when a block is written, as malloc's would be.
class mapped_buffer {
 public:
  explicit mapped_buffer(std::size_t bytes) : bytes_(bytes) {
    data_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data_ == MAP_FAILED) throw std::bad_alloc();
  }
  ~mapped_buffer() { ::munmap(data_, bytes_); }
  mapped_buffer(const mapped_buffer&) = delete;
  mapped_buffer& operator=(const mapped_buffer&) = delete;
  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The arena never grows: its upstream is null_memory_resource() and overflow throws.
class arena_holder final : public replay_resource {
 public:
  explicit arena_holder(std::size_t bytes)
      : buffer_(bytes),
        arena_(buffer_.data(), buffer_.size(), std::pmr::null_memory_resource(), fixed_options()) {}
  std::pmr::memory_resource* resource() override { return &arena_; }

 private:
  static arena_options fixed_options() {
    arena_options o;
    o.policy = overflow_policy::throw_bad_alloc;
    return o;
  }
  mapped_buffer buffer_;
  arena_resource arena_;
};

template <class Resource>
std::unique_ptr<replay_resource> make_owned(const replay_trace_facts&) {
  return std::make_unique<owned_resource<Resource>>(std::pmr::new_delete_resource());
}

std::unique_ptr<replay_resource> make_multipool(const replay_trace_facts&) {
  multipool_options o;
  o.max_block_size = std::size_t{1} << 20;  // every class; larger requests go to malloc
  return std::make_unique<owned_resource<multipool_resource>>(std::pmr::new_delete_resource(), o);
}

std::unique_ptr<replay_resource> make_arena(const replay_trace_facts& trace) {
  return std::make_unique<arena_holder>(replay_arena_bytes(trace));
}

}  // namespace

const std::vector<replay_resource_entry>& replay_resources() {
  static const std::vector<replay_resource_entry> table = {
      {"pmr_unsync_pool", "std::pmr::unsynchronized_pool_resource over new_delete_resource", false,
       make_owned<std::pmr::unsynchronized_pool_resource>},
      {"pmr_sync_pool", "std::pmr::synchronized_pool_resource over new_delete_resource", true,
       make_owned<std::pmr::synchronized_pool_resource>},
      {"alloclab_multipool",
       "alloclab::multipool_resource, classes up to 1 MiB, larger requests to new_delete", false,
       make_multipool},
      {"alloclab_concurrent_multipool",
       "alloclab::concurrent_multipool_resource over new_delete_resource", true,
       make_owned<concurrent_multipool_resource>},
      {"arena",
       "alloclab::arena_resource on a buffer of the monotonic footprint + 25 %, null upstream "
       "(frees reclaim nothing)",
       false, make_arena},
  };
  return table;
}

const replay_resource_entry* find_replay_resource(const std::string& name) {
  for (const auto& e : replay_resources())
    if (name == e.name) return &e;
  return nullptr;
}

std::uint64_t replay_arena_bytes(const replay_trace_facts& trace) {
  const std::uint64_t wanted = trace.monotonic_footprint + 64 * trace.aligned_allocations;
  const std::uint64_t with_margin = wanted + wanted / 4;
  const std::uint64_t page = 4096;
  return std::max<std::uint64_t>(page, (with_margin + page - 1) / page * page);
}

std::string replay_mismatch(const replay_resource_entry& entry, const replay_trace_facts& trace) {
  if (!entry.thread_safe && trace.threads > 1)
    return fmt::format(
        "{} is not thread-safe and the trace allocates from {} threads (one resource serves "
        "every thread); use pmr_sync_pool or alloclab_concurrent_multipool",
        entry.name, trace.threads);
  return {};
}

}  // namespace alloclab::lab
