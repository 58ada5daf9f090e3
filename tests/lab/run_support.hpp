// Shared by the tests that run the lab, in process or as the built binary: what they need to
// know of their own build, and a progress callback that ignores the progress.
#pragma once

#include <string>

#include "frames/batch/runner.hpp"
#include "measure/build_guard.hpp"

namespace alloclab::lab::run_support {

inline bool sanitized() {
  return current_build().sanitized;
}

// The option a run needs when this build may not publish numbers ("" when it may).
inline std::string allow_debug() {
  return current_build().benchmark_ready() ? "" : " --allow-debug";
}

inline void ignore_progress(const progress_event&) {}

}  // namespace alloclab::lab::run_support
