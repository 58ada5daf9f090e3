// Tests of advise/: the malloc advice under the lab's one verdict rule, the replay's agreement
// with real runs, and what advise reads from a program-frame results document (a typed fixture
// of its program part).
//
// Test plan (public member -> test):
//   advise_malloc: a switch only for a decided gain beyond the noise floor
//                                      -> AdviseMalloc.SwitchesOnlyForADecidedGainBeyondTheFloor
//   advise_malloc: every decided-slower malloc is named to avoid
//                                      -> AdviseMalloc.NamesEveryMallocToAvoid
//   advise_malloc: too few repetitions never switch -> AdviseMalloc.TooFewRepetitionsNeverSwitch
//   render_malloc_advice: names its noise floor and source -> AdviseMalloc.TextNamesTheFloor
//   spearman_rho / agree: rho, ratio errors, reversals -> Agreement.*
//   read_program_runs / same_program: the fixture's shape, the replay's baseline, refusals
//                                      -> ProgramRuns.*
//   read_program_runs + advise_from_filed: the ratios an adaptive `try` filed decide, not a
//     re-judgement of its runs -> ProgramRuns.AdviceUsesTheRatiosTryFiled
//   knobs_to_try / add_knob_trials / default_knob_sweep: the replay's best knob setting of each
//     malloc joins the real runs once -> KnobTrials.*
//   plan_real_runs: the recorded command, directory, stdin and environment; an old trace's note;
//     refusals -> RealRuns.*
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "advise/advise.hpp"
#include "advise/agreement.hpp"
#include "advise/knob_trials.hpp"
#include "advise/malloc_advice.hpp"
#include "advise/program_runs.hpp"
#include "advise/real_runs.hpp"
#include "frames/replay/figures.hpp"
#include "plan/malloc_choice.hpp"
#include "plan/request.hpp"

