// --variants parsing: what each knob sets, and one clear line for each kind of bad text; how a
// knob read back by the probe compares with its setting and travels in the probe's line.
#include "mallocs/knobs.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mallocs/knob_readback.hpp"

namespace alloclab::mallocs {
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

TEST(ProgramKnobs, ReadBackValuesCompareAsTheKnobsKind) {
  EXPECT_EQ(knobs_of("jemalloc"),
            (std::vector<std::string>{"dirty_decay_ms", "muzzy_decay_ms", "background_thread"}));
  EXPECT_TRUE(knobs_of("tbbmalloc").empty());
  EXPECT_TRUE(same_knob_value("jemalloc", "dirty_decay_ms", "0", "0"));
  EXPECT_FALSE(same_knob_value("jemalloc", "dirty_decay_ms", "99999999999999", "10000"));
  EXPECT_TRUE(same_knob_value("jemalloc", "background_thread", "true", "1"));
  EXPECT_FALSE(same_knob_value("jemalloc", "background_thread", "true", "false"));
  EXPECT_TRUE(same_knob_value("tcmalloc", "release_rate", "3.5", "3.5000000000000000"));
  EXPECT_FALSE(same_knob_value("tcmalloc", "release_rate", "3.5", "0"));
  EXPECT_FALSE(same_knob_value("glibc", "mmap_threshold", "65536", "not-65536"));
}

TEST(ProgramKnobs, AReadingSurvivesTheProbesLine) {
  const mallocs::knob_reading read{"dirty_decay_ms", "0", "mallctl(\"opt.dirty_decay_ms\")"};
  const auto back = mallocs::parse_reading_line(mallocs::reading_line(read));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->knob, read.knob);
  EXPECT_EQ(back->value, read.value);
  EXPECT_EQ(back->how, read.how);
  const mallocs::knob_reading unread{"arena_max", std::nullopt, "glibc offers no read-back"};
  const auto none = mallocs::parse_reading_line(mallocs::reading_line(unread));
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->value.has_value());
  EXPECT_EQ(none->how, unread.how);
  EXPECT_FALSE(mallocs::parse_reading_line("ok").has_value());
  EXPECT_FALSE(mallocs::parse_reading_line("failed malloc is served by x").has_value());
}

// In this (unpreloaded) process: glibc's knobs say there is no read-back, another malloc's
// entry points do not resolve, and neither crashes.
TEST(ProgramKnobs, ReadingWithoutTheMallocSaysWhyNot) {
  const auto glibc = mallocs::read_knobs("glibc", {"arena_max"});
  ASSERT_EQ(glibc.size(), 1u);
  EXPECT_FALSE(glibc[0].value.has_value());
  EXPECT_NE(glibc[0].how.find("glibc offers no read-back"), std::string::npos) << glibc[0].how;
  const auto tcmalloc = mallocs::read_knobs("tcmalloc", {"release_rate"});
  ASSERT_EQ(tcmalloc.size(), 1u);
  EXPECT_FALSE(tcmalloc[0].value.has_value());
  EXPECT_NE(tcmalloc[0].how.find("do not resolve"), std::string::npos) << tcmalloc[0].how;
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
}  // namespace alloclab::mallocs
