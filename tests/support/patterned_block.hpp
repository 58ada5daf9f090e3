// Whether a block filled with its pattern byte still holds it: `Block` has p (std::byte*), size
// and pattern (unsigned char).
#pragma once

#include <cstddef>

namespace alloclab::testing {

template <class Block>
bool intact(const Block& b) {
  for (std::size_t i = 0; i < b.size; ++i) {
    if (b.p[i] != std::byte{b.pattern}) return false;
  }
  return true;
}

}  // namespace alloclab::testing
