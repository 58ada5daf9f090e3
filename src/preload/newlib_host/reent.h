/* The lab's stand-in for newlib's <reent.h>, enough for mallocr.c and nano-mallocr.c built with INTERNAL_NEWLIB
 * on a glibc host: the reentrancy struct carries only errno, and the allocator's three system
 * hooks are newlib_preload.c's. */
#ifndef ALLOCLAB_NEWLIB_REENT_H
#define ALLOCLAB_NEWLIB_REENT_H

#include <stddef.h>

struct _reent {
  int _errno;
};

void* _sbrk_r(struct _reent* reent, ptrdiff_t increment);
void __malloc_lock(struct _reent* reent);
void __malloc_unlock(struct _reent* reent);

#endif
