// Allocation kernels for the heap study: fifo (seed 003), lifo and xthread.
//
// Each kernel is a template on an allocation *policy* (kernel_policies.hpp: malloc, new/delete,
// and the NOOP baseline).
//
// A kernel precomputes nothing itself: it takes the sizes (see size_distribution.hpp), writes
// into every block as kernel_config::touch says, times each batch with steady_clock, counts the
// workload's own live bytes, and returns a checksum computed from bytes read back from the
// blocks just before they are freed.
//
// Touch modes (kernel_config::touch):
//   once        one write per block, at its first byte: seed 003's method, and the default.
//               Mostly the allocator's own work; the block's other pages stay untouched.
//   every_page  one write every `touch_stride` bytes plus the last byte: every page of every
//               block is written, so the cost also includes first-touch faults of fresh memory
//               and, for blocks larger than the caches hold, a cache and TLB miss per page
//               (docs/heap-study.md, "Seed 003's method vs page-touching").
// Checksum: mix over blocks, in free order, of (size << 16) ^ (first byte << 8), and, with
// every_page only, ^ last byte. The bytes written depend only on the allocation's sequence
// number, so for one (touch mode, sizes, kernel) the checksum is the same under every real
// allocator; the two touch modes give different checksums.
//
// Baseline subtraction: run the same kernel with `noop_policy` (same loop, same ring, no
// allocation, no writes) and compute ns_per_pair(t_malloc, t_noop, pairs).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "frames/heap/kernel_policies.hpp"

