// Replaying a trace in this process against the live malloc (whatever LD_PRELOAD made it).
//
// Each recorded thread is replayed on its own thread, reading its own chunks as it goes (memory:
// one chunk per thread plus a table of the blocks live at the moment, at most 64 bytes per block
// live at the peak, so a replay's memory follows the live set, not the trace's length). A free
// of a block another thread allocated waits until that thread has allocated it; otherwise only
// pacing (below) orders the threads. Every block is written once when allocated (memset), so the
// replay pays first-touch costs; realloc's copy is the allocator's own and only the grown tail is
// written. Calls on pointers the recorder never saw allocated, and allocations that failed when
// recorded, are skipped and counted. Blocks the trace leaves allocated are freed after the
// replay, so replaying leaks nothing.
//
// Pacing (replay_options::lead_us): with timestamps, a thread runs no more than lead_us of
// recorded time ahead of the furthest-behind unfinished thread (it waits, yielding, before an
// event whose recorded time is later). Without it a producer whose consumer replays slower runs
// ahead, and the replay builds a backlog of live blocks the recording never had. The thread
// furthest behind never waits for pacing, and a thread waiting for another's allocation does
// not hold the others back, so the waits cannot deadlock.
//
// With replay_options::resource set, the blocks come from that std::pmr::memory_resource instead
// of malloc: the memalign family asks for its alignment, everything else for 16 bytes; realloc
// allocates, copies the smaller size and deallocates (the copy is timed, as malloc's would be);
// malloc_usable_size has no pmr counterpart and is skipped. The caller judges whether the
// resource fits the trace (e.g. an unsynchronized pool and a multi-threaded trace do not).
//
// Program work (replay_options::program_work): a replay that only calls malloc cannot see what a
// malloc's placement does to the program's own memory accesses. This models them: after each
// call the replaying thread touches live blocks picked at random (so a block is touched in
// proportion to its lifetime), reading one byte per 64-byte line of up to touch_cap bytes and
// writing its first line (so in proportion to its size). How many touches follow a call is
// touches_per_call scaled by the recorded time per call of the trace's latest window (between
// timestamp events) over the trace's mean: the recorded gaps between calls become work over the
// live blocks. The timed span is then the "replayed program time" (program_seconds); a replay
// without work times the "malloc call time" (call_seconds).
//
// Call and program times are the replaying threads' CPU time (CLOCK_THREAD_CPUTIME_ID, user +
// sys, page faults included), so other work on a shared machine does not enter them; wall time
// is reported apart. Timing covers the calls and the writes, not the decoding or the waits
// (those are reported apart). The engine's own bookkeeping (live-block tables, chunk buffers)
// comes from mmap and from the reader's buffers; the chunk buffers go through the live malloc
// too, one per 64 KiB of trace.
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
  /// Model the program's work over its live blocks (see above).
  bool program_work = false;
  double touches_per_call = 1;
  /// Bytes of a block one touch reads at most.
  std::uint64_t touch_cap = 1024;
  /// Replay only the calls recorded before this time (trace/replay_cut.hpp; 0: every call).
  std::uint64_t end_us = 0;
  /// Pacing: recorded microseconds a thread may run ahead of the furthest-behind one (see
  /// above); the default is the recorder's clock tick (CLOCK_MONOTONIC_COARSE, 4 ms), within
  /// which the threads' recorded times do not order their calls. no_pacing: only cross-thread
  /// frees order the threads.
  std::uint64_t lead_us = 4000;
  static constexpr std::uint64_t no_pacing = ~std::uint64_t{0};
  /// The trace's mean recorded microseconds per event (0: from its footer, or without one, no
  /// scaling by the recorded gaps).
  double mean_us_per_call = 0;
};

struct replay_thread_result {
  std::uint32_t thread = 0;
  std::uint64_t calls = 0;
  double call_seconds = 0;     ///< executing calls and writes (without program work)
  double program_seconds = 0;  ///< executing calls, writes and program work (with it)
  double wait_seconds = 0;     ///< waiting for another thread's allocation, or for pacing
};

struct replay_result {
  std::array<std::uint64_t, event_kind_count> calls_by_kind{};
  std::uint64_t calls = 0;
  std::uint64_t skipped = 0;  ///< unknown pointers and recorded failures
  double wall_seconds = 0;
  double call_seconds = 0;     ///< summed over threads; 0 with program work
  double program_seconds = 0;  ///< summed over threads; 0 without program work
  std::uint64_t touches = 0;   ///< program work: touches that found a live block
  std::uint64_t touched_bytes = 0;
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

  double ns_per_call() const noexcept { return per_call(call_seconds); }
  /// Replayed program time per call (program work included).
  double program_ns_per_call() const noexcept { return per_call(program_seconds); }

 private:
  double per_call(double seconds) const noexcept {
    return calls == 0 ? 0 : seconds * 1e9 / static_cast<double>(calls);
  }
};

/// Throws trace_error for a corrupt trace or one that frees a block twice.
replay_result replay_trace(const trace_file& trace, const replay_options& options = {});

}  // namespace alloclab::trace
