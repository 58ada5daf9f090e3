// `alloclab` with test hooks (src/lab/process/hooks.hpp), set from this process's environment:
//   ALLOCLAB_TEST_WORKER_FAULT=<action>:<cell>  a worker aborts or hangs before it measures
//     (<action> abort or hang; abort_later: `alloclab serve` aborts 1.5 s after start-up, under
//     load). <cell> is "<workload>/<strategy>@<malloc>", its "<workload>/<malloc>" short form, or
//     "*" for every cell.
//   ALLOCLAB_TEST_HIDE_MALLOC=name[,name]        those malloc registry entries look not installed.
//   ALLOCLAB_TEST_PRETEND_DEBUG=1                the build looks unoptimised (the build guard).
// Only the tests build and run it; its workers are this binary re-executed, so they read the same
// variables. The production `alloclab` reads none of them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "main/cli.hpp"
#include "process/hooks.hpp"

namespace {

std::string_view variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

// The action ALLOCLAB_TEST_WORKER_FAULT names for `cell_id` (empty: none).
std::string fault_for(const std::string& cell_id) {
  const std::string_view spec = variable("ALLOCLAB_TEST_WORKER_FAULT");
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return {};
  const std::string_view action = spec.substr(0, colon), target = spec.substr(colon + 1);
  const std::size_t slash = cell_id.find('/'), at = cell_id.rfind('@');
  const std::string short_id = cell_id.substr(0, slash + 1) + cell_id.substr(at + 1);
  if (target != "*" && target != cell_id && target != short_id) return {};
  return std::string(action);
}

void inject_fault(const std::string& cell_id) {
  const std::string action = fault_for(cell_id);
  if (action != "abort" && action != "hang") return;
  std::fprintf(stderr, "alloclab worker: test fault '%s' injected into cell %s\n", action.c_str(),
               cell_id.c_str());
  std::fflush(stderr);
  if (action == "abort") std::abort();
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

bool hidden(std::string_view malloc_name) {
  std::string_view rest = variable("ALLOCLAB_TEST_HIDE_MALLOC");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (rest.substr(0, comma) == malloc_name) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  alloclab::lab::process_hooks hooks;
  hooks.before_measuring = inject_fault;
  hooks.aborts_under_load = [](const std::string& cell_id) {
    return fault_for(cell_id) == "abort_later";
  };
  hooks.malloc_hidden = hidden;
  hooks.pretend_debug = [] { return variable("ALLOCLAB_TEST_PRETEND_DEBUG") == "1"; };
  alloclab::lab::install_process_hooks(hooks);
  return alloclab::lab::alloclab_main(argc, argv);
}