namespace alloclab::heap {

// ---------------------------------------------------------------------------------------------
// Configuration and result

enum class kernel_kind { fifo, lifo, xthread };

std::string_view to_string(kernel_kind k) noexcept;
std::optional<kernel_kind> parse_kernel_kind(std::string_view name) noexcept;
const std::vector<kernel_kind>& all_kernel_kinds();

/// How a kernel writes into each block (see the top of this file).
enum class touch_mode {
  once,        ///< one write per block (seed 003's method)
  every_page,  ///< one write every touch_stride bytes plus the last byte
};

std::string_view to_string(touch_mode t) noexcept;
std::optional<touch_mode> parse_touch_mode(std::string_view name) noexcept;
const std::vector<touch_mode>& all_touch_modes();

struct kernel_config {
  std::size_t batch = 100;              ///< blocks allocated per iteration (seed 003: N = 100)
  std::size_t capacity = 1000;          ///< ring / stack / queue capacity (seed 003: 1000)
  touch_mode touch = touch_mode::once;  ///< seed 003's method unless asked otherwise
  std::size_t touch_stride = 4096;      ///< every_page: one write every `touch_stride` bytes
};

struct kernel_result {
  std::vector<double> batch_ns;       ///< one sample per iteration (raw, not baseline-subtracted)
  double total_ns = 0;                ///< whole run including the final drain (xthread: CPU time)
  double wall_ns = 0;                 ///< wall-clock time of the whole run
  double drain_ns = 0;                ///< freeing what is left at the end
  std::uint64_t pairs = 0;            ///< allocate+free pairs performed (= iterations * batch)
  std::uint64_t peak_live_bytes = 0;  ///< workload-side peak of requested bytes alive
  std::uint64_t total_bytes = 0;      ///< sum of all requested sizes
  std::uint64_t checksum = 0;         ///< from bytes read back (sizes only for NOOP)
};

/// Throws std::invalid_argument for an empty size vector, batch == 0, capacity < batch or
/// touch_stride == 0.
void validate_kernel_args(const std::vector<std::uint32_t>& sizes, const kernel_config& cfg);

/// Mean cost of one allocate+free pair with the baseline subtracted:
/// (t_alloc_ns - t_noop_ns) / pairs. Throws std::invalid_argument when pairs == 0.
/// May be negative when the allocator cost is below the noise; that is reported, not hidden.
double ns_per_pair(double t_alloc_ns, double t_noop_ns, std::uint64_t pairs);

// ---------------------------------------------------------------------------------------------
// Implementation helpers

namespace detail {

using clock = std::chrono::steady_clock;

inline double ns_between(clock::time_point a, clock::time_point b) noexcept {
  return std::chrono::duration<double, std::nano>(b - a).count();
}

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h;
}

/// Allocates and tags the block as `cfg.touch` says. `tag` identifies the allocation.
template <class Policy>
inline void* make_block(std::size_t n, std::uint64_t tag, const kernel_config& cfg) {
  void* p = Policy::allocate(n);
  if constexpr (Policy::touches) {
    auto* b = static_cast<unsigned char*>(p);
    const auto t = static_cast<unsigned char>(tag);
    if (cfg.touch == touch_mode::once) {
      b[0] = t;
    } else {
      for (std::size_t off = 0; off < n; off += cfg.touch_stride) b[off] = t;
      b[n - 1] = static_cast<unsigned char>(t ^ 0x5Au);
    }
  }
  return p;
}

/// Reads the written bytes back into the checksum and frees the block.
template <class Policy>
inline std::uint64_t drop_block(void* p, std::size_t n, touch_mode touch,
                                std::uint64_t checksum) noexcept {
  std::uint64_t v = n;
  if constexpr (Policy::touches) {
    const auto* b = static_cast<const unsigned char*>(p);
    v = (v << 16) ^ (static_cast<std::uint64_t>(b[0]) << 8);
    if (touch == touch_mode::every_page) v ^= b[n - 1];
  }
  Policy::deallocate(p, n);
  return mix(checksum, v);
}

struct slot {
  void* p;
  std::uint32_t n;
};

/// Shared driver for fifo and lifo: a ring of `capacity` slots; when a batch does not fit,
/// the oldest (fifo) or newest (lifo) blocks are freed first.
template <class Policy, bool Lifo>
kernel_result run_ring(const std::vector<std::uint32_t>& sizes, std::size_t iterations,
                       const kernel_config& cfg) {
  validate_kernel_args(sizes, cfg);
  kernel_result r;
  r.batch_ns.reserve(iterations);
  std::vector<slot> ring(cfg.capacity, slot{nullptr, 0});
  std::size_t head = 0;   // oldest element
  std::size_t count = 0;  // elements alive
  std::size_t si = 0;     // index into sizes (wraps)
  std::uint64_t tag = 0;
  std::uint64_t live = 0;
  std::uint64_t checksum = 0;
  const std::size_t cap = cfg.capacity;

  auto free_one = [&]() noexcept {
    std::size_t idx;
    if constexpr (Lifo) {
      idx = head + count - 1;
      if (idx >= cap) idx -= cap;
    } else {
      idx = head;
      head = (head + 1 == cap) ? 0 : head + 1;
    }
    --count;
    const slot s = ring[idx];
    live -= s.n;
    checksum = drop_block<Policy>(s.p, s.n, cfg.touch, checksum);
  };

  for (std::size_t it = 0; it < iterations; ++it) {
    const auto t0 = clock::now();
    if (count + cfg.batch > cap) {
      const std::size_t excess = count + cfg.batch - cap;
      for (std::size_t k = 0; k < excess; ++k) free_one();
    }
    for (std::size_t k = 0; k < cfg.batch; ++k) {
      const std::uint32_t n = sizes[si];
      if (++si == sizes.size()) si = 0;
      void* p = make_block<Policy>(n, tag++, cfg);
      std::size_t idx = head + count;
      if (idx >= cap) idx -= cap;
      ring[idx] = slot{p, n};
      ++count;
      live += n;
      r.total_bytes += n;
      if (live > r.peak_live_bytes) r.peak_live_bytes = live;
    }
    const auto t1 = clock::now();
    const double ns = ns_between(t0, t1);
    r.batch_ns.push_back(ns);
    r.total_ns += ns;
  }
  const auto d0 = clock::now();
  while (count > 0) free_one();
  const auto d1 = clock::now();
  r.drain_ns = ns_between(d0, d1);
  r.total_ns += r.drain_ns;
  r.wall_ns = r.total_ns;
  r.pairs = static_cast<std::uint64_t>(iterations) * cfg.batch;
  r.checksum = checksum;
  return r;
}

/// Bounded queue of whole batches between one producer and one consumer. Batch buffers are
/// preallocated (capacity / batch of them), so no allocation happens while timing; waiting
/// blocks on a condition variable instead of spinning, so it costs no CPU time.
class batch_queue {
 public:
  batch_queue(std::size_t batches, std::size_t batch)
      : storage_(batches * batch, slot{nullptr, 0}), batches_(batches), batch_(batch) {}
  /// Producer: waits for a free buffer and returns it (filled outside the lock).
  slot* acquire_empty() {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [this] { return count_ < batches_; });
    return &storage_[((head_ + count_) % batches_) * batch_];
  }
  /// Producer: hands the buffer returned by acquire_empty() to the consumer.
  void publish() {
    {
      std::lock_guard<std::mutex> lock(m_);
      ++count_;
    }
    not_empty_.notify_one();
  }
  /// Producer: no more batches.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    not_empty_.notify_one();
  }
  /// Consumer: the oldest published buffer, or nullptr once finished and drained.
  slot* acquire_full() {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [this] { return count_ > 0 || done_; });
    if (count_ == 0) return nullptr;
    return &storage_[head_ * batch_];
  }
  /// Consumer: the buffer from acquire_full() is empty again.
  void release() {
    {
      std::lock_guard<std::mutex> lock(m_);
      head_ = (head_ + 1) % batches_;
      --count_;
    }
    not_full_.notify_one();
  }

 private:
  std::vector<slot> storage_;
  std::size_t batches_;
  std::size_t batch_;
  std::mutex m_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  bool done_ = false;
};

