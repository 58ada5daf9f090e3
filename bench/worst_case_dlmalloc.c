/* dlmalloc 2.8.6 (from Debian's emscripten package, scripts/fetch-dlmalloc.sh; never committed)
   under its dl prefix, so worst_case_instructions calls it beside glibc's malloc. */
#define USE_DL_PREFIX 1
#define USE_LOCKS 1
#include "dlmalloc.c"
