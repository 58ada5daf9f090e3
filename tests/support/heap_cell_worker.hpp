// Test support: runs one heap cell in a worker the test names (the test binary re-executed as
// its own child, tests/heap/main.cpp), the way the lab's heap executor does it, without the
// lab's plan and scheduler.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "frames/heap/cell.hpp"
#include "mallocs/malloc_table.hpp"

namespace alloclab::heap {

/// Starts `worker_argv_prefix + [to_json(spec).dump()]` under the allocator's environment and
/// classifies the result. Never throws.
inline process::cell_outcome run_cell_in_worker(const cell_spec& spec,
                                                const std::vector<std::string>& worker_argv_prefix,
                                                std::chrono::milliseconds timeout) {
  process::cell_outcome o;
  try {
    mallocs::worker_env env;
    if (spec.malloc_name == mallocs::custom_malloc_name) {
      env = mallocs::custom_worker_environment(spec.preload);
    } else {
      const mallocs::malloc_entry* entry = mallocs::find_malloc(spec.malloc_name);
      if (entry == nullptr) {
        o.status = process::cell_status::failed;
        o.detail = "unknown allocator '" + spec.malloc_name + "'";
        return o;
      }
      if (!mallocs::installed(*entry)) {
        o.status = process::cell_status::not_installed;
        o.detail = mallocs::not_installed_reason(*entry);
        return o;
      }
      env = mallocs::worker_environment(*entry);
    }
    process::worker_request req;
    req.argv = worker_argv_prefix;
    req.argv.push_back(to_json(spec).dump());
    req.env_set = env.set;
    req.env_unset = env.unset;
    req.timeout = timeout;
    return process::run_measuring_worker(req);
  } catch (const std::exception& e) {
    o.status = process::cell_status::failed;
    o.detail = e.what();
  }
  return o;
}

}  // namespace alloclab::heap
