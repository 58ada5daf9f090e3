/* liballoclab_newlib.so and liballoclab_newlib_nano.so: newlib's malloc (mallocr.c, dlmalloc 2.6.4
 * adapted) and newlib-nano's (nano-mallocr.c, the first-fit free list Cortex-M firmware built with
 * arm-none-eabi-gcc --specs=nano.specs links) as the process-wide malloc of a glibc host, for
 * LD_PRELOAD. ALLOCLAB_NEWLIB_NANO (0 or 1) picks which.
 *
 * Neither source is in this repository: CMake takes them out of Debian's newlib-source tarball.
 * Each is compiled here as newlib compiles it (INTERNAL_NEWLIB: _malloc_r and friends, taking the
 * reentrancy struct), against newlib_host/'s stand-in <reent.h>, and given the system hooks a
 * newlib port gives it:
 *
 * | newlib hook        | here                                                               |
 * |--------------------|--------------------------------------------------------------------|
 * | _sbrk_r            | grows a break inside one reserved mmap region (no other sbrk user) |
 * | __malloc_lock/...  | one recursive pthread mutex (newlib's lock is recursive)           |
 * | struct _reent      | one per thread; its errno is copied to the C library's errno       |
 *
 * One deviation, nano's only: it aligns blocks to 8 bytes (MALLOC_ALIGN), the x86-64 ABI wants 16
 * (SSE stores into malloc'd memory), so its malloc is _memalign_r(16), up to 8 more bytes a block,
 * and calloc and realloc are built on that malloc (nano's own would call its 8-aligned one).
 * mallocr.c aligns to 16 on a 64-bit host by itself. Built with -fno-builtin: GCC would turn
 * calloc's malloc+memset back into a call to calloc. */
#define _GNU_SOURCE 1 /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#define INTERNAL_NEWLIB 1
#define DEFINE_MALLOC 1
#define DEFINE_FREE 1
#define DEFINE_CALLOC 1
#define DEFINE_REALLOC 1
#define DEFINE_MEMALIGN 1
#define DEFINE_MALLOC_USABLE_SIZE 1
#define DEFINE_MALLINFO 1
#if ALLOCLAB_NEWLIB_NANO
#include "nano-mallocr.c"
#else
#include "mallocr.c"
/* mallocr.c renames these to its _r entry points; this file defines the C library's names. */
#undef malloc_usable_size
#undef malloc_trim
#undef malloc_stats
#endif

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#define ALLOCLAB_EXPORT __attribute__((visibility("default")))

/* The break: one region reserved at the first call; a negative increment (newlib's trim) gives
 * the whole pages past the new break back to the kernel. */
static const size_t region_bytes = (size_t)64 << 30;
enum { page_bytes = 4096 };
static char* region_start;
static size_t region_used;

static void* no_memory(struct _reent* reent) {
  reent->_errno = ENOMEM;
  return (void*)-1;
}

void* _sbrk_r(struct _reent* reent, ptrdiff_t increment) {
  if (region_start == NULL) {
    void* p = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return no_memory(reent);
    region_start = p;
  }
  char* old_break = region_start + region_used;
  if (increment >= 0) {
    if ((size_t)increment > region_bytes - region_used) return no_memory(reent);
    region_used += (size_t)increment;
    return old_break;
  }
  const size_t shrink = (size_t)0 - (size_t)increment;
  if (shrink > region_used) return no_memory(reent);
  region_used -= shrink;
  const uintptr_t first_page =
      ((uintptr_t)(region_start + region_used) + page_bytes - 1) & ~(uintptr_t)(page_bytes - 1);
  if (first_page < (uintptr_t)old_break)
    madvise((void*)first_page, (uintptr_t)old_break - first_page, MADV_DONTNEED);
  return old_break;
}

static pthread_mutex_t heap_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void __malloc_lock(struct _reent* reent) {
  (void)reent;
  pthread_mutex_lock(&heap_lock);
}

void __malloc_unlock(struct _reent* reent) {
  (void)reent;
  pthread_mutex_unlock(&heap_lock);
}

static __thread __attribute__((tls_model("initial-exec"))) struct _reent thread_reent;

/* Runs `call` with this thread's reentrancy struct and hands its errno on. */
#define WITH_REENT(result, call)                               \
  do {                                                         \
    thread_reent._errno = 0;                                   \
    result = call;                                             \
    if (thread_reent._errno != 0) errno = thread_reent._errno; \
  } while (0)

enum { abi_alignment = 16 };

ALLOCLAB_EXPORT void* malloc(size_t bytes) {
  void* p;
#if ALLOCLAB_NEWLIB_NANO
  WITH_REENT(p, _memalign_r(&thread_reent, abi_alignment, bytes));
#else
  WITH_REENT(p, _malloc_r(&thread_reent, bytes));
#endif
  return p;
}

ALLOCLAB_EXPORT void free(void* block) {
  if (block != NULL) _free_r(&thread_reent, block);
}

ALLOCLAB_EXPORT size_t malloc_usable_size(void* block) {
  return block == NULL ? 0 : _malloc_usable_size_r(&thread_reent, block);
}

#if ALLOCLAB_NEWLIB_NANO
ALLOCLAB_EXPORT void* calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  void* p = malloc(count * size);
  if (p != NULL) memset(p, 0, count * size);
  return p;
}

ALLOCLAB_EXPORT void* realloc(void* block, size_t bytes) {
  if (block == NULL) return malloc(bytes);
  if (bytes == 0) {
    free(block);
    return NULL;
  }
  /* nano's own realloc: keep the block when it is big enough, else copy into a fresh malloc. */
  const size_t old_bytes = malloc_usable_size(block);
  if (old_bytes >= bytes) return block;
  void* moved = malloc(bytes);
  if (moved == NULL) return NULL;
  memcpy(moved, block, old_bytes);
  free(block);
  return moved;
}
#else
ALLOCLAB_EXPORT void* calloc(size_t count, size_t size) {
  void* p;
  WITH_REENT(p, _calloc_r(&thread_reent, count, size));
  return p;
}

ALLOCLAB_EXPORT void* realloc(void* block, size_t bytes) {
  void* p;
  WITH_REENT(p, _realloc_r(&thread_reent, block, bytes));
  return p;
}

/* The purge: newlib's malloc_trim gives the top of its break back (here: the region's end). */
ALLOCLAB_EXPORT int alloclab_newlib_trim(size_t pad) {
  return _malloc_trim_r(&thread_reent, pad);
}
#endif

ALLOCLAB_EXPORT void* memalign(size_t alignment, size_t bytes) {
  void* p;
  WITH_REENT(
      p, _memalign_r(&thread_reent, alignment < abi_alignment ? abi_alignment : alignment, bytes));
  return p;
}

ALLOCLAB_EXPORT int posix_memalign(void** out, size_t alignment, size_t bytes) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = memalign(alignment, bytes);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

ALLOCLAB_EXPORT void* aligned_alloc(size_t alignment, size_t bytes) {
  return memalign(alignment, bytes);
}

ALLOCLAB_EXPORT void* valloc(size_t bytes) {
  return memalign(page_bytes, bytes);
}

ALLOCLAB_EXPORT void* pvalloc(size_t bytes) {
  return memalign(page_bytes, (bytes + page_bytes - 1) & ~(size_t)(page_bytes - 1));
}

/* The proof symbol and a statistic: the bytes the malloc holds from its break. */
ALLOCLAB_EXPORT size_t alloclab_newlib_heap_bytes(void) {
  __malloc_lock(&thread_reent);
  const size_t used = region_used;
  __malloc_unlock(&thread_reent);
  return used;
}
