#include "mallocs/purge.hpp"

#include <alloclab/allocator_purge.hpp>

namespace alloclab::mallocs {

purge_result purge_live_malloc() {
  const allocator_purge purge = allocator_purge::find();
  purge_result r;
  r.method = to_string(purge.kind());
  if (purge.kind() == purge_kind::none) {
    r.method += " (" + purge.reason() + ")";
    return r;
  }
  r.available = true;
  r.rc = purge.run() ? 0 : 1;
  return r;
}

}  // namespace alloclab::mallocs
