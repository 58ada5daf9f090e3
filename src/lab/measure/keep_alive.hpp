// Keeps a value alive in the eyes of the optimiser, so the work that computed it is not removed.
#pragma once

#include <cstdint>

namespace alloclab::lab {

inline void keep(std::uint64_t value) {
  asm volatile("" : : "r"(value) : "memory");
}

}  // namespace alloclab::lab
