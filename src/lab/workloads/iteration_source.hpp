// The strategy side of a cell, as seen by a workload: which allocator kind to build
// containers with, and what to do between iterations (e.g. rewind an arena).
#pragma once

#include <cstdint>
#include <memory_resource>

namespace alloclab {
class arena_resource;
class multipool_resource;
}  // namespace alloclab

namespace alloclab::lab {

enum class allocator_kind { standard, polymorphic, arena_static, multipool_static };

class iteration_source {
 public:
  virtual ~iteration_source() = default;
  virtual allocator_kind kind() const = 0;
  // For allocator_kind::polymorphic.
  virtual std::pmr::memory_resource* resource() { return nullptr; }
  // For allocator_kind::arena_static.
  virtual alloclab::arena_resource* arena() { return nullptr; }
  // For allocator_kind::multipool_static.
  virtual alloclab::multipool_resource* multipool() { return nullptr; }
  // Called after every iteration, inside the timed region: it is part of the strategy's cost.
  virtual void end_iteration() {}
};

}  // namespace alloclab::lab
