// liballoclab_record.so: an LD_PRELOAD interposer that records the malloc family into an alloclab
// trace (docs/trace-format.md). `alloclab record` sets it up; by itself it is inert.
//
// Environment (set by `alloclab record`):
//   ALLOCLAB_RECORD_FILE  the trace to write; unset = record nothing
//   ALLOCLAB_RECORD_PID   the recorded process: its first image writes ALLOCLAB_RECORD_FILE
//   ALLOCLAB_RECORD_FOLLOW_EXEC=1  every other image (exec'd by the recorded process or by any
//                         descendant) writes its own trace, ALLOCLAB_RECORD_FILE.N, N = 1, 2...
//                         in order of start; unset = other images record nothing
//   ALLOCLAB_RECORD_FOLLOW_FORK=1  a process forked by a recording one (without exec) records into
//                         a trace of its own, numbered the same way; unset = it records nothing
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
// a lock: each thread keeps the blocks it allocated in a table of its own, and only a free of
// another thread's block takes that thread's table lock. The trace is also finished (footer written)
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

namespace {

// The hooks' fast path needs `current` (this thread records) and the busy flag (enter/leave);
// everything else (no state yet, before the next malloc is known, the recorder's own calls,
// bootstrap blocks) goes through these, which call the hook again once the thread has a state.

bool outside_bootstrap(const void* p) noexcept {
  return static_cast<std::size_t>(static_cast<const unsigned char*>(p) - bootstrap) >=
         bootstrap_bytes;
}

__attribute__((noinline)) void* malloc_slow(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size);
  if (state_for_slow_path() == nullptr) return next.malloc(size);
  return malloc(size);
}

__attribute__((noinline)) void free_slow(void* p) noexcept {
  if (p == nullptr || in_bootstrap(p) || !ready()) return;
  if (state_for_slow_path() == nullptr) {
    forget_after_end(p);
    return next.free(p);
  }
  free(p);
}

__attribute__((noinline)) void* calloc_slow(size_t count, size_t size, size_t bytes) noexcept {
  if (!ready()) return bootstrap_alloc(bytes);  // static memory is already zero
  if (state_for_slow_path() == nullptr) return next.calloc(count, size);
  return calloc(count, size);
}

// realloc of a bootstrap block (or before the next malloc is known): a new block and a copy.
__attribute__((noinline)) void* realloc_slow(void* old, size_t size) noexcept {
  if (!in_bootstrap(old) && ready()) {
    if (state_for_slow_path() == nullptr) {
      forget_after_end(old);
      return next.realloc(old, size);
    }
    return realloc(old, size);
  }
  void* p = ready() ? malloc(size) : bootstrap_alloc(size);
  if (p != nullptr && old != nullptr) {
    const size_t old_size = bootstrap_size(old);
    std::memcpy(p, old, old_size < size ? old_size : size);
  }
  return p;
}

// The state to record an allocation of the memalign family or valloc into (null: pass through).
thread_state* state_for_rare_call() noexcept {
  thread_state* st = current;
  if (st == nullptr) st = state_for_slow_path();
  return st != nullptr && enter(*st) ? st : nullptr;
}

void record_realloc(thread_state& st, void* old, block_ref block, void* p, size_t size) noexcept {
  if (p == nullptr && old != nullptr && size == 0) {
    commit(st, put_free(st, st.cursor, block));  // glibc's realloc(p, 0) frees: recorded so
  } else if (p == nullptr) {
    // The old block lives on. (Another thread's block cannot go back into that thread's table:
    // a later free of it is recorded as a free of an unknown pointer.)
    if (block.owner == &st) st.blocks.insert(reinterpret_cast<std::uintptr_t>(old), block.entry);
    record_failed(st, static_cast<std::uint64_t>(fmt::op::realloc), size);
  } else {
    std::uint8_t* out = put_ref(st, put_op(st.cursor, fmt::op::realloc), old, block);
    st.blocks.insert(reinterpret_cast<std::uintptr_t>(p), next_block(st));
    commit(st, put_size(st, out, size));
  }
}

// malloc's and calloc's paths off the common one; each leaves the thread and returns the block.
__attribute__((noinline)) void* allocation_after_publish(thread_state& st, void* p) noexcept {
  after_publish(st);
  leave(st);
  return p;
}

__attribute__((noinline)) void* allocation_failed(thread_state& st, std::uint64_t kind,
                                                  size_t size) noexcept {
  record_failed(st, kind, size);
  leave(st);
  return nullptr;
}

