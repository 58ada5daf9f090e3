// The recorder's shared state: each thread's encoder state and buffer, the process-wide settings
// and lists, the pointer table, and small helpers (clocks, mmap, status lines). Everything here is
// usable inside malloc: nothing allocates.
#pragma once

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "block_table.hpp"
#include "trace/format.hpp"

#define ALLOCLAB_HOT inline __attribute__((always_inline))

namespace alloclab::record {

namespace fmt = alloclab::trace_format;

struct thread_state {
  std::atomic<int> busy{0};  ///< 1 while this thread is inside an event (see finish_recording)
  bool ended = false;
  std::uint32_t index = 0;
  std::uint32_t sequence = 0;
  std::uint64_t next_id = 0;
  std::uint64_t previous_size = 0;
  std::uint64_t last_us = 0;
  std::uint32_t clock_countdown = 0;
  std::uint64_t events = 0;
  thread_state* next_state = nullptr;
  std::uint8_t* cursor = nullptr;
  std::uint8_t* committed = nullptr;  ///< end of the last whole event (a signal may cut one)
  fmt::cross_free_ids cross_ids;      ///< the bases of this thread's cross-thread free ids
  std::uint8_t buffer[fmt::max_chunk_raw_bytes];
};

constexpr std::uint32_t clock_every_events = 64;
constexpr std::uint64_t timestamp_every_us = 1000;
constexpr std::uint64_t rss_every_us = 100 * 1000;
constexpr unsigned id_bits = 44;
constexpr std::uint64_t id_mask = (std::uint64_t{1} << id_bits) - 1;

extern std::atomic<bool> recording;  ///< events are being recorded
extern bool timestamps;              ///< timestamp and RSS events wanted
extern int zstd_level;               ///< 0: chunks stored raw
extern int status_fd;                ///< the pipe to `alloclab record`, or -1
extern long recorded_pid;            ///< the process this image records in (0: none)
extern std::uint64_t start_monotonic_ns;
extern pthread_key_t thread_key;    ///< its destructor ends a thread's recording
extern pthread_mutex_t write_lock;  ///< the trace fd, the zstd context, the thread list
extern thread_state* all_states;    ///< every thread's state, newest first
extern std::atomic<std::uint32_t> thread_count;
extern std::atomic<std::uint64_t> unknown_frees;
extern std::atomic<std::uint64_t> last_rss_us;
extern bool membarrier_ready;  ///< the process registered for expedited membarrier

// Constant-initialized (usable by calls that come before any constructor) and never destroyed
// (threads may still free after the exit handlers ran).
union never_destroyed_table {
  block_table table;
  constexpr never_destroyed_table() : table() {}
  ~never_destroyed_table() {}
};
extern never_destroyed_table blocks_storage;
inline block_table& blocks() noexcept {
  return blocks_storage.table;
}

// __thread (not thread_local): no dynamic initialization, so no TLS wrapper call on the hot path.
extern __thread thread_state* current __attribute__((tls_model("initial-exec")));
/// Set while the recorder itself calls malloc (zstd, pthread) and after this thread's end: its
/// calls then pass through unrecorded.
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

}  // namespace alloclab::record
