#include "trace/replay.hpp"

#include <malloc.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace alloclab::trace {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void* freed_marker() noexcept {
  return reinterpret_cast<void*>(std::uintptr_t{1});
}

struct block_slot {
  std::atomic<void*> pointer{nullptr};  ///< null: not yet allocated; freed_marker(): freed
  std::uint64_t size = 0;
  std::uint32_t alignment = 0;  ///< resource replay: what the block was allocated with
};

/// Where the blocks come from: the process-wide malloc, or a memory_resource.
class block_source {
 public:
  explicit block_source(std::pmr::memory_resource* resource) : resource_(resource) {}
  bool is_malloc() const noexcept { return resource_ == nullptr; }
  /// A block of `bytes` aligned to `alignment` (0: malloc's default).
  void* allocate(std::uint64_t bytes, std::size_t alignment) const {
    return resource_->allocate(std::max<std::uint64_t>(bytes, 1), pmr_alignment(alignment));
  }
  void deallocate(void* p, const block_slot& slot) const {
    if (resource_ == nullptr) {
      std::free(p);
      return;
    }
    resource_->deallocate(p, std::max<std::uint64_t>(slot.size, 1), pmr_alignment(slot.alignment));
  }
  /// realloc through the resource: a new block, the smaller size copied, the old one returned.
  void* reallocate(void* old, const block_slot& old_slot, std::uint64_t bytes) const {
    void* p = allocate(bytes, 0);
    if (old != nullptr) {
      std::memcpy(p, old, std::min(old_slot.size, bytes));
      deallocate(old, old_slot);
    }
    return p;
  }

 private:
  static std::size_t pmr_alignment(std::size_t alignment) noexcept {
    return std::max<std::size_t>(alignment, alignof(std::max_align_t));
  }
  std::pmr::memory_resource* resource_;
};

/// One thread's blocks by id: 2^16 lazily mapped segments of 2^16 slots (ids below 2^32).
/// Only the owning thread creates segments; others read them to free cross-thread.
class block_slots {
 public:
  static constexpr std::size_t segment_bits = 16;
  static constexpr std::size_t segment_slots = std::size_t{1} << segment_bits;
  static constexpr std::size_t max_segments = std::size_t{1} << 16;

  block_slots() : segments_(map<std::atomic<block_slot*>>(max_segments)) {}
  ~block_slots() {
    for (std::size_t i = 0; i < max_segments; ++i)
      if (block_slot* s = segments_[i].load()) ::munmap(s, segment_slots * sizeof(block_slot));
    ::munmap(segments_, max_segments * sizeof(std::atomic<block_slot*>));
  }
  block_slots(const block_slots&) = delete;
  block_slots& operator=(const block_slots&) = delete;

  /// The owner's slot for `id`, created when needed.
  block_slot& own(std::uint64_t id) {
    check(id);
    created_ = std::max(created_, id + 1);
    std::atomic<block_slot*>& segment = segments_[id >> segment_bits];
    block_slot* s = segment.load(std::memory_order_relaxed);
    if (s == nullptr) {
      s = map<block_slot>(segment_slots);
      segment.store(s, std::memory_order_release);
    }
    return s[id & (segment_slots - 1)];
  }
  /// Frees every block still allocated (the trace never freed it); returns how many.
  std::uint64_t release_all(const block_source& source) {
    std::uint64_t released = 0;
    for (std::uint64_t id = 0; id < created_; ++id) {
      block_slot* slot = find(id);
      void* p = slot == nullptr ? nullptr : slot->pointer.exchange(freed_marker());
      if (p != nullptr && p != freed_marker()) {
        source.deallocate(p, *slot);
        ++released;
      }
    }
    return released;
  }
  std::uint64_t slot_bytes() const noexcept { return created_ * sizeof(block_slot); }
  /// Another thread's view: null while the segment does not exist yet.
  block_slot* find(std::uint64_t id) const {
    check(id);
    block_slot* s = segments_[id >> segment_bits].load(std::memory_order_acquire);
    return s == nullptr ? nullptr : &s[id & (segment_slots - 1)];
  }

 private:
  static void check(std::uint64_t id) {
    if (id >= segment_slots * max_segments)
      throw trace_error("a thread allocated more than 2^32 blocks (replay limit)");
  }
  template <class T>
  static T* map(std::size_t count) {
    void* p = ::mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);  // zero pages are null atomics / empty slots
  }
  std::atomic<block_slot*>* segments_;
  std::uint64_t created_ = 0;  ///< ids below this may have a block (owner only)
};

class replayer {
 public:
  replayer(const trace_file& trace, const replay_options& options)
      : trace_(trace), options_(options), source_(options.resource) {
    const auto& ids = trace.threads();
    const std::size_t count = ids.empty() ? 0 : ids.back() + 1;
    blocks_.resize(count);
    for (auto& b : blocks_) b = std::make_unique<block_slots>();
    done_ = std::make_unique<std::atomic<bool>[]>(count);
    for (std::size_t i = 0; i < count; ++i) done_[i] = false;
  }