namespace alloclab::lab {
namespace {

// Seven repetitions around `center` (spread +-1 %).
malloc_costs around(const std::string& name, double center) {
  malloc_costs c{name, {}};
  for (const double d : {-1.0, -0.5, 0.0, 0.3, 0.6, 1.0, -0.2})
    c.samples.push_back(center * (1 + d / 100));
  return c;
}

TEST(AdviseMalloc, SwitchesOnlyForADecidedGainBeyondTheFloor) {
  const malloc_costs glibc = around("glibc", 100);
  // 2 % faster: the U test decides it, but it is inside the 3 % floor.
  const malloc_advice small = advise_malloc(glibc, {around("jemalloc", 98)});
  EXPECT_FALSE(small.switch_to.has_value());
  EXPECT_EQ(small.others.at(0).verdict, difference::inside_noise);
  // Beyond the floor: switch to the larger of two decided gains.
  const malloc_advice big =
      advise_malloc(glibc, {around("jemalloc", 90), around("mimalloc", 80)}, 3);
  ASSERT_TRUE(big.switch_to.has_value());
  EXPECT_EQ(big.others.at(*big.switch_to).malloc, "mimalloc");
  EXPECT_NEAR(big.others.at(*big.switch_to).ratio, 1.25, 1e-9);
  // A wider floor turns the same gain into noise.
  EXPECT_FALSE(advise_malloc(glibc, {around("jemalloc", 90)}, 15).switch_to.has_value());
}

TEST(AdviseMalloc, NamesEveryMallocToAvoid) {
  const malloc_advice a =
      advise_malloc(around("glibc", 100),
                    {around("tbbmalloc", 112), around("mimalloc", 80), around("tcmalloc", 120)});
  ASSERT_EQ(a.avoid.size(), 2u);
  EXPECT_EQ(a.others.at(a.avoid[0]).malloc, "tbbmalloc");
  EXPECT_EQ(a.others.at(a.avoid[1]).malloc, "tcmalloc");
  const std::string text = render_malloc_advice(a, "real runs");
  EXPECT_NE(text.find("tbbmalloc: 0.8"), std::string::npos) << text;
  EXPECT_NE(text.find("decided slower"), std::string::npos) << text;
  EXPECT_NE(text.find("ratios glibc ÷ malloc, > 1: faster than glibc"), std::string::npos) << text;
  const std::string answer = answer_text(a);
  EXPECT_EQ(answer.rfind("use mimalloc: decided faster than glibc, 1.25x", 0), 0u) << answer;
}

TEST(AdviseMalloc, TooFewRepetitionsNeverSwitch) {
  const malloc_advice a = advise_malloc({"glibc", {100, 101}}, {{"mimalloc", {50, 51}}});
  EXPECT_FALSE(a.switch_to.has_value());
  EXPECT_EQ(a.others.at(0).verdict, difference::too_few);
  EXPECT_EQ(answer_text(a), "keep glibc: no malloc decided faster (mimalloc open (too few runs))");
}

TEST(AdviseMalloc, TextNamesTheFloor) {
  const malloc_advice a = advise_malloc(around("glibc", 100), {around("jemalloc", 98.5)}, 3);
  const std::string text = render_malloc_advice(a, "the replay's program time");
  EXPECT_NE(text.find("the replay's program time; ratios glibc ÷ malloc"), std::string::npos)
      << text;
  // 1.5 % faster, the U test decides it, the interval lies inside the 3 % floor: the same.
  EXPECT_NE(text.find("jemalloc: 1.02x"), std::string::npos) << text;
  EXPECT_NE(text.find("the same within ±3 %"), std::string::npos) << text;
  EXPECT_EQ(text.find("inside the noise"), std::string::npos) << text;
}

// Undecided and not inside the floor is "open (inconclusive)", never "inside the noise" (issue
// 42: advise said "inside the noise" where try said open).
TEST(AdviseMalloc, UndecidedIsOpenNotNoise) {
  malloc_costs wide{"mimalloc", {70, 130, 95, 60, 140, 100, 75}};
  const malloc_advice a = advise_malloc(around("glibc", 100), {wide}, 3);
  EXPECT_EQ(verdict_of(a.others.at(0), 3), "open (inconclusive)");
  EXPECT_NE(judgement_text(a.others.at(0), 3).find("open (inconclusive)"), std::string::npos);
}

TEST(AdviseReplayTrust, ANotPredictiveTraceSaysSoWithItsReasons) {
  trace::replay_trust trust;
  EXPECT_EQ(replay_trust_line(trust), "") << "a predictive replay adds no line";
  trust.predictive = false;
  trust.reasons = {"52 % of frees are cross-thread", "6 producer/consumer pairs"};
  const std::string line = replay_trust_line(trust);
  EXPECT_NE(line.find(trace::not_predictive_text), std::string::npos) << line;
  EXPECT_NE(line.find("52 % of frees are cross-thread; 6 producer/consumer pairs"),
            std::string::npos)
      << line;
}

TEST(Agreement, SpearmanOfKnownRankings) {
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  EXPECT_NEAR(spearman_rho({1, 2, 3, 4, 5}, {2, 1, 3, 4, 5}), 0.9, 1e-12);
  EXPECT_TRUE(std::isnan(spearman_rho({1, 1, 1}, {1, 2, 3})));
}

TEST(Agreement, ErrorsAndReversalsAgainstTheRealRuns) {
  const malloc_costs glibc = around("glibc", 100);
  // Real: mimalloc faster, tbbmalloc slower, jemalloc faster. Replay: tbbmalloc faster.
  const malloc_advice real = advise_malloc(
      glibc, {around("jemalloc", 85), around("mimalloc", 75), around("tbbmalloc", 110)});
  const malloc_advice replay = advise_malloc(
      glibc, {around("jemalloc", 70), around("mimalloc", 80), around("tbbmalloc", 90)});
  const replay_agreement a = agree(replay, real);
  EXPECT_EQ(a.mallocs, 4u);
  ASSERT_EQ(a.reversed.size(), 1u);
  EXPECT_EQ(a.reversed[0].malloc, "tbbmalloc");
  ASSERT_EQ(a.errors.size(), 3u);
  EXPECT_EQ(a.errors[0].malloc, "jemalloc");
  EXPECT_NEAR(a.errors[0].error(), (100.0 / 70) / (100.0 / 85) - 1, 1e-9);
  // Real order mimalloc > jemalloc > glibc > tbbmalloc; replay jemalloc > mimalloc > tbb > glibc.
  EXPECT_NEAR(a.spearman,
              spearman_rho({1, 100.0 / 85, 100.0 / 75, 100.0 / 110},
                           {1, 100.0 / 70, 100.0 / 80, 100.0 / 90}),
              1e-12);
  const std::string text = render_agreement(a, "replayed program time");
  EXPECT_NE(text.find("REVERSAL tbbmalloc: real runs decided slower (0.91x)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("1 reversal;"), std::string::npos) << text;
}

// Issue 42: on the 4-thread program every replay point estimate lay below 1 while real runs
// decided every malloc faster; the replay's intervals were too wide to decide anything, so
// counting only replay decisions found no reversal. A point estimate across 1 is one.
TEST(Agreement, AnUndecidedReplayEstimateAcrossOneIsAReversal) {
  const malloc_costs glibc = around("glibc", 100);
  const malloc_advice real = advise_malloc(glibc, {around("tcmalloc", 35), around("jemalloc", 50)});
  const malloc_advice replay = advise_malloc(
      {"glibc", {100, 60, 140, 90, 110}},
      {{"tcmalloc", {120, 80, 160, 125, 115}}, {"jemalloc", {95, 99, 101, 105, 100}}});
  ASSERT_TRUE(real.others[0].faster());
  ASSERT_FALSE(replay.others[0].slower()) << "the replay decides nothing here";
  const replay_agreement a = agree(replay, real);
  ASSERT_EQ(a.reversed.size(), 1u);
  EXPECT_EQ(a.reversed[0].malloc, "tcmalloc");
  EXPECT_LT(a.reversed[0].replay_ratio, 1);
  // jemalloc's replay estimate sits at 1.00: not across 1, no reversal.
}

// A decided real direction with the replay on the same side is no reversal.
TEST(Agreement, SameSideIsNoReversal) {
  const malloc_costs glibc = around("glibc", 100);
  const malloc_advice real = advise_malloc(glibc, {around("mimalloc", 80)});
  const malloc_advice replay = advise_malloc(glibc, {around("mimalloc", 97)});
  EXPECT_TRUE(agree(replay, real).reversed.empty());
}

// What advise reads from `alloclab try` results: the program frame's typed part
// (frames/program/program_model.hpp), with only the fields advise reads filled in.
program_results_section try_fixture() {
  program_results_section p;
  p.command = {"/usr/bin/python3", "workload.py"};
  p.baseline = "glibc";
  for (const char* malloc : {"glibc", "mimalloc", "tbbmalloc"}) {
    combination_result c;
    c.name = c.malloc = malloc;
    p.combinations.push_back(c);
  }
  const auto run = [&](const char* combination, double seconds, bool ok) {
    program_run_row r;
    r.combination = combination;
    r.ok = ok;
    r.figures.cpu_seconds = seconds;
    p.runs.push_back(r);
  };
  for (const double d : {0.0, 0.01, -0.01, 0.005, -0.002}) {
    run("glibc", 1.32 + d, true);
    run("mimalloc", 0.96 + d, true);
    run("tbbmalloc", 1.2 + d, false);  // failed runs have no numbers
  }
  return p;
}

TEST(ProgramRuns, ReadsTheProgramFramesShape) {
  const program_runs runs = read_program_runs(try_fixture());
  EXPECT_EQ(runs.command.at(0), "/usr/bin/python3");
  EXPECT_EQ(runs.baseline.malloc, "glibc");
  ASSERT_EQ(runs.baseline.samples.size(), 5u);
  EXPECT_NEAR(runs.baseline.samples[0], 1320, 1e-9);
  ASSERT_EQ(runs.others.size(), 1u) << "tbbmalloc's runs all failed";
  EXPECT_EQ(runs.others[0].malloc, "mimalloc");
  const malloc_advice a = advise_malloc(runs.baseline, runs.others);
  ASSERT_TRUE(a.switch_to.has_value());
  EXPECT_EQ(a.others.at(*a.switch_to).malloc, "mimalloc");
}

// A replay's baseline divides the real runs too, so both sides' ratios share it.
TEST(ProgramRuns, TheReplaysBaselineDividesTheRealRuns) {
  const program_runs runs = read_program_runs(try_fixture(), "mimalloc");
  EXPECT_EQ(runs.baseline.malloc, "mimalloc");
  ASSERT_EQ(runs.others.size(), 1u);
  EXPECT_EQ(runs.others[0].malloc, "glibc");
  EXPECT_THROW(read_program_runs(try_fixture(), "jemalloc"), usage_error);
}

TEST(ProgramRuns, RefusesResultsWithoutRealRunsOrBaseline) {
  EXPECT_THROW(program_part(model::document{}), usage_error);
  program_results_section no_base = try_fixture();
  no_base.baseline = "jemalloc";
  EXPECT_THROW(read_program_runs(no_base), usage_error);
  // A document that holds the part hands it over.
  model::document d;
  d.parts.set(program_document_figures{try_fixture()});
  EXPECT_EQ(program_part(d).command.at(1), "workload.py");
}

// An adaptive `try` stops on its looks, so only its own (stop-rule) intervals hold: advise judges
// those, at its own noise floor, instead of bootstrapping the runs again.
TEST(ProgramRuns, AdviceUsesTheRatiosTryFiled) {
  program_results_section filed = try_fixture();
  // mimalloc's filed interval is wide (few looks): it straddles the floor, so it is not decided,
  // although its five runs on each side alone would decide 1.37x.
  program_ratio wide;
  wide.ratio = 0.73;
  wide.interval = model::interval{0.6, 0.99};
  wide.p_value = 0.008;
  wide.enough_runs = true;
  wide.verdict = "inside the noise";
  filed.combinations[1].cpu_vs_baseline = wide;
  filed.stopping = program_stopping{};
  filed.stopping->interval = "stop rule";
  const program_runs runs = read_program_runs(filed, "glibc");
  ASSERT_EQ(runs.filed.size(), 1u);
  EXPECT_EQ(runs.filed[0].malloc, "mimalloc");
  EXPECT_NEAR(runs.filed[0].ratio, 1 / 0.73, 1e-12);
  EXPECT_NEAR(runs.filed[0].range.low, 1 / 0.99, 1e-12);
  EXPECT_NEAR(runs.filed[0].range.high, 1 / 0.6, 1e-12);
  EXPECT_EQ(runs.filed_interval, "stop rule");
  EXPECT_FALSE(advise_from_filed("glibc", runs.filed).switch_to.has_value());
  EXPECT_TRUE(advise_malloc(runs.baseline, runs.others).switch_to.has_value());
  // Another baseline than the file's: its ratios do not apply.
  EXPECT_TRUE(read_program_runs(filed, "mimalloc").filed.empty());
  EXPECT_TRUE(read_program_runs(try_fixture(), "glibc").filed.empty()) << "no filed ratios";
  // Adaptive rounds without a filed ratio: none, not a bootstrap of runs taken over the looks.
  program_results_section adaptive = try_fixture();
  adaptive.stopping = program_stopping{};
  adaptive.stopping->mode = "adaptive";
  adaptive.stopping->interval = "stop rule";
  const program_runs unjudged = read_program_runs(adaptive, "glibc");
  ASSERT_EQ(unjudged.filed.size(), 1u);
  EXPECT_EQ(unjudged.filed[0].ratio, 0);
  EXPECT_FALSE(advise_from_filed("glibc", unjudged.filed).switch_to.has_value());
}

TEST(ProgramRuns, SameProgramByExecutableName) {
  EXPECT_TRUE(same_program({"/usr/bin/python3.11", "x.py"}, {"python3.11", "-c", "1"}));
  EXPECT_FALSE(same_program({"/usr/bin/python3.11"}, {"/usr/bin/sqlite3"}));
  EXPECT_FALSE(same_program({}, {"/usr/bin/sqlite3"}));
}

trace::trace_header header_with(std::uint32_t version, std::vector<std::string> command) {
  trace::trace_header h;
  h.version = version;
  h.command = std::move(command);
  return h;
}

TEST(RealRuns, RunTheRecordedCommandWhereItRan) {
  trace::trace_header h = header_with(4, {"./app", "--fast"});
  h.context = trace::recorded_context{"/tmp", "", {{"PYTHONMALLOC", "malloc"}}};
  real_run_options o;
  o.mallocs = {"all"};
  o.budget = "1m";
  const real_runs_plan plan = plan_real_runs(h, o);
  EXPECT_EQ(plan.request.working_directory, "/tmp");
  // A relative program names a file in the recorded directory.
  EXPECT_EQ(plan.request.command, (std::vector<std::string>{"/tmp/app", "--fast"}));
  ASSERT_EQ(plan.request.environment.size(), 1u);
  EXPECT_EQ(plan.request.environment[0].second, "malloc");
  EXPECT_TRUE(plan.request.mallocs.empty()) << "the replay's 'all' is try's default";
  EXPECT_EQ(plan.request.budget, std::optional<std::string>("1m"));
  // stdin was no file: the runs read /dev/null, and a note says so.
  EXPECT_TRUE(plan.request.stdin_path.empty());
  bool noted = false;
  for (const auto& n : plan.notes)
    noted = noted || n.find("stdin was not a regular file") != n.npos;
  EXPECT_TRUE(noted);
}

TEST(RealRuns, AnOldTraceRunsHereWithANote) {
  const real_runs_plan plan = plan_real_runs(header_with(3, {"/bin/true"}), {});
  EXPECT_TRUE(plan.request.working_directory.empty());
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("format version 3) records no working directory"), std::string::npos)
      << plan.notes[0];
}

TEST(RealRuns, RefusalsNameTheWayOut) {
  try {
    plan_real_runs(header_with(4, {}), {});
    ADD_FAILURE() << "no command accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--real RESULTS"), std::string::npos) << e.what();
  }
  trace::trace_header gone = header_with(4, {"/bin/true"});
  gone.context = trace::recorded_context{"/nonexistent/alloclab/dir", "", {}};
  EXPECT_THROW(plan_real_runs(gone, {}), usage_error);
  real_run_options here;
  here.working_directory = "/tmp";
  EXPECT_EQ(plan_real_runs(gone, here).request.working_directory, "/tmp");
  // Bad overrides are refused before anything runs.
  real_run_options bad = here;
  bad.budget = "bogus";
  EXPECT_THROW(plan_real_runs(gone, bad), usage_error);
  bad = here;
  bad.working_directory = "/nonexistent/alloclab/dir";
  EXPECT_THROW(plan_real_runs(gone, bad), usage_error);
  bad = here;
  bad.stdin_path = "/tmp";
  EXPECT_THROW(plan_real_runs(gone, bad), usage_error);
}

// A replay's results document with malloc cells at these median ns per call (and one resource
// cell, which is no knob setting).
model::document replay_with(const std::vector<std::pair<std::string, double>>& cells) {
  model::document d;
  model::workload w;
  w.kind = "trace";
  const auto cell = [](const std::string& strategy, const std::string& malloc, double ns) {
    model::cell c;
    c.head.strategy = strategy;
    c.head.malloc = malloc;
    c.head.status = "ok";
    replay_cell_figures f;
    f.replay = replay_figures_out{};
    f.replay->ns_per_call.median = ns;
    c.figures = model::figures::of(f);
    return c;
  };
  for (const auto& [malloc, ns] : cells) w.cells.push_back(cell("malloc", malloc, ns));
  w.cells.push_back(cell("arena", "glibc", 10));
  d.workloads.push_back(std::move(w));
  return d;
}

TEST(KnobTrials, TheReplaysBestSettingOfEachMallocIsTried) {
  const model::document replay = replay_with({{"glibc", 100},
                                              {"glibc_arena2", 110},
                                              {"glibc_nocliff", 95},
                                              {"glibc_trim", 98},
                                              {"jemalloc", 80},
                                              {"jemalloc background_thread=true", 70},
                                              {"tcmalloc release_rate=0", 60}});
  const std::vector<knob_trial> trials = knobs_to_try(replay, {"glibc", "jemalloc", "tcmalloc"});
  ASSERT_EQ(trials.size(), 2u) << "tcmalloc's defaults were not replayed: nothing to rank by";
  EXPECT_EQ(trials[0].label, "glibc_nocliff");
  EXPECT_EQ(trials[0].of.base, "glibc");
  EXPECT_EQ(trials[0].rank, 1u);
  EXPECT_EQ(trials[0].swept, 3u);
  EXPECT_NEAR(trials[0].replay_ratio, 100.0 / 95, 1e-12);
  EXPECT_EQ(trials[1].label, "jemalloc background_thread=true");
  EXPECT_EQ(trials[1].of.setting, "background_thread=true");
  // Two per malloc: the next best too; a malloc the real runs do not run gets none.
  const std::vector<knob_trial> two = knobs_to_try(replay, {"glibc"}, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].label, "glibc_trim");
  EXPECT_EQ(two[1].rank, 2u);
  const std::string text = knob_trials_text(trials);
  EXPECT_NE(text.find("glibc_nocliff (rank 1 of 3 glibc settings swept, estimate 1.05x"),
            std::string::npos)
      << text;
  EXPECT_NE(knob_trials_text({}).find("none"), std::string::npos);
}

