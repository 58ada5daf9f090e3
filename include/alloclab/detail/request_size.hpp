// alloclab/detail/request_size.hpp: the largest request a resource accepts.
// Private: not part of the public interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "../failure.hpp"

namespace alloclab::detail {

// No object is larger than PTRDIFF_MAX bytes (pointer differences within it
// must fit), and an upstream asked for more may round the size past SIZE_MAX
// and hand back a tiny block (libstdc++'s aligned new does). Resources that
// pass a request through refuse such a size first, as new T[n] does.
inline void require_representable_size(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(PTRDIFF_MAX))
    fail<std::bad_array_new_length>("alloclab: a request over PTRDIFF_MAX bytes");
}

}  // namespace alloclab::detail