  replay_result run() {
    replay_result result;
    const auto& ids = trace_.threads();
    result.threads.resize(ids.size());
    std::vector<std::array<std::uint64_t, event_kind_count>> kinds(ids.size());
    std::vector<std::uint64_t> skipped(ids.size(), 0);
    std::vector<std::thread> workers;
    const auto start = clock_type::now();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      workers.emplace_back([&, i] {
        try {
          replay_thread(ids[i], result.threads[i], kinds[i], skipped[i]);
        } catch (...) {
          std::lock_guard<std::mutex> g(mutex_);
          if (!error_) error_ = std::current_exception();
        }
        done_[ids[i]].store(true, std::memory_order_release);
      });
    }
    for (auto& w : workers) w.join();
    result.wall_seconds = seconds_between(start, clock_type::now());
    if (error_) std::rethrow_exception(error_);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (std::size_t k = 0; k < event_kind_count; ++k) result.calls_by_kind[k] += kinds[i][k];
      result.calls += result.threads[i].calls;
      result.call_seconds += result.threads[i].call_seconds;
      result.skipped += skipped[i];
    }
    result.peak_live_bytes = peak_.load();
    result.final_live_bytes = static_cast<std::uint64_t>(live_.load());
    result.live_curve = std::move(curve_);
    for (auto& b : blocks_) {
      result.bookkeeping_bytes += b->slot_bytes();
      result.released_at_end += b->release_all(source_);
    }
    return result;
  }

 private:
  void replay_thread(std::uint32_t thread, replay_thread_result& r,
                     std::array<std::uint64_t, event_kind_count>& kinds, std::uint64_t& skipped) {
    r.thread = thread;
    trace_.for_each_chunk_of(thread, [&](const std::vector<event>& events) {
      double waited = 0;
      const auto begin = clock_type::now();
      for (const event& e : events) {
        if (e.kind >= event_kind::thread_start) continue;
        if (!execute(e, waited)) {
          ++skipped;
          continue;
        }
        ++kinds[static_cast<std::size_t>(e.kind)];
        ++r.calls;
      }
      r.call_seconds += seconds_between(begin, clock_type::now()) - waited;
      r.wait_seconds += waited;
    });
  }

  // The slot of block `b` once it was allocated (waiting for another thread); null when the
  // allocating thread finished without allocating it (a truncated trace).
  block_slot* allocated(block_key b, std::uint32_t self, double& waited) {
    const std::uint32_t owner = block_thread(b);
    if (owner >= blocks_.size()) throw trace_error("a free names a thread that never ran");
    if (owner == self) return blocks_[owner]->find(block_index(b));
    block_slot* slot = blocks_[owner]->find(block_index(b));
    if (slot != nullptr && slot->pointer.load(std::memory_order_acquire) != nullptr) return slot;
    const auto begin = clock_type::now();
    for (;;) {
      const bool owner_done = done_[owner].load(std::memory_order_acquire);
      slot = blocks_[owner]->find(block_index(b));
      if (slot != nullptr && slot->pointer.load(std::memory_order_acquire) != nullptr) break;
      if (owner_done) {
        slot = nullptr;
        break;
      }
      sched_yield();
    }
    waited += seconds_between(begin, clock_type::now());
    return slot;
  }

  // Takes the pointer of a block being freed; null when it cannot be freed here.
  void* take(block_key b, std::uint32_t self, double& waited) {
    block_slot* slot = allocated(b, self, waited);
    if (slot == nullptr) return nullptr;
    void* p = slot->pointer.exchange(freed_marker(), std::memory_order_acq_rel);
    if (p == freed_marker()) throw trace_error("the trace frees a block twice");
    if (p == nullptr) return nullptr;
    note_live(-static_cast<std::int64_t>(slot->size));
    return p;
  }

  void give(const event& e, void* p, std::uint64_t written_from) {
    if (p == nullptr) throw std::bad_alloc();
    if (options_.write_blocks && e.value > written_from)
      std::memset(static_cast<char*>(p) + written_from, 0xA5, e.value - written_from);
    block_slot& slot = blocks_[e.thread]->own(block_index(e.block));
    slot.size = e.value;
    slot.alignment = e.kind == event_kind::realloc ? 0 : e.alignment;
    slot.pointer.store(p, std::memory_order_release);
    note_live(static_cast<std::int64_t>(e.value));
  }

  bool execute(const event& e, double& waited) {
    if (!source_.is_malloc()) return execute_on_resource(e, waited);
    const std::size_t alignment = std::max<std::size_t>(e.alignment, sizeof(void*));
    switch (e.kind) {
      case event_kind::malloc:
        give(e, std::malloc(e.value), 0);
        return true;
      case event_kind::calloc:
        give(e, std::calloc(1, e.value), 0);
        return true;
      case event_kind::memalign:
        give(e, ::memalign(alignment, e.value), 0);
        return true;
      case event_kind::posix_memalign: {
        void* p = nullptr;
        if (::posix_memalign(&p, alignment, e.value) != 0) p = nullptr;
        give(e, p, 0);
        return true;
      }
      case event_kind::aligned_alloc:
        give(e, std::aligned_alloc(alignment, e.value), 0);
        return true;
      case event_kind::valloc:
        give(e, ::valloc(e.value), 0);
        return true;
      case event_kind::pvalloc:
        give(e, ::pvalloc(e.value), 0);
        return true;
      case event_kind::realloc: {
        if (e.unknown_pointer) return false;
        std::uint64_t old_size = 0;
        void* old = nullptr;
        if (e.old_block != no_block) {
          block_slot* slot = allocated(e.old_block, e.thread, waited);
          if (slot == nullptr) return false;
          old_size = slot->size;
          old = take(e.old_block, e.thread, waited);
        }
        give(e, std::realloc(old, e.value), old_size);
        return true;
      }
      case event_kind::free: {
        if (e.unknown_pointer) return false;
        void* p = take(e.block, e.thread, waited);
        if (p == nullptr) return false;
        std::free(p);
        return true;
      }
      case event_kind::usable_size: {
        if (e.unknown_pointer || e.block == no_block) return false;
        block_slot* slot = allocated(e.block, e.thread, waited);
        void* p = slot == nullptr ? nullptr : slot->pointer.load(std::memory_order_acquire);
        if (p == nullptr || p == freed_marker()) return false;
        volatile std::size_t usable = ::malloc_usable_size(p);
        (void)usable;
        return true;
      }
      default:
        return false;  // failed allocations are not replayed
    }
  }

  // The same calls through the resource (see the header for what each kind becomes).
  bool execute_on_resource(const event& e, double& waited) {
    switch (e.kind) {
      case event_kind::malloc:
      case event_kind::memalign:
      case event_kind::posix_memalign:
      case event_kind::aligned_alloc:
        give(e, source_.allocate(e.value, e.alignment), 0);
        return true;
      case event_kind::valloc:
      case event_kind::pvalloc:
        give(e, source_.allocate(e.value, 4096), 0);
        return true;
      case event_kind::calloc: {
        void* p = source_.allocate(e.value, 0);
        if (!options_.write_blocks) std::memset(p, 0, e.value);
        give(e, p, 0);
        return true;
      }
      case event_kind::realloc: {
        if (e.unknown_pointer) return false;
        block_slot old_slot;
        void* old = nullptr;
        if (e.old_block != no_block) {
          block_slot* slot = allocated(e.old_block, e.thread, waited);
          if (slot == nullptr) return false;
          old_slot.size = slot->size;
          old_slot.alignment = slot->alignment;
          old = take(e.old_block, e.thread, waited);
        }
        give(e, source_.reallocate(old, old_slot, e.value), old_slot.size);
        return true;
      }
      case event_kind::free: {
        if (e.unknown_pointer) return false;
        block_slot* slot = allocated(e.block, e.thread, waited);
        if (slot == nullptr) return false;
        block_slot freed;
        freed.size = slot->size;
        freed.alignment = slot->alignment;
        void* p = take(e.block, e.thread, waited);
        if (p == nullptr) return false;
        source_.deallocate(p, freed);
        return true;
      }
      default:
        return false;  // malloc_usable_size has no pmr counterpart; failures are not replayed
    }
  }

  void note_live(std::int64_t change) {
    if (!options_.track_live_bytes) return;
    const std::int64_t now = live_.fetch_add(change, std::memory_order_relaxed) + change;
    std::uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > 0 && static_cast<std::uint64_t>(now) > peak &&
           !peak_.compare_exchange_weak(peak, static_cast<std::uint64_t>(now))) {
    }
    if (options_.curve_stride != 0) {
      std::lock_guard<std::mutex> g(mutex_);
      if (++curve_counter_ % options_.curve_stride == 0)
        curve_.push_back(static_cast<std::uint64_t>(now));
    }
  }

  const trace_file& trace_;
  replay_options options_;
  block_source source_;
  std::vector<std::unique_ptr<block_slots>> blocks_;
  std::unique_ptr<std::atomic<bool>[]> done_;
  std::atomic<std::int64_t> live_{0};
  std::atomic<std::uint64_t> peak_{0};
  std::mutex mutex_;
  std::exception_ptr error_;
  std::uint64_t curve_counter_ = 0;
  std::vector<std::uint64_t> curve_;
};

}  // namespace

replay_result replay_trace(const trace_file& trace, const replay_options& options) {
  return replayer(trace, options).run();
}

}  // namespace alloclab::trace
