// liballoclab_record.so: an LD_PRELOAD interposer that records the malloc family into an alloclab
// trace (docs/trace-format.md). `alloclab record` sets it up; by itself it is inert.
//
// Environment (set by `alloclab record`):
//   ALLOCLAB_RECORD_FILE  the trace to write; unset = record nothing
//   ALLOCLAB_RECORD_PID   the recorded process: its first image writes ALLOCLAB_RECORD_FILE
//   ALLOCLAB_RECORD_FOLLOW_EXEC=1  every other image (exec'd by the recorded process or by any
//                         descendant) writes its own trace, ALLOCLAB_RECORD_FILE.N, N = 1, 2...
//                         in order of start; unset = other images record nothing
//   ALLOCLAB_RECORD_TIMESTAMPS=0  no timestamp or RSS events
//   ALLOCLAB_RECORD_ZSTD  zstd level for chunks (default 1; 0 = stored raw)
//   ALLOCLAB_RECORD_STATUS_FD  a pipe to `alloclab record`; every process image that loads the
//                         recorder tells it one line (below), so that record can say what happened
//
// Each thread encodes its events into its own 64 KiB buffer and writes it, compressed, as one
// chunk when full, at thread exit and at process exit. Nothing on the hot path allocates or takes
// a lock other than the block table's shard lock. The trace is also finished (footer written)
// before the recorded process calls execve (or execv, execvp, execvpe); at a fatal signal
// (SIGABRT, SIGSEGV, SIGTERM... whose disposition was the default), after which the signal is
// raised again; and before the process kills itself (kill, raise) with a signal that ends it.
//
// Status lines (one write each):
//   recording PID        this image records
//   image PID            an image that records nothing (an exec'd descendant or successor,
//                        without ALLOCLAB_RECORD_FOLLOW_EXEC)
//   exec PID             the recorded process called execve (execv, execvp, execvpe): the
//                        trace ends there
//   write-failed ERRNO   a chunk could not be written: the trace is damaged
//   signal-flushed SIG   the trace was finished at a fatal signal
//   signal-lost SIG      a fatal signal came while the recorder itself ran: buffers were lost
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <cerrno>
#include <initializer_list>
#include <new>
#include <cstdlib>
#include <cstring>

#include "block_table.hpp"
#include "trace/format.hpp"

#define ALLOCLAB_EXPORT extern "C" __attribute__((visibility("default")))
#define ALLOCLAB_HOT inline __attribute__((always_inline))

