// heap_tests re-executes itself as a worker child. The test side sets ALLOCLAB_HEAP_TEST_CHILD
// to one of the modes handled in main.cpp.
#pragma once

#include <alloclab/build_info.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "process/worker.hpp"

namespace heap_test {

inline constexpr const char* child_env = "ALLOCLAB_HEAP_TEST_CHILD";

/// Runs this test binary as a child in `mode`, with extra environment and arguments.
inline alloclab::process::worker_outcome run_child(
    const std::string& mode, std::vector<std::pair<std::string, std::string>> env = {},
    std::vector<std::string> args = {},
    std::chrono::milliseconds timeout = std::chrono::seconds(60),
    std::vector<std::string> unset = {"LD_PRELOAD"}) {
  alloclab::process::worker_request req;
  req.argv.push_back("/proc/self/exe");
  for (std::string& a : args) req.argv.push_back(std::move(a));
  req.env_set = std::move(env);
  req.env_set.emplace_back(child_env, mode);
  req.env_unset = std::move(unset);
  req.timeout = timeout;
  return alloclab::process::run_worker(req);
}

/// True when this binary is built with AddressSanitizer, which owns malloc itself and does not
/// tolerate another allocator being preloaded.
constexpr bool under_asan() {
  return alloclab::build::address_sanitizer;
}

}  // namespace heap_test
