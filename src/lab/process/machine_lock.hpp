// The machine's lab lock (process/run_lock.hpp) for a command that measures: `run`, `replay`
// and `advise` (through the run) and `try`.
#pragma once

#include <memory>
#include <string>

#include "process/run_lock.hpp"

namespace alloclab::lab {

// Null with ALLOCLAB_LOCK_FILE=none. Throws usage_error when another run holds the lock and
// `wait` is false; with `wait`, says on stderr whom it waits for.
std::unique_ptr<process::run_lock> take_machine_lock(const std::string& command_line, bool wait);

}  // namespace alloclab::lab
