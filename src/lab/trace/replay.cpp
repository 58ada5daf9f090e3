#include "trace/replay.hpp"

#include <malloc.h>
#include <sched.h>
#include <time.h>
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

// The calling thread's CPU time (user + sys), in seconds: what a replay's call and program
// times count, so that other work on a shared machine does not enter them (real runs are
// judged by CPU time too).
double thread_cpu_seconds() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double seconds_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A block the replay holds: its pointer (null: the trace created it but the replay skipped the
// call), size and alignment.
struct block_slot {
  void* pointer = nullptr;
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

/// One thread's live blocks by id: an open-addressing table (linear probing, deletion by
/// backward shift) of the blocks the trace allocated and has not freed yet, so its size follows
/// the live set, not the trace's length. Only the owning thread inserts; any thread removes
/// (cross-thread frees). With `shared`, every access holds a spin lock (uncontended but for
/// cross-thread frees); a one-thread trace takes none. The table comes from mmap, not from the
/// malloc under test.
class block_slots {
 public:
  explicit block_slots(bool shared) : shared_(shared) { resize(initial_capacity); }
  ~block_slots() { unmap(entries_, capacity_); }
  block_slots(const block_slots&) = delete;
  block_slots& operator=(const block_slots&) = delete;

  /// The owner adds block `id` (ids grow by one per creating call, skipped calls included).
  void insert(std::uint64_t id, const block_slot& slot) {
    if (slot.size >= (std::uint64_t{1} << 56)) throw trace_error("a block above 2^56 bytes");
    {
      const guard g(*this);
      if (4 * (count_ + 1) > 3 * capacity_) resize(2 * capacity_);
      std::size_t i = home(id);
      while (entries_[i].key != 0) i = next(i);
      entries_[i] = entry{id + 1, slot.pointer, pack(slot)};
      ++count_;
      peak_count_ = std::max(peak_count_, count_);
    }
    created_.store(id + 1, std::memory_order_release);
  }
  /// Removes block `id`; false when it is not live (not created yet, or freed already).
  bool remove(std::uint64_t id, block_slot& out) {
    const guard g(*this);
    std::size_t i = find_index(id);
    if (i == npos) return false;
    out = unpack(entries_[i]);
    erase_at(i);
    if (capacity_ > initial_capacity && 8 * count_ < capacity_) resize(capacity_ / 2);
    return true;
  }
  /// Program work: touches a live block near position `seed` (the first of the next 64 entries
  /// with a pointer; the table is 1/8 full or has at most 16 entries): reads a byte per 64-byte
  /// line of its first `cap` bytes and writes its first byte. False when it found none.
  bool touch_any(std::uint64_t seed, std::uint64_t cap, std::uint64_t& touched,
                 std::uint64_t& sink) {
    const guard g(*this);
    for (std::size_t n = 0, i = seed & (capacity_ - 1); n < touch_probes; ++n, i = next(i)) {
      if (entries_[i].key == 0 || entries_[i].pointer == nullptr) continue;
      const std::uint64_t bytes = std::min(unpack(entries_[i]).size, cap);
      auto* p = static_cast<volatile unsigned char*>(entries_[i].pointer);
      for (std::uint64_t b = 0; b < bytes; b += 64) sink += p[b];
      if (bytes != 0) p[0] = static_cast<unsigned char>(sink);
      touched += bytes;
      return true;
    }
    return false;
  }
  /// A copy of live block `id`'s slot; false when it is not live.
  bool find(std::uint64_t id, block_slot& out) const {
    const guard g(*this);
    const std::size_t i = find_index(id);
    if (i == npos) return false;
    out = unpack(entries_[i]);
    return true;
  }
  /// Ids below this were created by the owner (published after the insert).
  std::uint64_t created() const noexcept { return created_.load(std::memory_order_acquire); }
  /// Frees every block still allocated (the trace never freed it); returns how many.
  std::uint64_t release_all(const block_source& source) {
    std::uint64_t released = 0;
    for (std::size_t i = 0; i < capacity_; ++i) {
      if (entries_[i].key == 0 || entries_[i].pointer == nullptr) continue;
      const block_slot slot = unpack(entries_[i]);
      source.deallocate(slot.pointer, slot);
      entries_[i].pointer = nullptr;
      ++released;
    }
    return released;
  }
  std::uint64_t peak_bytes() const noexcept { return peak_capacity_ * sizeof(entry); }
  std::uint64_t peak_count() const noexcept { return peak_count_; }

 private:
  static constexpr std::size_t initial_capacity = 16;
  static constexpr std::size_t touch_probes = 64;
  static constexpr std::size_t npos = ~std::size_t{0};
  struct entry {
    std::uint64_t key;  ///< id + 1; 0: empty
    void* pointer;
    std::uint64_t size_alignment;  ///< size (56 bits), log2 alignment + 1 (8 bits, 0: none)
  };
  class guard {
   public:
    explicit guard(const block_slots& t) : t_(t) {
      if (!t_.shared_) return;
      while (t_.lock_.exchange(true, std::memory_order_acquire)) sched_yield();
    }
    ~guard() {
      if (t_.shared_) t_.lock_.store(false, std::memory_order_release);
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

   private:
    const block_slots& t_;
  };

  static std::uint64_t pack(const block_slot& s) noexcept {
    const std::uint64_t log2 =
        s.alignment == 0 ? 0 : static_cast<std::uint64_t>(__builtin_ctz(s.alignment)) + 1;
    return s.size | (log2 << 56);
  }
  static block_slot unpack(const entry& e) noexcept {
    block_slot s;
    s.pointer = e.pointer;
    s.size = e.size_alignment & ((std::uint64_t{1} << 56) - 1);
    const std::uint64_t log2 = e.size_alignment >> 56;
    s.alignment = log2 == 0 ? 0 : std::uint32_t{1} << (log2 - 1);
    return s;
  }
  std::size_t home(std::uint64_t id) const noexcept {
    return static_cast<std::size_t>(((id + 1) * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
  }
  std::size_t next(std::size_t i) const noexcept { return (i + 1) & (capacity_ - 1); }
  std::size_t find_index(std::uint64_t id) const noexcept {
    for (std::size_t i = home(id);; i = next(i)) {
      if (entries_[i].key == id + 1) return i;
      if (entries_[i].key == 0) return npos;
    }
  }
  // Backward shift: moves later entries of the probe run into the hole.
  void erase_at(std::size_t hole) noexcept {
    for (std::size_t j = next(hole); entries_[j].key != 0; j = next(j)) {
      const std::size_t h = home(entries_[j].key - 1);
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      entries_[hole] = entries_[j];
      hole = j;
    }
    entries_[hole] = entry{0, nullptr, 0};
    --count_;
  }
  void resize(std::size_t capacity) {
    entry* old = entries_;
    const std::size_t old_capacity = capacity_;
    entries_ = map(capacity);
    capacity_ = capacity;
    bits_ = static_cast<unsigned>(__builtin_ctzll(capacity));
    peak_capacity_ = std::max(peak_capacity_, capacity);
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key == 0) continue;
      std::size_t j = home(old[i].key - 1);
      while (entries_[j].key != 0) j = next(j);
      entries_[j] = old[i];
    }
    unmap(old, old_capacity);
  }
  static entry* map(std::size_t count) {
    void* p = ::mmap(nullptr, count * sizeof(entry), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<entry*>(p);  // zero pages are empty entries
  }
  static void unmap(entry* p, std::size_t count) noexcept {
    if (p != nullptr) ::munmap(p, count * sizeof(entry));
  }

  const bool shared_;
  mutable std::atomic<bool> lock_{false};
  entry* entries_ = nullptr;
  std::size_t capacity_ = 0;
  unsigned bits_ = 0;
  std::size_t count_ = 0;
  std::size_t peak_count_ = 0;
  std::size_t peak_capacity_ = 0;
  std::atomic<std::uint64_t> created_{0};
};

// What the program work did on one thread (sink: what it read, kept so the reads stay).
struct replay_result_counts {
  std::uint64_t touches = 0;
  std::uint64_t touched_bytes = 0;
  std::uint64_t sink = 0;
};

volatile std::uint64_t work_sink = 0;

// The trace's recorded microseconds per event, from its footer (0 when it has none).
double recorded_us_per_event(const trace_file& trace) {
  const auto& f = trace.footer();
  if (!f || !trace.header().timestamps || f->events == 0) return 0;
  return static_cast<double>(f->end_us) / static_cast<double>(f->events);
}

class replayer {
 public:
  replayer(const trace_file& trace, const replay_options& options)
      : trace_(trace),
        options_(options),
        source_(options.resource),
        mean_us_per_call_(options.mean_us_per_call > 0 ? options.mean_us_per_call
                                                       : recorded_us_per_event(trace)) {
    const auto& ids = trace.threads();
    const std::size_t count = ids.empty() ? 0 : ids.back() + 1;
    blocks_.resize(count);
    for (auto& b : blocks_) b = std::make_unique<block_slots>(ids.size() > 1);
    done_ = std::make_unique<std::atomic<bool>[]>(count);
    for (std::size_t i = 0; i < count; ++i) done_[i] = false;
  }

  replay_result run() {
    replay_result result;
    const auto& ids = trace_.threads();
    result.threads.resize(ids.size());
    std::vector<std::array<std::uint64_t, event_kind_count>> kinds(ids.size());
    std::vector<std::uint64_t> skipped(ids.size(), 0);
    std::vector<replay_result_counts> counts(ids.size());
    std::vector<std::thread> workers;
    const auto start = clock_type::now();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      workers.emplace_back([&, i] {
        try {
          replay_thread(ids[i], result.threads[i], kinds[i], skipped[i], counts[i]);
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
      result.program_seconds += result.threads[i].program_seconds;
      result.touches += counts[i].touches;
      result.touched_bytes += counts[i].touched_bytes;
      work_sink = work_sink + counts[i].sink;
      result.skipped += skipped[i];
    }
    result.peak_live_bytes = peak_.load();
    result.final_live_bytes = static_cast<std::uint64_t>(live_.load());
    result.live_curve = std::move(curve_);
    for (auto& b : blocks_) {
      result.bookkeeping_bytes += b->peak_bytes();
      result.peak_slots += b->peak_count();
      result.released_at_end += b->release_all(source_);
    }
    return result;
  }

 private:
  // Program work's pace: touches per call from the latest window's recorded time per call.
  struct work_pace {
    double rate = 0;    ///< touches per call
    double credit = 0;  ///< touches owed
    bool started = false;
    std::uint64_t window_start_us = 0;
    std::uint64_t window_calls = 0;
    std::uint64_t random = 0x9E3779B97F4A7C15ull;
  };

  void end_window(work_pace& pace, const event& e) const {
    if (pace.started && pace.window_calls != 0 && mean_us_per_call_ > 0) {
      const double us_per_call = static_cast<double>(e.time_us - pace.window_start_us) /
                                 static_cast<double>(pace.window_calls);
      pace.rate = std::min(options_.touches_per_call * us_per_call / mean_us_per_call_,
                           max_pace * options_.touches_per_call);
    }
    pace.started = true;
    pace.window_start_us = e.time_us;
    pace.window_calls = 0;
  }

  void work(std::uint32_t thread, work_pace& pace, replay_result_counts& counts) {
    ++pace.window_calls;
    pace.credit += pace.rate;
    for (; pace.credit >= 1; pace.credit -= 1) {
      pace.random ^= pace.random << 13;
      pace.random ^= pace.random >> 7;
      pace.random ^= pace.random << 17;
      if (blocks_[thread]->touch_any(pace.random, options_.touch_cap, counts.touched_bytes,
                                     counts.sink))
        ++counts.touches;
    }
  }

  void replay_thread(std::uint32_t thread, replay_thread_result& r,
                     std::array<std::uint64_t, event_kind_count>& kinds, std::uint64_t& skipped,
                     replay_result_counts& counts) {
    r.thread = thread;
    work_pace pace;
    pace.rate = options_.touches_per_call;
    trace_.for_each_chunk_of(thread, [&](const std::vector<event>& events) {
      double waited = 0;
      const double begin = thread_cpu_seconds();
      for (const event& e : events) {
        if (e.kind >= event_kind::thread_start) {
          if (options_.program_work && (e.kind == event_kind::timestamp || !pace.started))
            end_window(pace, e);
          continue;
        }
        if (options_.program_work && !pace.started) end_window(pace, e);
        const bool done = execute(e, waited);
        if (options_.program_work) work(thread, pace, counts);
        if (!done) {
          ++skipped;
          // The trace's block exists without a pointer: its free is skipped too.
          if (creates_block(e.kind)) blocks_[e.thread]->insert(block_index(e.block), {});
          continue;
        }
        ++kinds[static_cast<std::size_t>(e.kind)];
        ++r.calls;
      }
      const double span = thread_cpu_seconds() - begin - waited;
      (options_.program_work ? r.program_seconds : r.call_seconds) += span;
      r.wait_seconds += waited;
    });
  }

  // Whether block `b`'s owner has created it (waiting for another thread); false when the
  // owner finished without creating it (a truncated trace).
  bool created(block_key b, std::uint32_t self, double& waited) {
    const std::uint32_t owner = block_thread(b);
    if (owner >= blocks_.size()) throw trace_error("a free names a thread that never ran");
    const std::uint64_t id = block_index(b);
    if (owner == self || blocks_[owner]->created() > id) return true;
    const double begin = thread_cpu_seconds();
    bool made = false;
    for (;;) {
      const bool owner_done = done_[owner].load(std::memory_order_acquire);
      made = blocks_[owner]->created() > id;
      if (made || owner_done) break;
      sched_yield();
    }
    waited += thread_cpu_seconds() - begin;
    return made;
  }

  // Takes block `b` out of its owner's table; false when it cannot be freed here (never
  // created, or created by a skipped call). Throws when the trace frees it twice.
  bool take(block_key b, std::uint32_t self, double& waited, block_slot& out) {
    if (!created(b, self, waited)) return false;
    if (!blocks_[block_thread(b)]->remove(block_index(b), out))
      throw trace_error("the trace frees a block twice");
    if (out.pointer == nullptr) return false;
    note_live(-static_cast<std::int64_t>(out.size));
    return true;
  }

  // A copy of live block `b`'s slot; false when it is not live here.
  bool look_up(block_key b, std::uint32_t self, double& waited, block_slot& out) {
    return created(b, self, waited) && blocks_[block_thread(b)]->find(block_index(b), out) &&
           out.pointer != nullptr;
  }

  void give(const event& e, void* p, std::uint64_t written_from) {
    if (p == nullptr) throw std::bad_alloc();
    if (options_.write_blocks && e.value > written_from)
      std::memset(static_cast<char*>(p) + written_from, 0xA5, e.value - written_from);
    block_slot slot;
    slot.pointer = p;
    slot.size = e.value;
    slot.alignment = e.kind == event_kind::realloc ? 0 : e.alignment;
    blocks_[e.thread]->insert(block_index(e.block), slot);
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
        block_slot old;
        if (e.old_block != no_block && !take(e.old_block, e.thread, waited, old)) return false;
        give(e, std::realloc(old.pointer, e.value), old.size);
        return true;
      }
      case event_kind::free: {
        block_slot slot;
        if (e.unknown_pointer || !take(e.block, e.thread, waited, slot)) return false;
        std::free(slot.pointer);
        return true;
      }
      case event_kind::usable_size: {
        block_slot slot;
        if (e.unknown_pointer || e.block == no_block || !look_up(e.block, e.thread, waited, slot))
          return false;
        volatile std::size_t usable = ::malloc_usable_size(slot.pointer);
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
        block_slot old;
        if (e.old_block != no_block && !take(e.old_block, e.thread, waited, old)) return false;
        give(e, source_.reallocate(old.pointer, old, e.value), old.size);
        return true;
      }
      case event_kind::free: {
        block_slot slot;
        if (e.unknown_pointer || !take(e.block, e.thread, waited, slot)) return false;
        source_.deallocate(slot.pointer, slot);
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

  // A window's work is at most this many times the base rate.
  static constexpr double max_pace = 16;

  const trace_file& trace_;
  replay_options options_;
  block_source source_;
  double mean_us_per_call_;
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
