// record -> try -> replay -> advise --real, end to end through the binary on one small subject
// (tests/support/try_subject.cpp): advise reads the real runs `alloclab try` wrote (not a
// hand-written fixture), matches them to the replay's mallocs by name, reports the replay's rank
// correlation with them and bases its malloc advice on them. No test asserts a timing or which
// malloc wins.
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;
using lab::cli_support::read_file;
namespace fs = std::filesystem;

const std::string subject = ALLOCLAB_TRY_SUBJECT;

class TryThenAdvise : public lab::cli_support::binary_test {
 protected:
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // record, try MALLOCS, replay REPLAYED: the paths advise takes are path("subject.trace"),
  // path("replay") + "/latest/results.json" and path("try") + "/results.json".
  void record_try_and_replay(const std::string& tried_mallocs, const std::string& replayed) {
    const std::string trace = path("subject.trace");
    const auto recorded = run("record -o '" + trace + "' -- '" + subject + "' alloc");
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    const auto tried = run("try --malloc " + tried_mallocs + " --rounds 5 -o '" + path("try") +
                           "' -- '" + subject + "' alloc");
    ASSERT_EQ(tried.exit_code, 0) << tried.out << tried.err;
    const auto replay = run("replay '" + trace + "' --malloc " + replayed +
                            " --repetitions 3 --out '" + path("replay") + "'");
    ASSERT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  }
  lab::cli_support::outcome advise() const {
    return run("advise '" + path("subject.trace") + "' --results '" + path("replay") +
               "/latest/results.json' --real '" + path("try") + "/results.json'");
  }
};

TEST_F(TryThenAdvise, AdviseReconcilesTheReplayWithTheRealRunsOfTheSameProgram) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const std::string mallocs = "glibc,jemalloc,mimalloc";
  record_try_and_replay(mallocs, mallocs);
  if (HasFatalFailure()) return;
  const auto advised = advise();
  ASSERT_EQ(advised.exit_code, 0) << advised.out << advised.err;
  const std::string& out = advised.out;
  // The advice comes from the real runs, five of each malloc, judged on the ratios `try` filed.
  EXPECT_NE(out.find("real runs of the program: CPU time (user + sys), 5 runs or more per "
                     "malloc; ratios glibc ÷ malloc"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("real runs' ratios and intervals: those `try` filed (95 % bootstrap"),
            std::string::npos)
      << out;
  // Every malloc of the replay found its real runs by name: the baseline and both others.
  EXPECT_NE(out.find("against the real runs: Spearman rho "), std::string::npos) << out;
  EXPECT_NE(out.find("over 3 mallocs (the baseline included)"), std::string::npos) << out;
  EXPECT_EQ(out.find("Spearman rho undefined"), std::string::npos) << out;
  for (const char* malloc : {"jemalloc", "mimalloc"})
    EXPECT_TRUE(std::regex_search(
        out, std::regex(std::string(" ") + malloc + " [+-][0-9]+ % \\([0-9.]+x vs [0-9.]+x\\)")))
        << malloc << " has no ratio error\n"
        << out;
  EXPECT_NE(out.find("estimate (replay): the replay's malloc call time per call"),
            std::string::npos)
      << out;
}

// A trace records where and how its program ran (format version 4): the working directory,
// stdin when it is a file, and the environment a rerun needs (no variable outside that subset,
// none of the recorder's own).
TEST_F(TryThenAdvise, TheTraceRecordsItsWorkingDirectoryStdinAndEnvironment) {
  const std::string trace = path("ctx.trace"), input = path("input.txt");
  std::ofstream(input) << "hello\n";
  const auto recorded = run("record -o '" + trace + "' -- '" + subject + "' alloc <'" + input + "'",
                            "-C '" + dir_.string() + "' PYTHONHASHSEED=7 ALLOCLAB_SECRET_TOKEN=x");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const trace::trace_file file(trace);
  EXPECT_EQ(file.header().version, 4u);
  ASSERT_TRUE(file.header().context.has_value());
  const trace::recorded_context& c = *file.header().context;
  EXPECT_EQ(c.working_directory, fs::canonical(dir_).string());
  EXPECT_EQ(c.stdin_path, fs::canonical(input).string());
  const auto has = [&](const std::string& name) {
    for (const auto& [key, value] : c.environment)
      if (key == name) return true;
    return false;
  };
  EXPECT_TRUE(has("PYTHONHASHSEED"));
  EXPECT_TRUE(has("PATH"));
  EXPECT_FALSE(has("ALLOCLAB_SECRET_TOKEN"));
  EXPECT_FALSE(has("LD_PRELOAD"));
  EXPECT_FALSE(has("ALLOCLAB_RECORD_FILE"));
}

