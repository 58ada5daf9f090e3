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
// The hooks (this file) forward to the next malloc (next_malloc) and record through the
// thread-local path (threads, encoder) into the chunk writer; bootstrap_allocator serves calls
// made before the next malloc is known; lifecycle starts and finishes the recording.
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
#include <errno.h>
#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "bootstrap_allocator.hpp"
#include "encoder.hpp"
#include "lifecycle.hpp"
#include "next_malloc.hpp"
#include "threads.hpp"

#define ALLOCLAB_EXPORT extern "C" __attribute__((visibility("default")))

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
  thread_state* st = scope.state();
  if (st != nullptr && !blocks().shared()) {
    // One recording thread: nobody can get `p` back before its entry goes, so the table's
    // (likely cache-missing) slot is fetched while the real free runs.
    blocks().prefetch(reinterpret_cast<std::uintptr_t>(p));
    next.free(p);
    record_free(*st, p);
    return;
  }
  // Shared: the entry goes first, since once freed another thread may get `p` from malloc.
  if (st != nullptr) record_free(*st, p);
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
  const bool known = st != nullptr && old != nullptr &&
                     blocks().remove(reinterpret_cast<std::uintptr_t>(old), key);
  void* p = next.realloc(old, size);
  if (st == nullptr) return p;
  if (p == nullptr && old != nullptr && size == 0) {
    put_free(*st, known, key);  // glibc's realloc(p, 0) frees: recorded as the free it is
  } else if (p == nullptr) {
    if (known) blocks().insert(reinterpret_cast<std::uintptr_t>(old), key);  // old block lives on
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
    const bool known = blocks().find(reinterpret_cast<std::uintptr_t>(p), key);
    put_op(*st, fmt::op::usable_size);
    put_ref(*st, p, known, key);
    event_done(*st);
  }
  return next.malloc_usable_size(p);
}
