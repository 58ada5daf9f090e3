// --variants parsing: what each knob sets, and one clear line for each kind of bad text.
#include "frames/program/knobs.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace alloclab::program {
namespace {

using env = environment;

TEST(ProgramKnobs, OneGlibcKnobIsOneTunable) {
  const auto v = parse_variants("glibc:arena_max=1");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].label(), "glibc arena_max=1");
  EXPECT_EQ(knob_environment(v[0]), (env{{"GLIBC_TUNABLES", "glibc.malloc.arena_max=1"}}));
}

TEST(ProgramKnobs, SeveralKnobsOfOneMallocShareItsVariable) {
  const auto v = parse_variants(
      "glibc:trim_threshold=0+mmap_threshold=65536+top_pad=0,"
      "jemalloc:dirty_decay_ms=0+muzzy_decay_ms=-1+background_thread=true");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(knob_environment(v[0]),
            (env{{"GLIBC_TUNABLES",
                  "glibc.malloc.trim_threshold=0:glibc.malloc.mmap_threshold="
                  "65536:glibc.malloc.top_pad=0"}}));
  EXPECT_EQ(knob_environment(v[1]),
            (env{{"MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:-1,background_thread:true"}}));
}

TEST(ProgramKnobs, MimallocAndTcmallocSetTheirOwnVariables) {
  const auto v =
      parse_variants("mimalloc:purge_delay=0+arena_eager_commit=2,tcmalloc:release_rate=2.5");
  EXPECT_EQ(knob_environment(v[0]), (env{{"MIMALLOC_PURGE_DELAY", "0"},
                                         {"MIMALLOC_DECOMMIT_DELAY", "0"},
                                         {"MIMALLOC_ARENA_EAGER_COMMIT", "2"},
                                         {"MIMALLOC_EAGER_COMMIT", "2"}}));
  EXPECT_EQ(knob_environment(v[1]), (env{{"TCMALLOC_RELEASE_RATE", "2.5"}}));
}

TEST(ProgramKnobs, EveryKnobVariableIsKnownForRemoval) {
  const auto names = knob_variables();
  for (const char* n :
       {"GLIBC_TUNABLES", "MALLOC_CONF", "MIMALLOC_PURGE_DELAY", "MIMALLOC_DECOMMIT_DELAY",
        "MIMALLOC_ARENA_EAGER_COMMIT", "TCMALLOC_RELEASE_RATE"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

struct bad_case {
  const char* text;
  const char* says;
};

class ProgramKnobsRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(ProgramKnobsRejects, WithOneLineNamingTheProblem) {
  try {
    parse_variants(GetParam().text);
    FAIL() << "accepted '" << GetParam().text << "'";
  } catch (const variant_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(GetParam().says), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadText, ProgramKnobsRejects,
    ::testing::Values(bad_case{"", "empty"}, bad_case{"glibc", "MALLOC:KNOB=VALUE"},
                      bad_case{"glibc:", "MALLOC:KNOB=VALUE"},
                      bad_case{"tbbmalloc:x=1", "'tbbmalloc' has no knobs"},
                      bad_case{"nosuch:arena_max=1", "'nosuch' has no knobs"},
                      bad_case{"glibc:arena=1", "glibc has no knob 'arena'"},
                      bad_case{"glibc:arena_max", "is not KNOB=VALUE"},
                      bad_case{"glibc:arena_max=", "is not KNOB=VALUE"},
                      bad_case{"glibc:arena_max=0", "expected an integer >= 1"},
                      bad_case{"glibc:arena_max=x", "expected an integer >= 1"},
                      bad_case{"glibc:top_pad=-5", "expected an integer >= 0"},
                      bad_case{"jemalloc:dirty_decay_ms=-2", "expected an integer >= -1"},
                      bad_case{"jemalloc:background_thread=yes", "true or false"},
                      bad_case{"mimalloc:arena_eager_commit=3", "0, 1 or 2"},
                      bad_case{"tcmalloc:release_rate=nan", "a number >= 0"},
                      bad_case{"glibc:arena_max=1+arena_max=2", "twice"},
                      bad_case{"glibc:arena_max=1,glibc:arena_max=1", "given twice"},
                      bad_case{"glibc:arena_max=1,", "MALLOC:KNOB=VALUE"}));

}  // namespace
}  // namespace alloclab::program
