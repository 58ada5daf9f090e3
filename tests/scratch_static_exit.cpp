// A static object whose destructor opens a scratch_scope: at exit() the main
// thread's stack is destroyed first (thread_locals before statics), so the
// late scope must not touch it. Exit code 0 when the late scope served its
// request from its own arena; ASan reports the use-after-free otherwise.
#include <alloclab/scratch_stack.hpp>

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {

struct static_logger {
  ~static_logger() {
    alloclab::scratch_scope late;
    void* line = late.allocate(256, 8);
    std::memset(line, 'x', 256);
    if (late.arena().buffer_size() != 0) ::_exit(1);  // it reached the destroyed stack
  }
};

static_logger logger;  // constructed before main's first scope builds the stack

}  // namespace

int main() {
  alloclab::scratch_scope scope;  // the main thread's stack, destroyed at exit()
  std::memset(scope.allocate(64), 0, 64);
  return 0;
}
