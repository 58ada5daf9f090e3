#include "schedule/executor.hpp"

namespace alloclab::lab {

std::unique_ptr<executor> make_batch_executor();
std::unique_ptr<executor> make_heap_executor();
std::unique_ptr<executor> make_memory_executor();
std::unique_ptr<executor> make_serve_executor();
std::unique_ptr<executor> make_replay_executor();

std::unique_ptr<executor> make_executor(frame f) {
  switch (f) {
    case frame::batch:
      return make_batch_executor();
    case frame::heap:
      return make_heap_executor();
    case frame::memory:
      return make_memory_executor();
    case frame::serve:
      return make_serve_executor();
    case frame::replay:
      return make_replay_executor();
  }
  return make_batch_executor();
}

}  // namespace alloclab::lab
