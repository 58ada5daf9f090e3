// Replaying a trace in this process against the live malloc (whatever LD_PRELOAD made it).
//
// Each recorded thread is replayed on its own thread, reading its own chunks as it goes (memory:
// one chunk per thread plus a table of the blocks live at the moment, 32-64 bytes each, so a
// replay's memory follows the trace's live set, not its length). A free of a block another thread allocated waits
// until that thread has allocated it; nothing else is ordered across threads. Every block is
// written once when allocated (memset), so the replay pays first-touch costs; realloc's copy is
// the allocator's own and only the grown tail is written. Calls on pointers the recorder never
// saw allocated, and allocations that failed when recorded, are skipped and counted. Blocks the
// trace leaves allocated are freed after the replay, so replaying leaks nothing.
//
// With replay_options::resource set, the blocks come from that std::pmr::memory_resource instead
// of malloc: the memalign family asks for its alignment, everything else for 16 bytes; realloc
// allocates, copies the smaller size and deallocates (the copy is timed, as malloc's would be);
// malloc_usable_size has no pmr counterpart and is skipped. The caller judges whether the
// resource fits the trace (e.g. an unsynchronized pool and a multi-threaded trace do not).
//
// Timing covers the calls and the writes, not the decoding or the waits (those are reported
// apart). The engine's own bookkeeping (block table, chunk buffers) comes from mmap and from the
// reader's buffers; the chunk buffers go through the live malloc too, one per 64 KiB of trace.
#pragma once

#include <array>
#include <cstdint>
#include <memory_resource>
#include <vector>

#include "trace/trace_reader.hpp"

namespace alloclab::trace {

struct replay_options {
  bool write_blocks = true;      ///< write each block once when allocated
  bool track_live_bytes = true;  ///< a shared live-byte counter and its peak (one atomic per call)
  /// Record live bytes after every n-th call (0 = never). Deterministic for one-thread traces.
  std::size_t curve_stride = 0;
  /// Serve the blocks from this resource instead of the process-wide malloc (null: malloc).
  std::pmr::memory_resource* resource = nullptr;
};

struct replay_thread_result {
  std::uint32_t thread = 0;
  std::uint64_t calls = 0;
  double call_seconds = 0;  ///< executing calls and writes
  double wait_seconds = 0;  ///< waiting for another thread's allocation
};

struct replay_result {
  std::array<std::uint64_t, event_kind_count> calls_by_kind{};
  std::uint64_t calls = 0;
  std::uint64_t skipped = 0;  ///< unknown pointers and recorded failures
  double wall_seconds = 0;
  double call_seconds = 0;  ///< summed over threads
  std::uint64_t peak_live_bytes = 0;
  std::uint64_t final_live_bytes = 0;
  /// Blocks the trace never freed, freed by the engine after the replay (not timed).
  std::uint64_t released_at_end = 0;
  /// The engine's own tables of live blocks at their largest, summed over threads: resident in
  /// the replaying process besides the blocks.
  std::uint64_t bookkeeping_bytes = 0;
  /// Block slots the engine held at once, summed over threads.
  std::uint64_t peak_slots = 0;
  std::vector<std::uint64_t> live_curve;
  std::vector<replay_thread_result> threads;

  double ns_per_call() const noexcept {
    return calls == 0 ? 0 : call_seconds * 1e9 / static_cast<double>(calls);
  }
};

/// Throws trace_error for a corrupt trace or one that frees a block twice.
replay_result replay_trace(const trace_file& trace, const replay_options& options = {});

}  // namespace alloclab::trace
