// bench_support.hpp: what every alloclab benchmark file shares: escaping
// pointers, hiding a resource's dynamic type, cache-line aligned buffers, and
// the batch loop that turns an exception into a failed benchmark.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>

namespace alloclab_bench {

// Benchmarks that failed (an exhausted arena, a refused request). main() exits 1 if any did.
inline std::atomic<int> failed_benchmarks{0};

// The pointer escapes: the compiler must assume something reads it, so the allocation producing
// it cannot be removed. Register operand (const overload), so `p` is not spilled to the stack.
BENCHMARK_ALWAYS_INLINE inline void escape(void* const p) {
  benchmark::DoNotOptimize(p);
}

// The pointer escapes into an empty asm statement that reads it and clobbers no memory: the
// compiler may keep any other state in registers across it (escape() may not).
BENCHMARK_ALWAYS_INLINE inline void sink(void* const p) {
  asm volatile("" : : "r"(p));
}

// Returns `p` after hiding its value from the optimiser: the dynamic type behind it is unknown,
// so calls through it stay virtual (no devirtualisation of a local resource).
template <class T>
BENCHMARK_ALWAYS_INLINE inline T* opaque(T* p) {
  benchmark::DoNotOptimize(p);
  return p;
}

// Caller-owned, cache-line aligned storage for arenas.
class aligned_buffer {
 public:
  explicit aligned_buffer(std::size_t size)
      : data_(static_cast<std::byte*>(::operator new (size, std::align_val_t{64}))), size_(size) {}
  aligned_buffer(const aligned_buffer&) = delete;
  aligned_buffer& operator=(const aligned_buffer&) = delete;
  ~aligned_buffer() { ::operator delete (data_, std::align_val_t{64}); }
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  std::byte* data_;
  std::size_t size_;
};

// Runs `batch` (which performs `ops` operations) once per timed iteration. An exception (an
// exhausted arena or pool) marks the benchmark as failed instead of producing a number.
template <class Batch>
void run_batches(benchmark::State& state, std::size_t ops, Batch&& batch) {
  try {
    for (auto _ : state) batch();
  } catch (const std::exception& e) {
    ++failed_benchmarks;
    state.SkipWithError((std::string("allocation failed, buffer undersized? ") + e.what()).c_str());
    return;
  }
  const auto items = static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(ops);
  state.SetItemsProcessed(items);
  // items per CPU second, inverted: CPU seconds per item (console shows e.g. "1.02ns").
  state.counters["per_item"] = benchmark::Counter(
      static_cast<double>(items), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Registers the peer comparison (peer_bench.cpp).
void register_peer_benchmarks();

}  // namespace alloclab_bench
