// SIGINT and SIGTERM during a run: the supervised worker's process group is killed at once, and
// the run stops at the next task boundary: `run` with run_interrupted (exit 130, nothing
// written), `try` with the rounds it finished written and exit 130.
#pragma once

#include <stdexcept>

namespace alloclab::lab {

class run_interrupted : public std::runtime_error {
 public:
  explicit run_interrupted(int signal);
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

// Installs the handlers (idempotent). SIGXFSZ is ignored too: a write over `ulimit -f` then
// fails with EFBIG, which the writers report, instead of killing the process.
void install_interrupt_handlers();
// Throws run_interrupted when a signal arrived since the handlers were installed.
void throw_if_interrupted();
// The signal that arrived since the handlers were installed; 0 if none.
int interrupting_signal();

}  // namespace alloclab::lab