namespace alloclab::record {
namespace {

namespace fmt = alloclab::trace_format;

// ---- the next malloc, found with dlsym; a static buffer serves calls made while resolving ----

struct next_functions {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*memalign)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  size_t (*malloc_usable_size)(void*);
};
next_functions next{};
std::atomic<bool> resolved{false};

constexpr std::size_t bootstrap_bytes = 256 * 1024;
alignas(64) unsigned char bootstrap[bootstrap_bytes];
std::atomic<std::size_t> bootstrap_used{0};
std::atomic<std::uint64_t> bootstrap_allocations{0};

bool in_bootstrap(const void* p) noexcept {
  const auto* b = static_cast<const unsigned char*>(p);
  return b >= bootstrap && b < bootstrap + bootstrap_bytes;
}

// 16-byte header holding the size, so realloc and malloc_usable_size work on these blocks.
void* bootstrap_alloc(size_t n, size_t alignment = 16) noexcept {
  if (alignment < 16) alignment = 16;
  for (;;) {
    std::size_t used = bootstrap_used.load(std::memory_order_relaxed);
    std::size_t start = (used + 16 + alignment - 1) & ~(alignment - 1);
    if (start + n > bootstrap_bytes || n > bootstrap_bytes) return nullptr;
    if (bootstrap_used.compare_exchange_weak(used, start + n)) {
      bootstrap_allocations.fetch_add(1, std::memory_order_relaxed);
      std::memcpy(bootstrap + start - sizeof(size_t), &n, sizeof(size_t));
      return bootstrap + start;
    }
  }
}
size_t bootstrap_size(const void* p) noexcept {
  size_t n;
  std::memcpy(&n, static_cast<const unsigned char*>(p) - sizeof(size_t), sizeof(size_t));
  return n;
}

thread_local __attribute__((tls_model("initial-exec"))) bool resolving = false;

template <class F>
void lookup(F& slot, const char* name) noexcept {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// dlsym may itself call malloc/calloc/free: those calls find `resolving` set and use the buffer.
void resolve_next() noexcept {
  if (resolved.load(std::memory_order_acquire) || resolving) return;
  resolving = true;
  next_functions n{};
  lookup(n.malloc, "malloc");
  lookup(n.free, "free");
  lookup(n.calloc, "calloc");
  lookup(n.realloc, "realloc");
  lookup(n.memalign, "memalign");
  lookup(n.posix_memalign, "posix_memalign");
  lookup(n.aligned_alloc, "aligned_alloc");
  lookup(n.valloc, "valloc");
  lookup(n.pvalloc, "pvalloc");
  lookup(n.malloc_usable_size, "malloc_usable_size");
  next = n;
  resolving = false;
  resolved.store(n.malloc != nullptr && n.free != nullptr, std::memory_order_release);
}

bool ready() noexcept {
  if (__builtin_expect(resolved.load(std::memory_order_acquire), 1)) return true;
  resolve_next();
  return resolved.load(std::memory_order_acquire);
}

// ---- the recording ----

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
  std::uint8_t buffer[fmt::max_chunk_raw_bytes];
};

constexpr std::uint32_t clock_every_events = 64;
constexpr std::uint64_t timestamp_every_us = 1000;
constexpr std::uint64_t rss_every_us = 100 * 1000;
constexpr unsigned id_bits = 44;

std::atomic<bool> recording{false};
bool timestamps = true;
int zstd_level = 1;
int trace_fd = -1;
int status_fd = -1;
long recorded_pid = 0;
std::uint64_t start_monotonic_ns = 0;
pthread_key_t thread_key;
pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;  // the fd, the zstd context, the list
thread_state* all_states = nullptr;
std::atomic<std::uint32_t> thread_count{0};
std::atomic<std::uint64_t> unknown_frees{0};
std::atomic<std::uint64_t> last_rss_us{0};
ZSTD_CCtx* zstd_context = nullptr;
std::uint8_t* compressed = nullptr;
std::size_t compressed_capacity = 0;
// Constant-initialized (usable by calls that come before any constructor) and never destroyed
// (threads may still free after the exit handlers ran).
union never_destroyed_table {
  block_table table;
  constexpr never_destroyed_table() : table() {}
  ~never_destroyed_table() {}
};
never_destroyed_table blocks_storage;
block_table& blocks = blocks_storage.table;

thread_local __attribute__((tls_model("initial-exec"))) thread_state* current = nullptr;
// Set while the recorder itself calls malloc (zstd, pthread) and after this thread's end: its
// calls then pass through unrecorded.
thread_local __attribute__((tls_model("initial-exec"))) bool inside = false;

std::uint64_t monotonic_ns(clockid_t clock) noexcept {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}
std::uint64_t elapsed_us(clockid_t clock) noexcept {
  const std::uint64_t now = monotonic_ns(clock);
  return now > start_monotonic_ns ? (now - start_monotonic_ns) / 1000 : 0;
}

void* map_memory(std::size_t bytes) noexcept {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// One status line "WORD NUMBER\n" to alloclab record (async-signal-safe).
void report(const char* word, long number) noexcept {
  if (status_fd < 0) return;
  char line[64];
  std::size_t n = 0;
  while (*word != '\0' && n < 40) line[n++] = *word++;
  line[n++] = ' ';
  char digits[24];
  std::size_t d = 0;
  unsigned long value =
      number < 0 ? 0ul - static_cast<unsigned long>(number) : static_cast<unsigned long>(number);
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  if (number < 0) line[n++] = '-';
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  const int saved = errno;
  [[maybe_unused]] const ssize_t ignored = write(status_fd, line, n);
  errno = saved;
}

bool is_recorded_process() noexcept {
  return recorded_pid != 0 && syscall(SYS_getpid) == recorded_pid;
}

// writev of every part. SIGXFSZ (a write past `ulimit -f`) is blocked and taken back, so that the
// recorder's write fails with EFBIG instead of killing the program.
bool write_all(const iovec* parts, int count) noexcept {
  sigset_t file_size, previous;
  sigemptyset(&file_size);
  sigaddset(&file_size, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &file_size, &previous);
  iovec v[2];
  std::memcpy(v, parts, sizeof(iovec) * static_cast<std::size_t>(count));
  int first = 0;
  while (first < count) {
    const ssize_t n = writev(trace_fd, v + first, count - first);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n == 0 ? EIO : errno;
      if (error == EFBIG && !sigismember(&previous, SIGXFSZ)) {
        const timespec now{};
        sigtimedwait(&file_size, nullptr, &now);
      }
      pthread_sigmask(SIG_SETMASK, &previous, nullptr);
      errno = error;
      return false;
    }
    std::size_t left = static_cast<std::size_t>(n);
    while (first < count && left >= v[first].iov_len) left -= v[first++].iov_len;
    if (first < count) {
      v[first].iov_base = static_cast<char*>(v[first].iov_base) + left;
      v[first].iov_len -= left;
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return true;
}

// Caller holds write_lock and has set `inside` (zstd allocates through us).
void write_chunk(std::uint32_t thread, std::uint32_t sequence, fmt::chunk_kind kind,
                 const std::uint8_t* raw, std::size_t raw_bytes) noexcept {
  if (trace_fd < 0) return;
  fmt::chunk_header h{};
  h.magic = fmt::chunk_magic;
  h.thread = thread;
  h.sequence = sequence;
  h.raw_bytes = static_cast<std::uint32_t>(raw_bytes);
  h.kind = static_cast<std::uint8_t>(kind);
  const std::uint8_t* stored = raw;
  std::size_t stored_bytes = raw_bytes;
  h.codec = static_cast<std::uint8_t>(fmt::codec::raw);
  if (zstd_level > 0) {
    if (zstd_context == nullptr) zstd_context = ZSTD_createCCtx();
    if (compressed == nullptr) {
      compressed_capacity = ZSTD_compressBound(fmt::max_chunk_raw_bytes);
      compressed = static_cast<std::uint8_t*>(map_memory(compressed_capacity));
    }
    if (zstd_context != nullptr && compressed != nullptr) {
      const std::size_t n = ZSTD_compressCCtx(zstd_context, compressed, compressed_capacity, raw,
                                              raw_bytes, zstd_level);
      if (!ZSTD_isError(n) && n < raw_bytes) {
        stored = compressed;
        stored_bytes = n;
        h.codec = static_cast<std::uint8_t>(fmt::codec::zstd);
      }
    }
  }
  h.stored_bytes = static_cast<std::uint32_t>(stored_bytes);
  h.checksum = fmt::checksum(stored, stored_bytes);
  const iovec parts[2] = {{&h, sizeof h}, {const_cast<std::uint8_t*>(stored), stored_bytes}};
  if (!write_all(parts, 2)) {
    report("write-failed", errno);
    close(trace_fd);  // a half-written chunk ends the trace; the reader reports it
    trace_fd = -1;
  }
}

__attribute__((noinline)) void flush(thread_state& st) noexcept {
  const std::size_t bytes = static_cast<std::size_t>(st.cursor - st.buffer);
  if (bytes == 0) return;
  const bool was_inside = inside;
  inside = true;
  pthread_mutex_lock(&write_lock);
  write_chunk(st.index, st.sequence++, fmt::chunk_kind::events, st.buffer, bytes);
  pthread_mutex_unlock(&write_lock);
  inside = was_inside;
  st.cursor = st.committed = st.buffer;
}

ALLOCLAB_HOT void put(thread_state& st, std::uint64_t v) noexcept {
  st.cursor = fmt::put_varint(st.cursor, v);
}
ALLOCLAB_HOT void put_op(thread_state& st, fmt::op o) noexcept {
  put(st, (static_cast<std::uint64_t>(o) << 2) | 3);
}

std::uint64_t read_rss_kib() noexcept {
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* p = text;
  while (*p != ' ' && *p != '\0') ++p;  // skip the size field; the second is resident pages
  std::uint64_t pages = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) pages = pages * 10 + static_cast<std::uint64_t>(*p - '0');
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

// Every `clock_every_events` events: a timestamp when a millisecond passed, an RSS sample when
// 100 ms passed since any thread's last one.
__attribute__((noinline)) void take_timestamp(thread_state& st) noexcept {
  st.clock_countdown = clock_every_events;
  if (!timestamps) return;
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC_COARSE);
  if (now < st.last_us + timestamp_every_us) return;
  put_op(st, fmt::op::timestamp);
  put(st, now - st.last_us);
  st.last_us = now;
  std::uint64_t last = last_rss_us.load(std::memory_order_relaxed);
  if (now >= last + rss_every_us && last_rss_us.compare_exchange_strong(last, now)) {
    put_op(st, fmt::op::rss);
    put(st, read_rss_kib());
  }
}

// Called after each event was encoded.
ALLOCLAB_HOT void event_done(thread_state& st) noexcept {
  ++st.events;
  if (--st.clock_countdown == 0) take_timestamp(st);
  if (st.cursor >= st.buffer + fmt::chunk_capacity) flush(st);
  std::atomic_signal_fence(std::memory_order_release);
  st.committed = st.cursor;
}

bool membarrier_ready = false;

// The first thread records with an unlocked block table. The second one turns locking on and
// waits until no other thread is inside an event: membarrier() makes every thread either show
// its `busy` flag here or see the table shared in its next event (the fast path needs no fence).
void share_block_table(thread_state* others) noexcept {
  blocks.set_shared();
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  for (thread_state* st = others; st != nullptr; st = st->next_state) {
    while (st->busy.load(std::memory_order_acquire) != 0) sched_yield();
  }
}

thread_state* new_thread_state() noexcept {
  void* memory = map_memory(sizeof(thread_state));
  if (memory == nullptr) return nullptr;
  auto* st = new (memory) thread_state();
  st->index = thread_count.fetch_add(1, std::memory_order_relaxed);
  st->cursor = st->buffer;
  st->clock_countdown = clock_every_events;
  st->last_us = elapsed_us(CLOCK_MONOTONIC);
  put_op(*st, fmt::op::thread_start);
  put(*st, static_cast<std::uint64_t>(syscall(SYS_gettid)));
  put(*st, st->last_us);
  st->committed = st->cursor;
  inside = true;
  pthread_setspecific(thread_key, st);  // may allocate
  pthread_mutex_lock(&write_lock);
  st->next_state = all_states;
  all_states = st;
  pthread_mutex_unlock(&write_lock);
  inside = false;
  if (st->index > 0 && !blocks.shared()) share_block_table(st->next_state);
  return st;
}

// While an event_scope is open the thread is `busy`; finish_recording() flushes only threads
// that are not (membarrier makes the check sound without a fence on this path).
class event_scope {
 public:
  event_scope() noexcept {
    if (!recording.load(std::memory_order_relaxed) || inside) return;
    if (current == nullptr && (current = new_thread_state()) == nullptr) return;
    current->busy.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (recording.load(std::memory_order_relaxed)) {
      st_ = current;
    } else {
      current->busy.store(0, std::memory_order_release);
    }
  }
  ~event_scope() {
    if (st_ == nullptr) return;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    st_->busy.store(0, std::memory_order_release);
  }
  event_scope(const event_scope&) = delete;
  event_scope& operator=(const event_scope&) = delete;
  thread_state* state() const noexcept { return st_; }

 private:
  thread_state* st_ = nullptr;
};

std::uint64_t block_key(const thread_state& st, std::uint64_t id) noexcept {
  return (static_cast<std::uint64_t>(st.index) << id_bits) | id;
}

/// Registers a new block and returns its id (its event is encoded by the caller).
ALLOCLAB_HOT void new_block(thread_state& st, void* p) noexcept {
  blocks.insert(reinterpret_cast<std::uintptr_t>(p), block_key(st, st.next_id++));
}

void put_size(thread_state& st, std::uint64_t size) noexcept {
  put(st, fmt::zigzag(size, st.previous_size));
  st.previous_size = size;
}

ALLOCLAB_HOT void record_malloc(thread_state& st, void* p, size_t size) noexcept {
  if (p == nullptr) {
    put_op(st, fmt::op::failed);
    put(st, fmt::malloc_kind);
    put(st, size);
  } else {
    new_block(st, p);
    put(st, (fmt::zigzag(size, st.previous_size) << 2) | 1);
    st.previous_size = size;
  }
  event_done(st);
}

void record_new(thread_state& st, fmt::op kind, void* p, size_t size,
                size_t alignment = 0) noexcept {
  if (p == nullptr) {
    put_op(st, fmt::op::failed);
    put(st, static_cast<std::uint64_t>(kind));
    put(st, size);
  } else {
    new_block(st, p);
    put_op(st, kind);
    if (kind == fmt::op::memalign || kind == fmt::op::posix_memalign ||
        kind == fmt::op::aligned_alloc)
      put(st, alignment == 0 ? 0 : static_cast<std::uint64_t>(__builtin_ctzll(alignment)));
    put_size(st, size);
  }
  event_done(st);
}

constexpr std::uint64_t id_mask = (std::uint64_t{1} << id_bits) - 1;

// A block reference (realloc, malloc_usable_size) of `p` whose table entry is `key` when `known`.
void put_ref(thread_state& st, void* p, bool known, std::uint64_t key) noexcept {
  if (p == nullptr) {
    put(st, fmt::ref_null);
  } else if (!known) {
    put(st, fmt::ref_unknown);
  } else if ((key >> id_bits) == st.index) {
    put(st, ((st.next_id - 1 - (key & id_mask)) << 2) | 2);
  } else {
    put(st, ((key >> id_bits) << 2) | 3);
    put(st, key & id_mask);
  }
}

// The free of the block whose table entry was `key` (when `known`).
ALLOCLAB_HOT void put_free(thread_state& st, bool known, std::uint64_t key) noexcept {
  if (!known) {
    unknown_frees.fetch_add(1, std::memory_order_relaxed);
    put_op(st, fmt::op::free_unknown);
  } else if ((key >> id_bits) == st.index) {
    put(st, (st.next_id - 1 - (key & id_mask)) << 1);
  } else {
    put_op(st, fmt::op::free_cross);
    put(st, key >> id_bits);
    put(st, key & id_mask);
  }
}

ALLOCLAB_HOT void record_free(thread_state& st, void* p) noexcept {
  std::uint64_t key = 0;
  const bool known = blocks.remove(reinterpret_cast<std::uintptr_t>(p), key);
  put_free(st, known, key);
  event_done(st);
}

void end_thread(thread_state& st) noexcept {
  put_op(st, fmt::op::thread_end);
  const std::uint64_t now = elapsed_us(CLOCK_MONOTONIC);
  put(st, now > st.last_us ? now - st.last_us : 0);
  st.last_us = now;
  st.ended = true;
  flush(st);
}

void on_thread_exit(void* state) noexcept {
  auto* st = static_cast<thread_state*>(state);
  inside = true;  // later calls from other TLS destructors pass through
  if (!recording.load(std::memory_order_acquire)) return;
  st->busy.store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (recording.load(std::memory_order_relaxed)) end_thread(*st);
  st->busy.store(0, std::memory_order_release);
}

// fork: the child records nothing (its copy of the buffers belongs to the parent's trace).
void on_fork_child() noexcept {
  recording.store(false, std::memory_order_relaxed);
  if (trace_fd >= 0) close(trace_fd);
  trace_fd = -1;
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  std::memcpy(&write_lock, &fresh, sizeof fresh);
}

void on_fatal_signal(int signal) noexcept;

// Fatal signals left at their default action get a handler that finishes the trace first. Not
// SIGINT: a program may look at its disposition (python raises KeyboardInterrupt only when it
// finds SIG_DFL); kill and raise below cover a program that ends itself with it.
void finish_at_fatal_signals() noexcept {
  for (const int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction existing {};
    if (sigaction(signal, nullptr, &existing) != 0 || existing.sa_handler != SIG_DFL) continue;
    struct sigaction handler {};
    handler.sa_handler = on_fatal_signal;
    handler.sa_flags = static_cast<int>(SA_RESETHAND | SA_ONSTACK);
    sigfillset(&handler.sa_mask);
    sigaction(signal, &handler, nullptr);
  }
}

// The trace file, opened for this image; -1 when another image of this process wrote it already.
int open_trace(const char* path) noexcept {
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_size != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

// "PATH.N" for the first N from 1 that no other image took (O_EXCL decides races); -1 when none.
int open_image_trace(const char* path) noexcept {
  char name[4096];
  std::size_t length = std::strlen(path);
  if (length + 12 > sizeof name) return -1;
  std::memcpy(name, path, length);
  name[length++] = '.';
  for (unsigned n = 1; n < 1000000; ++n) {
    char digits[12];
    std::size_t d = 0;
    for (unsigned v = n; v != 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
    std::size_t end = length;
    while (d > 0) name[end++] = digits[--d];
    name[end] = '\0';
    const int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

void start_recording() noexcept {
  if (!ready()) return;
  const char* path = getenv("ALLOCLAB_RECORD_FILE");
  if (path == nullptr || *path == '\0') return;
  if (const char* fd = getenv("ALLOCLAB_RECORD_STATUS_FD"); fd != nullptr)
    status_fd = static_cast<int>(std::strtol(fd, nullptr, 10));
  const long pid = static_cast<long>(getpid());
  const char* wanted = getenv("ALLOCLAB_RECORD_PID");
  const bool first_process = wanted == nullptr || std::strtol(wanted, nullptr, 10) == pid;
  const char* follow = getenv("ALLOCLAB_RECORD_FOLLOW_EXEC");
  const bool follow_exec = follow != nullptr && *follow == '1';
  if (const char* t = getenv("ALLOCLAB_RECORD_TIMESTAMPS"); t != nullptr) timestamps = *t != '0';
  if (const char* z = getenv("ALLOCLAB_RECORD_ZSTD"); z != nullptr) {
    zstd_level = static_cast<int>(std::strtol(z, nullptr, 10));
  }
  trace_fd = first_process ? open_trace(path) : -1;
  if (trace_fd < 0 && follow_exec) trace_fd = open_image_trace(path);
  if (trace_fd < 0) return report("image", pid);
  membarrier_ready = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  if (!membarrier_ready) blocks.set_shared();

  fmt::file_header h{};
  std::memcpy(h.magic, fmt::file_magic, sizeof h.magic);
  h.version = fmt::current_version;
  h.flags = timestamps ? fmt::flag_timestamps : 0;
  h.start_realtime_ns = monotonic_ns(CLOCK_REALTIME);
  h.start_monotonic_ns = start_monotonic_ns = monotonic_ns(CLOCK_MONOTONIC);
  h.pid = static_cast<std::uint32_t>(getpid());
  static char command[4096];
  std::size_t command_bytes = 0;
  if (const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC); fd >= 0) {
    const ssize_t n = read(fd, command, sizeof command);
    command_bytes = n > 0 ? static_cast<std::size_t>(n) : 0;
    close(fd);
  }
  h.command_bytes = static_cast<std::uint32_t>(command_bytes);
  const iovec parts[2] = {{&h, sizeof h}, {command, command_bytes}};
  if (!write_all(parts, 2)) return report("write-failed", errno);

  inside = true;
  const bool keyed = pthread_key_create(&thread_key, on_thread_exit) == 0;
  pthread_atfork(nullptr, nullptr, on_fork_child);
  inside = false;
  if (!keyed) return;
  recorded_pid = pid;
  report("recording", pid);
  finish_at_fatal_signals();
  recording.store(true, std::memory_order_release);
}

// At exit: stop, flush every thread that is not inside an event, write the footer.
void finish_recording() noexcept {
  if (!recording.load(std::memory_order_acquire)) return;
  recording.store(false, std::memory_order_seq_cst);
  if (membarrier_ready) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  inside = true;
  pthread_mutex_lock(&write_lock);
  thread_state* states = all_states;
  pthread_mutex_unlock(&write_lock);
  std::uint64_t events = 0, threads = 0, alive = 0, busy = 0;
  for (thread_state* st = states; st != nullptr; st = st->next_state) {
    ++threads;
    const bool quiet = st == current || (membarrier_ready && st->busy.load() == 0);
    if (!st->ended && quiet) {
      if (st != current) ++alive;
      st->cursor = st->committed;  // a signal may have come in the middle of an event
      end_thread(*st);
    } else if (!st->ended) {
      ++busy;
    }
    events += st->events;
  }
  std::uint8_t footer[8 * 10];
  std::uint8_t* p = footer;
  p = fmt::put_varint(p, events);
  p = fmt::put_varint(p, threads);
  p = fmt::put_varint(p, alive);
  p = fmt::put_varint(p, busy);
  p = fmt::put_varint(p, unknown_frees.load());
  p = fmt::put_varint(p, elapsed_us(CLOCK_MONOTONIC));
  p = fmt::put_varint(p, bootstrap_allocations.load());
  pthread_mutex_lock(&write_lock);
  write_chunk(0, 0, fmt::chunk_kind::footer, footer, static_cast<std::size_t>(p - footer));
  if (trace_fd >= 0) close(trace_fd);
  trace_fd = -1;
  pthread_mutex_unlock(&write_lock);
  inside = false;
}

// A fatal signal: finish the trace unless the recorder itself was interrupted (it may hold the
// write lock), then die of the signal (SA_RESETHAND restored the default action).
void on_fatal_signal(int signal) noexcept {
  const int saved = errno;
  if (is_recorded_process() && recording.load(std::memory_order_acquire)) {
    if (inside) {
      report("signal-lost", signal);
    } else {
      zstd_level = 0;  // stored raw: compressing could allocate inside a broken malloc
      finish_recording();
      report("signal-flushed", signal);
    }
  }
  errno = saved;
  raise(signal);
}

// Whether `signal`, sent to this process now, ends it without running any handler.
bool ends_process(int signal) noexcept {
  switch (signal) {
    case SIGHUP:
    case SIGINT:
    case SIGQUIT:
    case SIGILL:
    case SIGTRAP:
    case SIGABRT:
    case SIGBUS:
    case SIGFPE:
    case SIGKILL:
    case SIGUSR1:
    case SIGSEGV:
    case SIGUSR2:
    case SIGPIPE:
    case SIGALRM:
    case SIGTERM:
    case SIGXCPU:
    case SIGXFSZ:
    case SIGSYS:
      break;
    default:
      return false;
  }
  struct sigaction action {};
  sigset_t blocked;
  if (sigaction(signal, nullptr, &action) != 0 ||
      pthread_sigmask(SIG_BLOCK, nullptr, &blocked) != 0)
    return false;
  return signal == SIGKILL || (action.sa_handler == SIG_DFL && !sigismember(&blocked, signal));
}

// A program that kills itself (python re-raises SIGINT so after KeyboardInterrupt, with SIG_DFL):
// the trace is finished first.
void finish_before_own_signal(int signal) noexcept {
  if (!is_recorded_process() || !recording.load(std::memory_order_acquire) || inside ||
      !ends_process(signal))
    return;
  finish_recording();
  report("signal-flushed", signal);
}

// Before an exec: the new image replaces this one without running its destructors.
void finish_before_exec() noexcept {
  if (!is_recorded_process() || !recording.load(std::memory_order_acquire)) return;
  finish_recording();
  report("exec", recorded_pid);
}

template <class F>
F* next_function(const char* name) noexcept {
  return reinterpret_cast<F*>(dlsym(RTLD_NEXT, name));
}

__attribute__((constructor(101))) void on_load() noexcept {
  start_recording();
}
__attribute__((destructor(101))) void on_unload() noexcept {
  finish_recording();
}

}  // namespace
}  // namespace alloclab::record

using namespace alloclab::record;
namespace fmt = alloclab::trace_format;

ALLOCLAB_EXPORT void* malloc(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size);
  event_scope scope;
  void* p = next.malloc(size);
  if (thread_state* st = scope.state()) record_malloc(*st, p, size);
  return p;
}

ALLOCLAB_EXPORT void free(void* p) noexcept {
  if (p == nullptr || in_bootstrap(p)) return;
  if (!ready()) return;
  event_scope scope;
  if (thread_state* st = scope.state()) record_free(*st, p);
  next.free(p);
}

ALLOCLAB_EXPORT void* calloc(size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (!ready()) return bootstrap_alloc(bytes);  // static memory is already zero
  event_scope scope;
  void* p = next.calloc(count, size);
  if (thread_state* st = scope.state()) record_new(*st, fmt::op::calloc, p, bytes);
  return p;
}

ALLOCLAB_EXPORT void* realloc(void* old, size_t size) noexcept {
  if (in_bootstrap(old) || !ready()) {
    void* p = ready() ? malloc(size) : bootstrap_alloc(size);
    if (p != nullptr && old != nullptr) {
      const size_t old_size = bootstrap_size(old);
      std::memcpy(p, old, old_size < size ? old_size : size);
    }
    return p;
  }
  event_scope scope;
  thread_state* st = scope.state();
  // The old block's entry goes before the call: once realloc returns, another thread may get
  // the same address from malloc.
  std::uint64_t key = 0;
  const bool known =
      st != nullptr && old != nullptr && blocks.remove(reinterpret_cast<std::uintptr_t>(old), key);
  void* p = next.realloc(old, size);
  if (st == nullptr) return p;
  if (p == nullptr && old != nullptr && size == 0) {
    put_free(*st, known, key);  // glibc's realloc(p, 0) frees: recorded as the free it is
  } else if (p == nullptr) {
    if (known) blocks.insert(reinterpret_cast<std::uintptr_t>(old), key);  // old block lives on
    put_op(*st, fmt::op::failed);
    put(*st, static_cast<std::uint64_t>(fmt::op::realloc));
    put(*st, size);
  } else {
    put_op(*st, fmt::op::realloc);
    put_ref(*st, old, known, key);
    new_block(*st, p);
    put_size(*st, size);
  }
  event_done(*st);
  return p;
}

// glibc's reallocarray calls its realloc directly, past any interposer: route it through ours.
ALLOCLAB_EXPORT void* reallocarray(void* old, size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(old, bytes);
}

ALLOCLAB_EXPORT void* memalign(size_t alignment, size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size, alignment);
  event_scope scope;
  void* p = next.memalign(alignment, size);
  if (thread_state* st = scope.state()) record_new(*st, fmt::op::memalign, p, size, alignment);
  return p;
}

ALLOCLAB_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (!ready()) {
    *out = bootstrap_alloc(size, alignment);
    return *out == nullptr ? ENOMEM : 0;
  }
  event_scope scope;
  const int rc = next.posix_memalign(out, alignment, size);
  if (thread_state* st = scope.state(); st != nullptr && rc != EINVAL)
    record_new(*st, fmt::op::posix_memalign, rc == 0 ? *out : nullptr, size, alignment);
  return rc;
}

