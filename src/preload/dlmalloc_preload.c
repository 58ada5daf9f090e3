/* liballoclab_dlmalloc.so: Doug Lea's dlmalloc 2.8.6 as the process-wide malloc, for LD_PRELOAD.
 *
 * dlmalloc.c is not in this repository: CMake finds it in Debian's emscripten package (or takes
 * it out of the .deb with scripts/fetch-dlmalloc.sh) and puts its directory on the include path.
 * It is compiled here, in this translation unit, as the seed built it: USE_LOCKS=1 (its default
 * spin lock around the one global mstate), USE_DL_PREFIX (its entry points are dlmalloc, dlfree,
 * ...). This file maps the C library's names onto them, and adds what the lab needs beside:
 *
 * | added                                  | why                                              |
 * |----------------------------------------|--------------------------------------------------|
 * | ALLOCLAB_DLMALLOC_TRIM_THRESHOLD, ...  | knobs: applied with dlmallopt at load            |
 * | alloclab_dlmalloc_parameter(M_...)     | read-back: the value dlmalloc uses (mparams)     |
 * | pthread_atfork handlers                | a fork while another thread holds the lock would |
 * |                                        | leave the child's malloc locked forever          |
 *
 * The statistics (dlmallinfo, dlmalloc_footprint) and the purge (dlmalloc_trim) are dlmalloc's
 * own exports, found by the lab with dlsym. */
#define USE_DL_PREFIX 1
#define USE_LOCKS 1
#include "dlmalloc.c"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#define ALLOCLAB_EXPORT __attribute__((visibility("default")))

ALLOCLAB_EXPORT void* malloc(size_t bytes) {
  return dlmalloc(bytes);
}
ALLOCLAB_EXPORT void free(void* block) {
  dlfree(block);
}
ALLOCLAB_EXPORT void* calloc(size_t count, size_t size) {
  return dlcalloc(count, size);
}
ALLOCLAB_EXPORT void* realloc(void* block, size_t bytes) {
  return dlrealloc(block, bytes);
}
ALLOCLAB_EXPORT void* memalign(size_t alignment, size_t bytes) {
  return dlmemalign(alignment, bytes);
}
ALLOCLAB_EXPORT int posix_memalign(void** out, size_t alignment, size_t bytes) {
  return dlposix_memalign(out, alignment, bytes);
}
ALLOCLAB_EXPORT void* aligned_alloc(size_t alignment, size_t bytes) {
  return dlmemalign(alignment, bytes);
}
ALLOCLAB_EXPORT void* valloc(size_t bytes) {
  return dlvalloc(bytes);
}
ALLOCLAB_EXPORT void* pvalloc(size_t bytes) {
  return dlpvalloc(bytes);
}
ALLOCLAB_EXPORT size_t malloc_usable_size(void* block) {
  return dlmalloc_usable_size(block);
}

/* What dlmalloc uses for M_TRIM_THRESHOLD, M_MMAP_THRESHOLD or M_GRANULARITY; 0 for another
 * parameter. dlmallopt only sets them: this reads its own copy. */
ALLOCLAB_EXPORT size_t alloclab_dlmalloc_parameter(int parameter) {
  ensure_initialization();
  switch (parameter) {
    case M_TRIM_THRESHOLD:
      return mparams.trim_threshold;
    case M_MMAP_THRESHOLD:
      return mparams.mmap_threshold;
    case M_GRANULARITY:
      return mparams.granularity;
    default:
      return 0;
  }
}

/* A knob from the environment: a decimal integer dlmallopt can take (an int), else ignored (the
 * read-back then shows the knob was not applied). */
static void apply_knob(const char* variable, int parameter) {
  const char* text = getenv(variable);
  if (text == NULL || *text == '\0') return;
  char* end = NULL;
  const unsigned long long value = strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value > (unsigned long long)INT_MAX) return;
  dlmallopt(parameter, (int)value);
}

static void lock_for_fork(void) {
  if (use_lock(gm)) (void)ACQUIRE_LOCK(&gm->mutex);
}

static void unlock_after_fork(void) {
  if (use_lock(gm)) RELEASE_LOCK(&gm->mutex);
}

__attribute__((constructor)) static void alloclab_dlmalloc_start(void) {
  ensure_initialization();
  apply_knob("ALLOCLAB_DLMALLOC_TRIM_THRESHOLD", M_TRIM_THRESHOLD);
  apply_knob("ALLOCLAB_DLMALLOC_MMAP_THRESHOLD", M_MMAP_THRESHOLD);
  pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}
