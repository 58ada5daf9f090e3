#include "trace/replay.hpp"

#include "trace/block_slots.hpp"

#include <malloc.h>
#include <sched.h>
#include <time.h>

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
                                                       : recorded_us_per_event(trace)),
        paced_(trace.header().timestamps && trace.threads().size() > 1 &&
               options.lead_us != replay_options::no_pacing) {
    const auto& ids = trace.threads();
    const std::size_t count = ids.empty() ? 0 : ids.back() + 1;
    blocks_.resize(count);
    for (auto& b : blocks_) b = std::make_unique<block_slots>(ids.size() > 1);
    done_ = std::make_unique<std::atomic<bool>[]>(count);
    at_us_ = std::make_unique<std::atomic<std::uint64_t>[]>(count);
    for (std::size_t i = 0; i < count; ++i) {
      done_[i] = false;
      at_us_[i] = not_pacing;  // an id without events holds nobody back
    }
    for (const std::uint32_t id : ids) at_us_[id] = 0;
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
    bool cut = false;            // past options_.end_us: the rest of the thread is not replayed
    std::uint64_t paced_to = 0;  // the recorded time this thread last waited for
    trace_.for_each_chunk_of(thread, [&](const std::vector<event>& events) {
      if (cut) return;
      double waited = 0;
      const double begin = thread_cpu_seconds();
      for (const event& e : events) {
        if (options_.end_us != 0 && e.time_us >= options_.end_us) {
          cut = true;
          at_us_[thread].store(not_pacing, std::memory_order_release);
          break;
        }
        if (paced_ && e.time_us > paced_to) {
          keep_pace(thread, e.time_us, waited);
          paced_to = e.time_us;
        }
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

  // Pacing: publishes that `self` reached recorded time `time_us`, then waits until no
  // unfinished thread is more than lead_us behind it.
  void keep_pace(std::uint32_t self, std::uint64_t time_us, double& waited) {
    at_us_[self].store(time_us, std::memory_order_release);
    if (time_us <= options_.lead_us) return;
    const std::uint64_t behind = time_us - options_.lead_us;
    const double begin = thread_cpu_seconds();
    for (std::size_t other = 0; other < blocks_.size(); ++other)
      while (other != self && at_us_[other].load(std::memory_order_acquire) < behind &&
             !done_[other].load(std::memory_order_acquire))
        sched_yield();
    waited += thread_cpu_seconds() - begin;
  }

  // Whether block `b`'s owner has created it (waiting for another thread); false when the
  // owner finished without creating it (a truncated trace). While it waits, `self` counts as
  // no further behind than the owner, so it never holds the owner back by pacing (recorded
  // clocks are coarse: the owner's allocation may read later than this free), and holds the
  // others back as the owner would.
  bool created(block_key b, std::uint32_t self, double& waited) {
    const std::uint32_t owner = block_thread(b);
    if (owner >= blocks_.size()) throw trace_error("a free names a thread that never ran");
    const std::uint64_t id = block_index(b);
    if (owner == self || blocks_[owner]->created() > id) return true;
    const double begin = thread_cpu_seconds();
    const std::uint64_t at = at_us_[self].load(std::memory_order_relaxed);
    bool made = false;
    for (;;) {
      const bool owner_done = done_[owner].load(std::memory_order_acquire);
      made = blocks_[owner]->created() > id;
      if (made || owner_done) break;
      if (paced_)
        at_us_[self].store(std::max(at, at_us_[owner].load(std::memory_order_acquire)),
                           std::memory_order_release);
      sched_yield();
    }
    at_us_[self].store(at, std::memory_order_release);
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
  // A thread's published time when it holds no other back (cut, waiting, or without events).
  static constexpr std::uint64_t not_pacing = ~std::uint64_t{0};

  const trace_file& trace_;
  replay_options options_;
  block_source source_;
  double mean_us_per_call_;
  std::vector<std::unique_ptr<block_slots>> blocks_;
  std::unique_ptr<std::atomic<bool>[]> done_;
  const bool paced_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> at_us_;  // pacing: each thread's recorded time
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
