// The recorder's shared state: each thread's encoder state, buffer and block table, the
// process-wide settings and lists, and small helpers (clocks, mmap, status lines). Everything here
// is usable inside malloc: nothing allocates.
#pragma once

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "block_table.hpp"
#include "trace/format.hpp"

#define ALLOCLAB_HOT inline __attribute__((always_inline))

// The recorder's own symbols are hidden: its hot path reaches them PC-relative, without the GOT.
#pragma GCC visibility push(hidden)

namespace alloclab::record {

namespace fmt = alloclab::trace_format;

/// Every this many events a thread counts them, checks its buffer and perhaps reads the clock.
constexpr std::uint32_t clock_every_events = fmt::events_per_fullness_check;
/// A thread's buffer: a chunk's most raw bytes, and room for put()'s byte past the last varint.
constexpr std::size_t buffer_bytes = fmt::max_chunk_raw_bytes + 8;
constexpr std::uint64_t timestamp_every_us = 1000;
constexpr std::uint64_t rss_every_us = 100 * 1000;
constexpr unsigned id_bits = 44;
constexpr std::uint64_t id_mask = (std::uint64_t{1} << id_bits) - 1;

struct thread_state {
  // Touched by every event.
  std::atomic<int> busy{0};  ///< 1 while this thread is inside an event (see finish_recording)
  std::uint32_t index = 0;
  std::uint8_t* cursor = nullptr;  ///< end of the last whole event in `buffer`
  std::uint8_t* limit = nullptr;   ///< buffer + chunk capacity: a buffer past it is flushed
  /// Blocks allocated so far: the next block's id. A block's table entry is its id + 1, so that
  /// `allocated - entry` is its age (the distance back from the latest block) and any value that
  /// is not one of this thread's entries (block_table::absent) gives an age beyond id_mask.
  std::uint64_t allocated = 0;
  std::uint64_t previous_size = 0;
  std::uint32_t clock_countdown = clock_every_events;
  block_table blocks;  ///< the live blocks this thread allocated
  // Touched now and then.
  std::uint64_t ticks = 0;  ///< events counted so far in steps of clock_every_events
  std::uint64_t last_us = 0;
  std::uint32_t sequence = 0;
  bool ended = false;
  thread_state* last_owner = nullptr;  ///< the thread whose block this one freed last
  thread_state* next_state = nullptr;  ///< the next older thread (immutable once published)
  std::uint8_t* buffer = nullptr;      ///< buffer_bytes, mmap'd; unmapped at thread end
  fmt::cross_free_ids cross_ids;       ///< the bases of this thread's cross-thread free ids

  std::uint64_t events() const noexcept { return ticks + clock_every_events - clock_countdown; }
};

/// A block as the tables know it: its allocating thread (null: a pointer the recorder never saw
/// allocated) and its entry in that thread's table (id + 1).
struct block_ref {
  const thread_state* owner = nullptr;
  std::uint64_t entry = 0;
};

extern std::atomic<bool> recording;  ///< events are being recorded
/// A second thread records: a free must take its block's entry out before the real free (another
/// thread could get the address back at once). With one thread, the entry goes after.
extern std::atomic<bool> threads_share;
extern bool timestamps;    ///< timestamp and RSS events wanted
extern int zstd_level;     ///< 0: chunks stored raw
extern int status_fd;      ///< the pipe to `alloclab record`, or -1
extern long recorded_pid;  ///< the process this image records in (0: none)
extern std::uint64_t start_monotonic_ns;
extern pthread_key_t thread_key;               ///< its destructor ends a thread's recording
extern pthread_mutex_t write_lock;             ///< the trace fd and the thread list
extern std::atomic<thread_state*> all_states;  ///< every thread's state, newest first
extern std::atomic<std::uint32_t> thread_count;
extern std::atomic<std::uint64_t> unknown_frees;
extern std::atomic<std::uint64_t> last_rss_us;
extern bool membarrier_ready;  ///< the process registered for expedited membarrier

// __thread (not thread_local): no dynamic initialization, so no TLS wrapper call on the hot path.
/// The state the hooks record into: null before the thread's first call, while the recorder
/// itself calls malloc (zstd, pthread) and after the thread's end; the hooks then take their slow
/// path, which passes such calls through unrecorded.
extern __thread thread_state* current __attribute__((tls_model("initial-exec")));
/// This thread's state, also while `current` is null.
extern __thread thread_state* own_state __attribute__((tls_model("initial-exec")));
/// Set while the recorder itself calls malloc and after this thread's end.
extern __thread bool inside __attribute__((tls_model("initial-exec")));

std::uint64_t monotonic_ns(clockid_t clock) noexcept;
/// Microseconds since recording started.
std::uint64_t elapsed_us(clockid_t clock) noexcept;
/// Anonymous private memory, or null.
void* map_memory(std::size_t bytes) noexcept;
/// One status line "WORD NUMBER\n" to alloclab record (async-signal-safe).
void report(const char* word, long number) noexcept;
/// This process is the one this image records in (not a fork or vfork child).
bool is_recorded_process() noexcept;

/// Runs the recorder's own calls to malloc (zstd, pthread) unrecorded.
class inside_recorder {
 public:
  inside_recorder() noexcept : was_inside_(inside), was_current_(current) {
    inside = true;
    current = nullptr;
  }
  ~inside_recorder() {
    current = was_current_;
    inside = was_inside_;
  }
  inside_recorder(const inside_recorder&) = delete;
  inside_recorder& operator=(const inside_recorder&) = delete;

 private:
  bool was_inside_;
  thread_state* was_current_;
};

}  // namespace alloclab::record

#pragma GCC visibility pop