TEST(KnobTrials, TriesAreAddedToTheRealRunsOnce) {
  program::try_request r;
  r.mallocs = {"glibc", "jemalloc"};
  r.variants = "jemalloc:dirty_decay_ms=0";
  const std::vector<knob_trial> trials =
      knobs_to_try(replay_with({{"glibc", 100},
                                {"glibc_arena2", 90},
                                {"jemalloc", 80},
                                {"jemalloc background_thread=true dirty_decay_ms=0", 70}}),
                   r.mallocs);
  ASSERT_EQ(trials.size(), 2u);
  add_knob_trials(r, trials);
  add_knob_trials(r, trials);  // the same trials again add nothing
  EXPECT_EQ(r.mallocs, (std::vector<std::string>{"glibc", "jemalloc", "glibc_arena2"}));
  EXPECT_EQ(r.variants,
            "jemalloc:dirty_decay_ms=0,jemalloc:background_thread=true+dirty_decay_ms=0");
  // try's default list is written out before a registry variant joins it.
  program::try_request defaulted;
  add_knob_trials(defaulted, {trials[0]});
  ASSERT_GE(defaulted.mallocs.size(), 2u);
  EXPECT_EQ(defaulted.mallocs.front(), "glibc");
  EXPECT_EQ(defaulted.mallocs.back(), "glibc_arena2");
}

TEST(KnobTrials, TheDefaultSweepNamesOnlyTheMallocsReplayed) {
  EXPECT_EQ(default_knob_sweep({"glibc"}), "glibc:top_pad=16777216");
  EXPECT_EQ(default_knob_sweep({"mimalloc", "tbbmalloc"}), "");
  // Every setting it may name is a valid --variants text.
  EXPECT_NO_THROW(parse_knob_variants(default_knob_sweep({"all"})));
  EXPECT_EQ(tuning_of("glibc_arena2")->setting, "MALLOC_ARENA_MAX=2");
  EXPECT_FALSE(tuning_of("jemalloc").has_value());
}

}  // namespace
}  // namespace alloclab::lab
