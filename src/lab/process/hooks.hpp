// Seams where a test changes what the lab's processes do. The production `alloclab` installs no
// hook, so each seam below is a no-op there and the binary reads no test setting. A test binary
// (tests/support/hooked_alloclab.cpp) installs hooks and then runs the same entry point
// (`alloclab_main`); the workers it spawns are itself re-executed (/proc/self/exe), so they
// carry the same hooks.
//
// | seam               | called by                                   | a hook can            |
// |--------------------|---------------------------------------------|-----------------------|
// | before_measuring   | every worker, once its cell is known        | abort or hang it      |
// | aborts_under_load  | `alloclab serve`, after it proved its malloc | make it abort later   |
// | malloc_hidden      | the malloc choice and mimalloc_heap          | make a malloc missing |
// | pretend_debug      | the build guard (measure/build_guard.hpp)   | make a Release build  |
// |                    |                                             | look unoptimised      |
//
// Example:
//   int seen = 0;
//   alloclab::lab::process_hooks hooks;
//   hooks.before_measuring = [&seen](const std::string&) { ++seen; };
//   alloclab::lab::install_process_hooks(hooks);
//   alloclab::lab::before_measuring("trade_batch/std@glibc");  // seen == 1
//   alloclab::lab::install_process_hooks({});                   // no hooks again
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace alloclab::lab {

// Cell ids are "<workload>/<strategy>@<malloc>"; malloc names are registry names.
struct process_hooks {
  std::function<void(const std::string& cell_id)> before_measuring;
  std::function<bool(const std::string& cell_id)> aborts_under_load;
  std::function<bool(std::string_view malloc_name)> malloc_hidden;
  std::function<bool()> pretend_debug;
};

// Replaces the installed hooks (call before anything runs; not thread-safe).
void install_process_hooks(process_hooks hooks);

// The seams: each asks the installed hook, or does nothing / answers false without one.
void before_measuring(const std::string& cell_id);
bool aborts_under_load(const std::string& cell_id);
bool malloc_hidden(std::string_view malloc_name);
bool pretend_debug();

}  // namespace alloclab::lab
