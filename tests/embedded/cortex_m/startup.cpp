// tests/embedded/cortex_m/startup.cpp: what a bare-metal Cortex-M3 program
// under qemu-system-arm needs beside newlib's rdimon start-up: the two-entry
// vector table the core reads at reset (initial stack pointer, reset
// handler), and the getentropy libstdc++ references but newlib lacks.
#include <cerrno>
#include <cstddef>

extern "C" {
extern char __stack;  // from mps2_an385.ld
void _start();        // newlib's rdimon crt0: .bss, heap, constructors, main, exit

int getentropy(void*, std::size_t) {
  errno = ENOSYS;
  return -1;
}
}

using vector_entry = void (*)();

// The core loads SP from word 0 and jumps to word 1 (Thumb bit set by the linker).
[[gnu::section(".vectors"), gnu::used]] extern const vector_entry vector_table[2] = {
    reinterpret_cast<vector_entry>(&__stack), &_start};