// The table could not grow (no memory for it): the block is recorded, its free will be unknown.
__attribute__((noinline)) void* allocation_without_room(thread_state& st, void* p, size_t size,
                                                        std::uint64_t kind) noexcept {
  if (p == nullptr) return allocation_failed(st, kind, size);
  next_block(st);
  std::uint8_t* out = st.cursor;
  if (kind != fmt::malloc_kind) out = put_op(out, static_cast<fmt::op>(kind));
  commit(st, kind == fmt::malloc_kind ? put_size(st, out, size, 2, 1) : put_size(st, out, size));
  leave(st);
  return p;
}
__attribute__((noinline)) void* malloc_without_room(thread_state& st, size_t size) noexcept {
  return allocation_without_room(st, next.malloc(size), size, fmt::malloc_kind);
}
__attribute__((noinline)) void* calloc_without_room(thread_state& st, size_t count, size_t size,
                                                    size_t bytes) noexcept {
  return allocation_without_room(st, next.calloc(count, size), bytes,
                                 static_cast<std::uint64_t>(fmt::op::calloc));
}

// free's paths off the common one (this thread's block, a table that fits in the cache, no tick
// due); each ends with the thread left and the real free as a tail call.
__attribute__((noinline)) void free_after_publish(thread_state& st, void* p) noexcept {
  after_publish(st);
  leave(st);
  next.free(p);
}

// After the recording stopped: a bootstrap block is not the next malloc's.
__attribute__((noinline)) void free_unrecorded(void* p) noexcept {
  if (!in_bootstrap(p)) next.free(p);
}

// Not this thread's block: a bootstrap block (not recorded), another thread's (taken out of its
// table first: once freed, another thread may get `p` from malloc), or unknown.
__attribute__((noinline)) void free_other(thread_state& st, void* p) noexcept {
  if (in_bootstrap(p)) return leave(st);
  const block_ref block = threads_share.load(std::memory_order_relaxed)
                              ? take_foreign_block(st, reinterpret_cast<std::uintptr_t>(p))
                              : block_ref{};
  commit(st, put_other_free(st, st.cursor, block));
  leave(st);
  next.free(p);
}

// A table too big for the cache, in a process with one recording thread: nobody can get `p`
// back before its entry goes, so the entry's (likely cache-missing) slot loads while the real
// free runs.
__attribute__((noinline)) void free_from_big_table(thread_state& st, void* p) noexcept {
  if (in_bootstrap(p)) return leave(st);
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  if (threads_share.load(std::memory_order_relaxed)) {
    const block_ref block = take_block(st, key);
    next.free(p);
    commit(st, put_free(st, st.cursor, block));
  } else {
    st.blocks.prefetch(key);
    next.free(p);
    const std::uint64_t entry = st.blocks.take(key);
    commit(st, put_free(st, st.cursor,
                        entry == block_table::absent ? block_ref{} : block_ref{&st, entry}));
  }
  leave(st);
}

}  // namespace

// The table makes room before the real call, so that nothing on the common path after it calls
// a function: malloc keeps only the state and the size across the call.
ALLOCLAB_EXPORT void* malloc(size_t size) noexcept {
  thread_state* st = current;
  if (__builtin_expect(st == nullptr, 0)) return malloc_slow(size);
  if (__builtin_expect(!enter(*st), 0)) return next.malloc(size);
  if (__builtin_expect(!st->blocks.reserve(), 0)) return malloc_without_room(*st, size);
  void* p = next.malloc(size);
  if (__builtin_expect(p == nullptr, 0)) return allocation_failed(*st, fmt::malloc_kind, size);
  if (__builtin_expect(record_malloc(*st, p, size), 0)) return allocation_after_publish(*st, p);
  leave(*st);
  return p;
}

// This thread's block: its entry goes, then the event, then the real free (a tail call). Any
// other block (a bootstrap one, another thread's, unknown) misses the table: a negative age.
ALLOCLAB_EXPORT void free(void* p) noexcept {
  thread_state* st = current;
  if (__builtin_expect(st == nullptr || p == nullptr, 0)) return free_slow(p);
  if (__builtin_expect(!enter(*st), 0)) return free_unrecorded(p);
  if (__builtin_expect(st->blocks.big(), 0)) return free_from_big_table(*st, p);
  const auto age =
      static_cast<std::int64_t>(age_of(*st, st->blocks.take(reinterpret_cast<std::uintptr_t>(p))));
  if (__builtin_expect(age < 0, 0)) return free_other(*st, p);
  if (__builtin_expect(publish(*st, put(st->cursor, static_cast<std::uint64_t>(age) << 1)), 0))
    return free_after_publish(*st, p);
  leave(*st);
  next.free(p);
}

ALLOCLAB_EXPORT void* calloc(size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  thread_state* st = current;
  if (__builtin_expect(st == nullptr, 0)) return calloc_slow(count, size, bytes);
  if (__builtin_expect(!enter(*st), 0)) return next.calloc(count, size);
  if (__builtin_expect(!st->blocks.reserve(), 0))
    return calloc_without_room(*st, count, size, bytes);
  void* p = next.calloc(count, size);
  if (__builtin_expect(p == nullptr, 0))
    return allocation_failed(*st, static_cast<std::uint64_t>(fmt::op::calloc), bytes);
  if (__builtin_expect(record_calloc(*st, p, bytes), 0)) return allocation_after_publish(*st, p);
  leave(*st);
  return p;
}

