/* The lab's stand-in for newlib's <sys/config.h>: mallocr.c takes the pointer-sized integer type
 * from it; nano-mallocr.c needs nothing. */
#ifndef ALLOCLAB_NEWLIB_SYS_CONFIG_H
#define ALLOCLAB_NEWLIB_SYS_CONFIG_H
#define _POINTER_INT long
#endif