// Issue 42: real runs are advise's default evidence. Without --real or --no-real, advise runs
// `try` on the recorded command in the recorded directory and answers from those runs, first.
TEST_F(TryThenAdvise, AdviseRunsTheRecordedCommandByDefault) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const std::string mallocs = "glibc,jemalloc";
  record_try_and_replay(mallocs, mallocs);
  if (HasFatalFailure()) return;
  const auto advised = run("advise '" + path("subject.trace") + "' --results '" + path("replay") +
                           "/latest/results.json' --malloc " + mallocs + " --budget 0 --out '" +
                           path("advised") + "'");
  ASSERT_EQ(advised.exit_code, 0) << advised.out << advised.err;
  const std::string& out = advised.out;
  EXPECT_EQ(out.find("answer: "), out.find('\n') + 1) << out;  // the answer first
  EXPECT_NE(out.find("(real runs)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("real runs of the program: CPU time (user + sys), 5 runs or more"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("real runs: `alloclab try` of `" + subject + " alloc` in " +
                     fs::current_path().string()),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("recorded environment variable"), std::string::npos) << out;
  bool wrote_try = false;
  for (const auto& entry : fs::directory_iterator(path("advised")))
    wrote_try = wrote_try || (entry.path().filename().string().rfind("try-", 0) == 0 &&
                              fs::exists(entry.path() / "results.json"));
  EXPECT_TRUE(wrote_try);
}

// Knob advice from real runs by default: advise's own replay sweeps knob settings (here its
// default setting of glibc), and the real runs try the one the replay ranks best beside the
// mallocs; the knob section says what was tried and why.
TEST_F(TryThenAdvise, TheRealRunsTryTheReplaysBestKnobSetting) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const std::string trace = path("subject.trace");
  const auto recorded = run("record -o '" + trace + "' -- '" + subject + "' alloc");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const auto advised =
      run("advise '" + trace + "' --malloc glibc --strategies arena --repetitions 2 " +
          "--budget 0 --out '" + path("advised") + "'");
  ASSERT_EQ(advised.exit_code, 0) << advised.out << advised.err;
  const std::string& out = advised.out;
  for (const char* text :
       {"the replay's knob sweep: the registry's tuning variants of the mallocs replayed and "
        "advise's default settings glibc:top_pad=16777216",
        "knob settings tried as real runs, the replay's best of each malloc by malloc call time",
        "glibc top_pad=16777216 (rank 1 of 1 glibc settings swept, estimate ",
        "top_pad=16777216 (glibc top_pad=16777216 vs glibc) [tried as real runs]: ",
        "   real runs decide: each setting's CPU time", "(real runs)\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n" << out;
  // The real runs ran that setting: its combination is in try's results.
  std::string tried;
  for (const auto& entry : fs::directory_iterator(path("advised")))
    if (entry.path().filename().string().rfind("try-", 0) == 0)
      tried = read_file(entry.path() / "results.json");
  const json combinations = json::parse(tried).at("program").at("combinations");
  ASSERT_EQ(combinations.size(), 2u) << combinations.dump();
  EXPECT_EQ(combinations.at(1).at("name"), "glibc top_pad=16777216");
  EXPECT_NE(out.find("   real runs top_pad=16777216 (glibc top_pad=16777216 vs glibc): "),
            std::string::npos)
      << out;
}

// Issue 42: `--results try-results.json` (real runs, no replay) is taken as --real; with
// --no-real it is refused in one line that names --real.
TEST_F(TryThenAdvise, TryResultsGivenAsResultsAreTheRealRuns) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const std::string mallocs = "glibc,jemalloc";
  record_try_and_replay(mallocs, mallocs);
  if (HasFatalFailure()) return;
  const std::string try_results = path("try") + "/results.json";
  const auto refused =
      run("advise '" + path("subject.trace") + "' --no-real --results '" + try_results + "'");
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_EQ(lab::cli_support::line_count(refused.err), 1u) << refused.err;
  EXPECT_NE(refused.err.find("--real"), std::string::npos) << refused.err;
  const auto advised =
      run("advise '" + path("subject.trace") + "' --results '" + try_results + "' --malloc " +
          mallocs + " --repetitions 3 --out '" + path("again") + "'");
  ASSERT_EQ(advised.exit_code, 0) << advised.out << advised.err;
  EXPECT_NE(advised.out.find("--results held real runs (`alloclab try`), not a replay: taken as "
                             "--real"),
            std::string::npos)
      << advised.out;
  EXPECT_NE(advised.out.find("(real runs)\n"), std::string::npos) << advised.out;
}

// Ratios are against each side's baseline: real runs without the replay's baseline (glibc) have
// ratios against another malloc, which cannot be set beside the replay's.
TEST_F(TryThenAdvise, RealRunsWithoutTheReplaysBaselineAreRefused) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  record_try_and_replay("jemalloc,mimalloc", "glibc,jemalloc,mimalloc");
  if (HasFatalFailure()) return;
  const auto advised = advise();
  EXPECT_EQ(advised.exit_code, 2) << advised.out << advised.err;
  EXPECT_EQ(lab::cli_support::line_count(advised.err), 1u) << advised.err;
  EXPECT_NE(advised.err.find("the real runs have no measured 'glibc' (the replay's baseline)"),
            std::string::npos)
      << advised.err;
}

}  // namespace
}  // namespace alloclab::program