ALLOCLAB_EXPORT void* aligned_alloc(size_t alignment, size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size, alignment);
  event_scope scope;
  void* p = next.aligned_alloc(alignment, size);
  if (thread_state* st = scope.state()) record_new(*st, fmt::op::aligned_alloc, p, size, alignment);
  return p;
}

ALLOCLAB_EXPORT void* valloc(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size, 4096);
  event_scope scope;
  void* p = next.valloc(size);
  if (thread_state* st = scope.state()) record_new(*st, fmt::op::valloc, p, size);
  return p;
}

ALLOCLAB_EXPORT void* pvalloc(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc((size + 4095) & ~size_t{4095}, 4096);
  event_scope scope;
  void* p = next.pvalloc(size);
  if (thread_state* st = scope.state()) record_new(*st, fmt::op::pvalloc, p, size);
  return p;
}

// A program that ends with _exit (shells do) runs no destructors: finish the trace first (not in
// a vfork child, which shares the recorded process's memory).
ALLOCLAB_EXPORT __attribute__((noreturn)) void _exit(int status) {
  if (is_recorded_process()) finish_recording();
  static auto* next_exit = reinterpret_cast<void (*)(int)>(dlsym(RTLD_NEXT, "_exit"));
  if (next_exit != nullptr) next_exit(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

ALLOCLAB_EXPORT __attribute__((noreturn)) void _Exit(int status) {
  _exit(status);
}

// The exec family replaces the image without running destructors (a shell runs its last command
// so; env and other launchers exec theirs): the trace is finished first, and the new image
// records nothing. (glibc's execl* call its internal execve and are not seen.)
using exec_with_env = int(const char*, char* const[], char* const[]);
using exec_without_env = int(const char*, char* const[]);

ALLOCLAB_EXPORT int kill(pid_t pid, int signal) noexcept {
  if (pid == recorded_pid) finish_before_own_signal(signal);
  static auto* next_kill = next_function<int(pid_t, int)>("kill");
  return next_kill(pid, signal);
}

ALLOCLAB_EXPORT int raise(int signal) noexcept {
  finish_before_own_signal(signal);
  static auto* next_raise = next_function<int(int)>("raise");
  return next_raise(signal);
}

ALLOCLAB_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  finish_before_exec();
  static auto* next_execve = next_function<exec_with_env>("execve");
  return next_execve(path, argv, envp);
}

ALLOCLAB_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  finish_before_exec();
  static auto* next_execvpe = next_function<exec_with_env>("execvpe");
  return next_execvpe(file, argv, envp);
}

ALLOCLAB_EXPORT int execv(const char* path, char* const argv[]) {
  finish_before_exec();
  static auto* next_execv = next_function<exec_without_env>("execv");
  return next_execv(path, argv);
}

ALLOCLAB_EXPORT int execvp(const char* file, char* const argv[]) {
  finish_before_exec();
  static auto* next_execvp = next_function<exec_without_env>("execvp");
  return next_execvp(file, argv);
}

ALLOCLAB_EXPORT size_t malloc_usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  if (in_bootstrap(p)) return bootstrap_size(p);
  if (!ready() || next.malloc_usable_size == nullptr) return 0;
  event_scope scope;
  if (thread_state* st = scope.state()) {
    std::uint64_t key = 0;
    const bool known = blocks.find(reinterpret_cast<std::uintptr_t>(p), key);
    put_op(*st, fmt::op::usable_size);
    put_ref(*st, p, known, key);
    event_done(*st);
  }
  return next.malloc_usable_size(p);
}