ALLOCLAB_EXPORT void* realloc(void* old, size_t size) noexcept {
  thread_state* st = current;
  if (__builtin_expect(st == nullptr || !outside_bootstrap(old), 0)) return realloc_slow(old, size);
  if (__builtin_expect(!enter(*st), 0)) return next.realloc(old, size);
  // The old block's entry goes before the call: once realloc returns, another thread may get
  // the same address from malloc.
  const block_ref block =
      old != nullptr ? take_block(*st, reinterpret_cast<std::uintptr_t>(old)) : block_ref{};
  void* p = next.realloc(old, size);
  record_realloc(*st, old, block, p, size);
  leave(*st);
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
  thread_state* st = state_for_rare_call();
  void* p = next.memalign(alignment, size);
  if (st != nullptr) {
    record_new(*st, fmt::op::memalign, p, size, alignment);
    leave(*st);
  }
  return p;
}

ALLOCLAB_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (!ready()) {
    *out = bootstrap_alloc(size, alignment);
    return *out == nullptr ? ENOMEM : 0;
  }
  thread_state* st = state_for_rare_call();
  const int rc = next.posix_memalign(out, alignment, size);
  if (st != nullptr) {
    if (rc != EINVAL)
      record_new(*st, fmt::op::posix_memalign, rc == 0 ? *out : nullptr, size, alignment);
    leave(*st);
  }
  return rc;
}

ALLOCLAB_EXPORT void* aligned_alloc(size_t alignment, size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size, alignment);
  thread_state* st = state_for_rare_call();
  void* p = next.aligned_alloc(alignment, size);
  if (st != nullptr) {
    record_new(*st, fmt::op::aligned_alloc, p, size, alignment);
    leave(*st);
  }
  return p;
}

ALLOCLAB_EXPORT void* valloc(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc(size, 4096);
  thread_state* st = state_for_rare_call();
  void* p = next.valloc(size);
  if (st != nullptr) {
    record_new(*st, fmt::op::valloc, p, size);
    leave(*st);
  }
  return p;
}

ALLOCLAB_EXPORT void* pvalloc(size_t size) noexcept {
  if (!ready()) return bootstrap_alloc((size + 4095) & ~size_t{4095}, 4096);
  thread_state* st = state_for_rare_call();
  void* p = next.pvalloc(size);
  if (st != nullptr) {
    record_new(*st, fmt::op::pvalloc, p, size);
    leave(*st);
  }
  return p;
}

next_symbol<void(int)> next__exit{"_exit"};
next_symbol<int(pid_t, int)> next_kill{"kill"};
next_symbol<int(int)> next_raise{"raise"};

// A program that ends with _exit (shells do) runs no destructors: finish the trace first (not in
// a vfork child, which shares the recorded process's memory).
ALLOCLAB_EXPORT __attribute__((noreturn)) void _exit(int status) {
  if (is_recorded_process()) finish_recording();
  if (auto* next_exit = next__exit.get()) next_exit(status);
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
next_symbol<exec_with_env> next_execve{"execve"}, next_execvpe{"execvpe"};
next_symbol<exec_without_env> next_execv{"execv"}, next_execvp{"execvp"};

ALLOCLAB_EXPORT int kill(pid_t pid, int signal) noexcept {
  if (pid == recorded_pid) finish_before_own_signal(signal);
  return next_kill.get()(pid, signal);
}

ALLOCLAB_EXPORT int raise(int signal) noexcept {
  finish_before_own_signal(signal);
  return next_raise.get()(signal);
}

ALLOCLAB_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  finish_before_exec();
  return next_execve.get()(path, argv, envp);
}

ALLOCLAB_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  finish_before_exec();
  return next_execvpe.get()(file, argv, envp);
}

ALLOCLAB_EXPORT int execv(const char* path, char* const argv[]) {
  finish_before_exec();
  return next_execv.get()(path, argv);
}

ALLOCLAB_EXPORT int execvp(const char* file, char* const argv[]) {
  finish_before_exec();
  return next_execvp.get()(file, argv);
}

ALLOCLAB_EXPORT size_t malloc_usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  if (in_bootstrap(p)) return bootstrap_size(p);
  if (!ready() || next.malloc_usable_size == nullptr) return 0;
  if (thread_state* st = state_for_rare_call()) {
    const block_ref block = find_block(*st, reinterpret_cast<std::uintptr_t>(p));
    commit(*st, put_ref(*st, put_op(st->cursor, fmt::op::usable_size), p, block));
    leave(*st);
  }
  return next.malloc_usable_size(p);
}
