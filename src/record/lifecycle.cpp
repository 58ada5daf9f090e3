#include "lifecycle.hpp"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bootstrap_allocator.hpp"
#include "chunk_writer.hpp"
#include "encoder.hpp"
#include "next_malloc.hpp"
#include "threads.hpp"

namespace alloclab::record {

namespace {

void on_fatal_signal(int signal) noexcept;
void on_fork_child() noexcept;

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

// Read once, when the library loads: the program may change its environment before it forks.
char trace_path[4096];
bool follow_exec = false;
bool follow_fork = false;

bool read_settings() noexcept {
  const char* path = getenv("ALLOCLAB_RECORD_FILE");
  if (path == nullptr || *path == '\0' || std::strlen(path) >= sizeof trace_path) return false;
  std::memcpy(trace_path, path, std::strlen(path) + 1);
  if (const char* fd = getenv("ALLOCLAB_RECORD_STATUS_FD"); fd != nullptr)
    status_fd = static_cast<int>(std::strtol(fd, nullptr, 10));
  const auto on = [](const char* name) {
    const char* value = getenv(name);
    return value != nullptr && *value == '1';
  };
  follow_exec = on("ALLOCLAB_RECORD_FOLLOW_EXEC");
  follow_fork = on("ALLOCLAB_RECORD_FOLLOW_FORK");
  if (const char* t = getenv("ALLOCLAB_RECORD_TIMESTAMPS"); t != nullptr) timestamps = *t != '0';
  if (const char* z = getenv("ALLOCLAB_RECORD_ZSTD"); z != nullptr)
    zstd_level = static_cast<int>(std::strtol(z, nullptr, 10));
  return true;
}

// The environment a rerun of the program needs and no secret: locale, search paths and the
// variables of interpreters and thread pools. Malloc tuning is left out (`try` sets its own).
bool context_variable(const char* entry) noexcept {
  static constexpr const char* prefixes[] = {"LANG=",
                                             "LANGUAGE=",
                                             "LC_",
                                             "TZ=",
                                             "PATH=",
                                             "HOME=",
                                             "LD_LIBRARY_PATH=",
                                             "PYTHON",
                                             "OMP_",
                                             "MKL_",
                                             "GOMAXPROCS=",
                                             "GOGC=",
                                             "OPENBLAS_NUM_THREADS="};
  for (const char* prefix : prefixes)
    if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

// Appends "KEY" + value + NUL when it fits; false when it does not.
bool append_entry(char* out, std::size_t& used, const char* key, const char* value) noexcept {
  const std::size_t k = std::strlen(key), v = std::strlen(value);
  if (used + k + v + 1 > fmt::max_context_bytes) return false;
  std::memcpy(out + used, key, k);
  std::memcpy(out + used + k, value, v + 1);
  used += k + v + 1;
  return true;
}

// The context block (format version 4): the working directory, stdin when it is a regular file,
// the variables context_variable keeps. Entries that do not fit are left out.
std::size_t write_context(char* out) noexcept {
  std::size_t used = 0;
  static char path[4096];
  if (getcwd(path, sizeof path) != nullptr) append_entry(out, used, "cwd=", path);
  struct stat st {};
  if (fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
    const ssize_t n = readlink("/proc/self/fd/0", path, sizeof path - 1);
    if (n > 0 && path[0] == '/') {
      path[n] = '\0';
      append_entry(out, used, "stdin=", path);
    }
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (context_variable(*e)) append_entry(out, used, "env=", *e);
  return used;
}

bool write_header(fmt::image_origin origin) noexcept {
  fmt::file_header h{};
  std::memcpy(h.magic, fmt::file_magic, sizeof h.magic);
  h.version = fmt::current_version;
  h.flags = timestamps ? fmt::flag_timestamps : 0;
  h.start_realtime_ns = monotonic_ns(CLOCK_REALTIME);
  h.start_monotonic_ns = start_monotonic_ns = monotonic_ns(CLOCK_MONOTONIC);
  h.pid = static_cast<std::uint32_t>(getpid());
  h.parent_pid = static_cast<std::uint32_t>(getppid());
  h.origin = static_cast<std::uint8_t>(origin);
  static char command[4096];
  std::size_t command_bytes = 0;
  if (const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC); fd >= 0) {
    const ssize_t n = read(fd, command, sizeof command);
    command_bytes = n > 0 ? static_cast<std::size_t>(n) : 0;
    close(fd);
  }
  h.command_bytes = static_cast<std::uint32_t>(command_bytes);
  static char context[fmt::max_context_bytes];
  const std::size_t context_bytes = write_context(context);
  h.context_bytes = static_cast<std::uint32_t>(context_bytes);
  const iovec parts[3] = {{&h, sizeof h}, {command, command_bytes}, {context, context_bytes}};
  if (write_all(parts, 3)) return true;
  report("write-failed", errno);
  close(trace_fd);
  trace_fd = -1;
  return false;
}

// This image's trace: TRACE for the program record started (unless an earlier image of the same
// process wrote it: an exec that kept the pid), else the next free TRACE.N.
void start_image(bool record_started_it, bool forked) noexcept {
  const long pid = static_cast<long>(getpid());
  fmt::image_origin origin = forked ? fmt::image_origin::fork : fmt::image_origin::exec;
  trace_fd = -1;
  if (record_started_it && (trace_fd = open_trace(trace_path)) >= 0)
    origin = fmt::image_origin::started;
  if (trace_fd < 0 && (forked || follow_exec)) trace_fd = open_image_trace(trace_path);
  if (trace_fd < 0) return report("image", pid);
  membarrier_ready = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  threads_share.store(!membarrier_ready);
  if (!write_header(origin)) return;
  recorded_pid = pid;
  report("recording", pid);
  recording.store(true, std::memory_order_release);
}

// fork: the child's copy of the buffers belongs to the parent's trace. It records nothing, or
// (--follow-fork) starts a trace of its own with no thread and no block: the blocks it inherited
// are unknown pointers to it.
void on_fork_child() noexcept {
  const bool was_recording = recording.exchange(false, std::memory_order_relaxed);
  if (trace_fd >= 0) close(trace_fd);
  trace_fd = -1;
  restart_writer_in_child();
  if (!was_recording || !follow_fork) return;
  forget_all_threads();
  start_image(false, true);
}

void start_recording() noexcept {
  if (!ready() || !read_settings()) return;
  const char* wanted = getenv("ALLOCLAB_RECORD_PID");
  const bool record_started_it =
      wanted == nullptr || std::strtol(wanted, nullptr, 10) == static_cast<long>(getpid());
  bool keyed = false;
  {
    const inside_recorder unrecorded;
    keyed = pthread_key_create(&thread_key, on_thread_exit) == 0;
    pthread_atfork(nullptr, nullptr, on_fork_child);
  }
  if (!keyed) return report("image", static_cast<long>(getpid()));
  size_compressors();
  finish_at_fatal_signals();
  start_image(record_started_it, false);
}

}  // namespace

void finish_recording() noexcept {
  if (!recording.load(std::memory_order_acquire)) return;
  recording.store(false, std::memory_order_seq_cst);
  if (membarrier_ready) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  const inside_recorder unrecorded;
  std::uint64_t events = 0, threads = 0, alive = 0, busy = 0;
  for (thread_state* st = all_states.load(std::memory_order_acquire); st != nullptr;
       st = st->next_state) {
    ++threads;
    const bool quiet = st == own_state || (membarrier_ready && st->busy.load() == 0);
    if (!st->ended && quiet) {
      if (st != own_state) ++alive;
      end_thread(*st);
    } else if (!st->ended) {
      ++busy;
    }
    events += st->events();
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
  write_footer_and_close(footer, static_cast<std::size_t>(p - footer));
}

namespace {

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

}  // namespace

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

namespace {

__attribute__((constructor(101))) void on_load() noexcept {
  start_recording();
}
__attribute__((destructor(101))) void on_unload() noexcept {
  finish_recording();
}

}  // namespace

}  // namespace alloclab::record
