// A fixed, cache-bound reference kernel timed before and after each timed repetition of a cell,
// so that a repetition carries a reading of how fast this machine's caches were around it.
//
// On some shared VMs a cell's repetitions run at two speeds about 1.6x apart; the slow one comes
// from outside the guest, touches cache access and not the ALU (docs/budget.md, "Where the
// spread comes from"). One reading of ~4 us is too noisy to say which speed a repetition ran
// at; the median of many short chases is what this class gives. The kernel is a dependent walk
// over the cache lines of a 64 KiB buffer in a fixed random order, so each load waits for the
// last and the time is the cache's latency, not the ALU's throughput.
//
// A second reading copies 2 MiB between two buffers: on an Intel host the 64 KiB walk stayed
// flat while the slow level came and went, and a copy of a few MiB (and a walk over 4 MiB) slowed
// with it (docs/budget.md), so the slow level lives in the last-level cache or memory there.
//
// The readings are taken outside the timed loop (before its warm-up and after its last sample):
// they never enter a cell's figures. They cost budget time: 48 chases and two copies, about
// 0.8 ms a repetition in a default run, some 4 % of a 20 ms repetition.
//
// Example:
//   alloclab::lab::contention_reference reference;
//   const double before = reference.reading();  // ns per chase, the median of `chases`
//   // ... warm-up and the timed repetition ...
//   const double after = reference.reading();
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace alloclab::lab {

class contention_reference {
 public:
  static constexpr std::size_t buffer_bytes = 64 * 1024;
  static constexpr std::size_t line_bytes = 64;
  static constexpr std::size_t chases = 24;  // per reading: its median is the reading
  static constexpr std::size_t copy_bytes = 2 * 1024 * 1024;

  explicit contention_reference(std::uint64_t seed = 42);

  // The median time of `chases` walks over every line of the buffer, in ns. Never allocates.
  double reading();
  // The time of one copy of `copy_bytes` between two buffers of its own, in ns: a reading at the
  // level of the last-level cache and memory, which the 64 KiB walk does not reach. Never
  // allocates.
  double memory_reading();

  // The last line index a walk ended on (keeps the walk observable; the walk is a cycle, so it
  // always ends where it started).
  std::uint32_t last_stop() const { return last_stop_; }
  // Lines visited from line 0 before the walk is back at it: every line, by construction.
  std::size_t cycle_length() const;

 private:
  static constexpr std::size_t lines = buffer_bytes / line_bytes;
  static constexpr std::size_t words_per_line = line_bytes / sizeof(std::uint32_t);
  std::vector<std::uint32_t> words_;  // words_[line * words_per_line]: the next line to visit
  std::vector<double> times_;         // one reading's chases, reused
  std::vector<unsigned char> copy_from_, copy_to_;
  std::uint32_t last_stop_ = 0;
};

}  // namespace alloclab::lab