/// CPU time consumed by the calling thread (user + system, so page faults count), in ns.
inline double thread_cpu_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Kernels. `iterations` batches are run; sizes are consumed in order and wrap around when
// `sizes` is shorter than iterations * batch.

/// Seed 003: each iteration allocates `batch` blocks into a FIFO ring of `capacity`, freeing
/// the oldest blocks first when the batch does not fit.
template <class Policy>
kernel_result run_fifo(const std::vector<std::uint32_t>& sizes, std::size_t iterations,
                       const kernel_config& cfg = {}) {
  return detail::run_ring<Policy, false>(sizes, iterations, cfg);
}

/// Stack-like frees: same ring, but when full the *newest* blocks are freed (in reverse
/// allocation order). The bottom `capacity - batch` blocks stay alive; the top churns.
template <class Policy>
kernel_result run_lifo(const std::vector<std::uint32_t>& sizes, std::size_t iterations,
                       const kernel_config& cfg = {}) {
  return detail::run_ring<Policy, true>(sizes, iterations, cfg);
}

/// Cross-thread frees: this thread allocates batches of `batch` blocks and hands each batch
/// through a bounded queue (capacity / batch batches in flight) to a second thread that frees
/// them. batch_ns times the allocation of each batch (not the wait for queue space).
/// total_ns is the *CPU time* of both threads (wall time on a shared machine would measure the
/// scheduler, not the allocator); wall_ns is recorded as well.
template <class Policy>
kernel_result run_xthread(const std::vector<std::uint32_t>& sizes, std::size_t iterations,
                          const kernel_config& cfg = {}) {
  validate_kernel_args(sizes, cfg);
  using detail::clock;
  kernel_result r;
  r.batch_ns.reserve(iterations);
  detail::batch_queue q(cfg.capacity / cfg.batch, cfg.batch);
  std::atomic<std::int64_t> live{0};
  std::uint64_t checksum = 0;
  double consumer_cpu = 0;
  const std::size_t batch = cfg.batch;

  const auto start = clock::now();
  std::thread consumer([&]() noexcept {
    const double c0 = detail::thread_cpu_ns();
    std::uint64_t cs = 0;
    while (detail::slot* b = q.acquire_full()) {
      std::int64_t freed = 0;
      for (std::size_t k = 0; k < batch; ++k) {
        freed += b[k].n;
        cs = detail::drop_block<Policy>(b[k].p, b[k].n, cfg.touch, cs);
      }
      live.fetch_sub(freed, std::memory_order_relaxed);
      q.release();
    }
    checksum = cs;
    consumer_cpu = detail::thread_cpu_ns() - c0;
  });

  const double p0 = detail::thread_cpu_ns();
  std::exception_ptr failure;
  clock::time_point produced = start;
  try {
    std::size_t si = 0;
    std::uint64_t tag = 0;
    for (std::size_t it = 0; it < iterations; ++it) {
      detail::slot* b = q.acquire_empty();
      const auto t0 = clock::now();
      std::int64_t added = 0;
      for (std::size_t k = 0; k < batch; ++k) {
        const std::uint32_t n = sizes[si];
        if (++si == sizes.size()) si = 0;
        b[k] = detail::slot{detail::make_block<Policy>(n, tag++, cfg), n};
        added += n;
        r.total_bytes += n;
      }
      const auto t1 = clock::now();
      const std::int64_t now_live = live.fetch_add(added, std::memory_order_relaxed) + added;
      if (static_cast<std::uint64_t>(now_live) > r.peak_live_bytes) {
        r.peak_live_bytes = static_cast<std::uint64_t>(now_live);
      }
      q.publish();
      r.batch_ns.push_back(detail::ns_between(t0, t1));
    }
    produced = clock::now();
  } catch (...) {
    failure = std::current_exception();
  }
  const double producer_cpu = detail::thread_cpu_ns() - p0;
  q.finish();  // the consumer frees every published batch, then stops
  consumer.join();
  const auto end = clock::now();
  if (failure) std::rethrow_exception(failure);  // (a partly filled batch is leaked)
  r.drain_ns = detail::ns_between(produced, end);
  r.wall_ns = detail::ns_between(start, end);
  r.total_ns = producer_cpu + consumer_cpu;
  r.pairs = static_cast<std::uint64_t>(iterations) * cfg.batch;
  r.checksum = checksum;
  return r;
}

/// Runtime dispatch over kernel_kind for a fixed policy.
template <class Policy>
kernel_result run_kernel(kernel_kind k, const std::vector<std::uint32_t>& sizes,
                         std::size_t iterations, const kernel_config& cfg = {}) {
  switch (k) {
    case kernel_kind::fifo:
      return run_fifo<Policy>(sizes, iterations, cfg);
    case kernel_kind::lifo:
      return run_lifo<Policy>(sizes, iterations, cfg);
    case kernel_kind::xthread:
      return run_xthread<Policy>(sizes, iterations, cfg);
  }
  return {};
}

}  // namespace alloclab::heap
