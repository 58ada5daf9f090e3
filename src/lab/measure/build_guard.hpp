// Does this binary's build allow it to publish numbers? (seed 000, bug 2: an -O0 build.)
#pragma once

#include <string>

namespace alloclab::lab {

struct build_facts {
  bool optimized = false;
  bool assertions = true;
  bool sanitized = false;
  std::string build_type;  // CMAKE_BUILD_TYPE at configure time
  std::string compiler;
  std::string flags;
  bool benchmark_ready() const { return optimized && !assertions && !sanitized; }
  std::string describe() const;
};

// The facts of the measuring code. A test hook (process/hooks.hpp, `pretend_debug`) makes them
// claim an unoptimised build, so tests can exercise the refusal from a Release build.
build_facts current_build();

enum class build_verdict {
  publish,     // optimised, no assertions
  refuse,      // not benchmark-ready and --allow-debug absent: exit 2
  stamp_debug  // not benchmark-ready but --allow-debug: run, stamp every output DEBUG
};

build_verdict judge_build(const build_facts& facts, bool allow_debug);

// The run's guard: refuses this binary unless it is benchmark-ready or --allow-debug was given
// (usage_error); returns whether every output is stamped DEBUG, after warning on stderr.
bool stamp_debug_or_refuse(bool allow_debug);

}  // namespace alloclab::lab
