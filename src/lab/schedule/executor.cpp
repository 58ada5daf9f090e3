#include "schedule/executor.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>

namespace alloclab::lab {

// The target matches the whole cell id ("<workload>/<strategy>@<malloc>"), its
// "<workload>/<malloc>" short form, or "*".
std::string test_fault_for(const std::string& cell_id) {
  const char* fault = std::getenv("ALLOCLAB_TEST_WORKER_FAULT");
  if (fault == nullptr) return {};
  const std::string_view spec(fault);
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return {};
  const std::string_view action = spec.substr(0, colon), target = spec.substr(colon + 1);
  const std::size_t slash = cell_id.find('/'), at = cell_id.rfind('@');
  const std::string short_id = cell_id.substr(0, slash + 1) + cell_id.substr(at + 1);
  if (target != "*" && target != cell_id && target != short_id) return {};
  return std::string(action);
}

void inject_test_fault(const std::string& cell_id) {
  const std::string action = test_fault_for(cell_id);
  if (action != "abort" && action != "hang") return;
  std::fprintf(stderr, "alloclab worker: test fault '%s' injected into cell %s\n", action.c_str(),
               cell_id.c_str());
  std::fflush(stderr);
  if (action == "abort") std::abort();
  if (action == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace alloclab::lab
