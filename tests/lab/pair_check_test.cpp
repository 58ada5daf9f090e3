// Test plan: `alloclab __pair-check SPEC` (main/pair_check.hpp), the A/A and known-effect check
// bench/lockstep_validation.py drives. Only its refusals are tested here: a spec it cannot run is
// exit 2 and one line, before any worker starts. Its measurements are validation, not tests.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "main/pair_check.hpp"

namespace alloclab::lab {
namespace {

struct pair_check_outcome {
  int code = 0;
  std::string out, err;
};

pair_check_outcome check(const char* spec) {
  std::ostringstream out, err;
  const int code = pair_check_main(spec, out, err);
  return {code, out.str(), err.str()};
}

void expect_refused(const pair_check_outcome& o, const std::string& why) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_NE(o.err.find(why), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
}

TEST(PairCheck, AnInjectedCostNeedsABatchWorkload) {
  expect_refused(check(R"({"workload": "fifo_uniform", "inject_percent": 2})"),
                 "inject_percent needs a batch workload");
}

TEST(PairCheck, RunsOutsideTwoTo64AreRefused) {
  expect_refused(check(R"({"workload": "vector_push", "runs": 1})"), "runs must be 2 to 64");
  expect_refused(check(R"({"workload": "vector_push", "runs": 65})"), "runs must be 2 to 64");
}

}  // namespace
}  // namespace alloclab::lab
