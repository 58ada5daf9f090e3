#include "build_guard.hpp"

#include <alloclab/build_info.hpp>

#include "process/hooks.hpp"

#ifndef ALLOCLAB_LAB_BUILD_TYPE
#define ALLOCLAB_LAB_BUILD_TYPE "unknown"
#endif
#ifndef ALLOCLAB_LAB_CXX_FLAGS
#define ALLOCLAB_LAB_CXX_FLAGS "unknown"
#endif
#ifndef ALLOCLAB_LAB_COMPILER
#define ALLOCLAB_LAB_COMPILER "unknown"
#endif

namespace alloclab::lab {

std::string build_facts::describe() const {
  if (benchmark_ready()) return "optimised, assertions off, no sanitizers";
  if (!optimized) return "NOT optimised: timings are meaningless";
  if (sanitized) return "sanitizers on: timings are meaningless";
  return "assertions on (NDEBUG not defined): timings are pessimistic";
}

build_facts current_build() {
  build_facts facts;
  // This translation unit is compiled with the same flags as the workloads it vouches for.
  facts.optimized = alloclab::build::optimized;
  facts.assertions = alloclab::build::assertions;
  facts.sanitized = alloclab::build::sanitized;
  facts.build_type = ALLOCLAB_LAB_BUILD_TYPE;
  facts.compiler = ALLOCLAB_LAB_COMPILER;
  facts.flags = ALLOCLAB_LAB_CXX_FLAGS;
  if (pretend_debug()) {
    facts.optimized = false;
    facts.assertions = true;
    facts.build_type = "Debug (pretended by a test hook)";
  }
  return facts;
}

build_verdict judge_build(const build_facts& facts, bool allow_debug) {
  if (facts.benchmark_ready()) return build_verdict::publish;
  return allow_debug ? build_verdict::stamp_debug : build_verdict::refuse;
}

}  // namespace alloclab::lab
