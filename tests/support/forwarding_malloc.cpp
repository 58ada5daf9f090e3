// A malloc that is none of the allocators allocator_purge knows: it forwards to glibc's
// __libc_* entry points. allocator_purge_test preloads it to check that find() says "none"
// rather than purging glibc's heap through malloc_trim. Includes no C library header on purpose
// (their declarations of malloc differ in exception specification).
#include <cstddef>

extern "C" {
void* __libc_malloc(std::size_t);
void __libc_free(void*);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);

void* malloc(std::size_t size) {
  return __libc_malloc(size);
}
void free(void* p) {
  __libc_free(p);
}
void* calloc(std::size_t count, std::size_t size) {
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  return __libc_realloc(p, size);
}
}
