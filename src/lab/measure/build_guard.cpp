#include "build_guard.hpp"

#include <iostream>

#include <alloclab/build_info.hpp>
#include <fmt/format.h>

#include "io/usage_error.hpp"
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

bool stamp_debug_or_refuse(bool allow_debug) {
  const build_facts facts = current_build();
  switch (judge_build(facts, allow_debug)) {
    case build_verdict::publish:
      return false;
    case build_verdict::refuse:
      throw usage_error(
          fmt::format("this binary is not benchmark-ready ({}, build type {}); rebuild with "
                      "`cmake --preset release` or pass --allow-debug to get DEBUG-stamped output",
                      facts.describe(), facts.build_type));
    case build_verdict::stamp_debug:
      std::cerr << "alloclab: WARNING: DEBUG build (" << facts.describe()
                << "); every output is stamped DEBUG\n";
      return true;
  }
  return true;
}

}  // namespace alloclab::lab
