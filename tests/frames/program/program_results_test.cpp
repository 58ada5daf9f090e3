// The program frame's part of results.json on synthetic runs (no process started): built as the
// results model's typed section, written by the model's one codec, read back the same, and what
// its keys say about knobs, failures and how the rounds stopped.
#include "frames/program/program_results.hpp"

#include <gtest/gtest.h>

#include "frames/program/run_description.hpp"
#include "model/document.hpp"
#include "results/results_builder.hpp"
#include "results/schema_check.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;

// glibc (defaults), jemalloc dirty_decay_ms=0 (read back as set), glibc arena_max=2 (glibc
// cannot report it) and mimalloc (its runs fail before the probe reads a knob).
const std::vector<variant> combinations{{"glibc", {}},
                                        {"jemalloc", {{"dirty_decay_ms", "0"}}},
                                        {"glibc", {{"arena_max", "2"}}},
                                        {"mimalloc", {}}};

std::vector<mallocs::knob_reading> readings_of(std::size_t combination) {
  if (combination == 1) return {{"dirty_decay_ms", "0", "mallctl(opt.dirty_decay_ms)"}};
  if (combination == 3) return {};
  return {{"arena_max", std::nullopt, "glibc offers no read-back"}};
}

std::vector<run_row> rows_of(std::size_t rounds) {
  std::vector<run_row> rows;
  for (std::size_t round = 0; round < rounds; ++round)
    for (std::size_t c = 0; c < combinations.size(); ++c) {
      run_row r;
      r.round = round;
      r.position = c;
      r.combination = c;
      r.record.ok = c != 3;
      r.record.live = c != 3;
      r.record.reason = c == 3 ? "exit status 3" : "";
      r.record.exit_code = c == 3 ? 3 : 0;
      r.record.knobs = readings_of(c);
      r.record.figures.user_seconds =
          1.0 + 0.1 * static_cast<double>(c) + 0.001 * static_cast<double>(round);
      r.record.figures.sys_seconds = 0.25;
      r.record.figures.cpu_seconds = r.record.figures.user_seconds + 0.25;
      r.record.figures.wall_seconds = 1.5;
      r.record.figures.peak_rss_bytes = 100'000'000 + 1'000'000 * c + round;
      r.record.stdout_hash = 0xabc;
      r.record.stdout_bytes = 4;
      rows.push_back(r);
    }
  return rows;
}

try_plan plan_of(std::size_t rounds) {
  try_plan plan;
  plan.setup.argv = {"prog", "--flag"};
  plan.setup.working_directory = "/srv";
  plan.combinations = combinations;
  plan.rounds = rounds;
  plan.seed = 42;
  return plan;
}

lab::program_results_section fixed_section() {
  const std::vector<run_row> rows = rows_of(6);
  stopping_outcome outcome;
  outcome.rounds = 6;
  outcome.stopped_because = "the fixed number of rounds";
  return program_results(plan_of(6), rows, compute_figures(combinations, rows, true), true,
                         fixed_stopping(6), outcome);
}

lab::program_results_section adaptive_section() {
  const std::vector<run_row> rows = rows_of(4);
  const stopping_plan stopping = adaptive_stopping(4, 8, 30);
  stopping_outcome outcome;
  outcome.rounds = 4;
  outcome.looks_taken = 1;
  outcome.stopped_because = "the budget spent";
  outcome.open = {"glibc arena_max=2"};
  outcome.failing = {"mimalloc"};
  outcome.compared = 3;
  outcome.decided = 1;
  outcome.confidence = 0.97;
  return program_results(plan_of(8), rows,
                         compute_figures(combinations, rows, false, 0.02, stopping.rule_at(1)),
                         false, stopping, outcome);
}

// The results builder's document of a try plan (an optimised build's), with `section` as its
// program part, set as the program row's results part sets it, and the warnings judged again.
json document_of(const lab::program_results_section& section) {
  lab::results_context context;
  context.build.optimized = true;
  context.build.assertions = false;
  context.command_line = "alloclab try -- prog --flag";
  context.created_utc = "2026-01-01T00:00:00Z";
  stopping_outcome outcome;
  outcome.rounds = section.rounds;
  lab::model::document d =
      lab::build_results(make_program_plan(plan_of(section.rounds)),
                         run_records_of(lab::round_records{}, outcome, 0), context);
  d.parts.set(lab::program_document_figures{section});
  describe_program_run(d);
  d.warnings = lab::collect_warnings(d);
  return lab::model::to_json(d);
}

const lab::program_results_section& read_back(const lab::model::document& d) {
  const auto* part = d.parts.get<lab::program_document_figures>();
  if (part == nullptr) throw std::runtime_error("no program part read back");
  return part->program;
}

TEST(ProgramResults, TheSectionRoundTripsThroughTheModelsCodec) {
  for (const auto& section : {fixed_section(), adaptive_section()}) {
    const json written = document_of(section);
    EXPECT_EQ(lab::schema_violations(written, lab::results_schema()), std::vector<std::string>());
    const lab::model::document d = lab::model::from_json(written);
    EXPECT_EQ(lab::model::write_json(read_back(d)), lab::model::write_json(section));
    EXPECT_EQ(lab::model::to_json(d).at("program"), written.at("program"));
  }
}

TEST(ProgramResults, KnobChecksSayWhetherEachVariantsKnobsTook) {
  const json program = document_of(fixed_section()).at("program");
  const json& c = program.at("combinations");
  EXPECT_EQ(c[0].at("knob_check").at("status"), "no knobs set");
  EXPECT_EQ(c[1].at("knob_check").at("status"), "applied");
  EXPECT_EQ(c[1].at("knob_check").at("read_back").at("dirty_decay_ms"),
            (json{{"set", "0"},
                  {"value", "0"},
                  {"how", "mallctl(opt.dirty_decay_ms)"},
                  {"applied", true}}));
  EXPECT_EQ(c[2].at("knob_check").at("status"), "unverifiable");
  EXPECT_EQ(c[2].at("knob_check").at("read_back").at("arena_max").at("applied"), nullptr);
  EXPECT_EQ(c[3].at("knob_check"), (json{{"status", "not read"}, {"read_back", nullptr}}));
  EXPECT_EQ(c[1].at("knobs"), (json{{"dirty_decay_ms", "0"}}));
  EXPECT_FALSE(c[1].at("knob_environment").empty());
}

TEST(ProgramResults, AKnobReadBackDifferentIsNotApplied) {
  const std::vector<variant> one{{"jemalloc", {{"dirty_decay_ms", "0"}}}};
  std::vector<run_row> rows(2);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].round = i;
    rows[i].record.reason = "knob dirty_decay_ms not applied";
    rows[i].record.knobs = {{"dirty_decay_ms", "10000", "mallctl(opt.dirty_decay_ms)"}};
  }
  stopping_outcome outcome;
  outcome.rounds = 2;
  try_plan plan = plan_of(2);
  plan.combinations = one;
  const auto section = program_results(plan, rows, compute_figures(one, rows, false), false,
                                       fixed_stopping(2), outcome);
  const lab::knob_check_figures& check = section.combinations.at(0).knob_check;
  EXPECT_EQ(check.status, "not applied");
  ASSERT_TRUE(check.read_back.has_value());
  EXPECT_EQ(check.read_back->at("dirty_decay_ms").applied, std::optional<bool>(false));
  EXPECT_EQ(section.runs.at(1).reason,
            std::optional<std::string>("knob dirty_decay_ms not applied"));
}

TEST(ProgramResults, FailedRunsKeepTheirReasonAndGiveNoRatio) {
  const json results = document_of(fixed_section());
  const json& program = results.at("program");
  const json& mimalloc = program.at("combinations")[3];
  EXPECT_EQ(mimalloc.at("runs_failed"), 6);
  EXPECT_EQ(mimalloc.at("cpu_vs_baseline"), nullptr);
  EXPECT_EQ(program.at("runs")[3].at("reason"), "exit status 3");
  EXPECT_EQ(program.at("runs")[0].at("reason"), nullptr);
  EXPECT_EQ(program.at("runs")[0].at("stdout_hash"), "0000000000000abc");
  EXPECT_DOUBLE_EQ(program.at("runs")[0].at("cpu_seconds").get<double>(), 1.25);
  EXPECT_EQ(program.at("baseline"), "glibc");
  EXPECT_EQ(program.at("working_directory"), "/srv");
  EXPECT_EQ(program.at("stdin"), nullptr);
  EXPECT_EQ(results.at("warnings"), (json{"mimalloc: 6 of its runs failed (no numbers)"}));
  EXPECT_EQ(results.at("config").at("mallocs"), (json{"glibc", "mimalloc"}));
}

TEST(ProgramResults, FixedRoundsWriteNoAdaptiveKeysAndAdaptiveOnesWriteThemAll) {
  const json fixed = document_of(fixed_section()).at("program");
  EXPECT_EQ(fixed.at("stopping").at("mode"), "fixed");
  EXPECT_FALSE(fixed.at("stopping").contains("look_rounds"));
  EXPECT_EQ(fixed.at("combinations")[1].at("cpu_vs_baseline").at("decided"), nullptr);

  const json adaptive = document_of(adaptive_section()).at("program");
  const json& stopping = adaptive.at("stopping");
  EXPECT_EQ(stopping.at("mode"), "adaptive");
  EXPECT_EQ(stopping.at("look_rounds").size(), adaptive_stopping(4, 8, 30).look_rounds.size());
  EXPECT_EQ(stopping.at("open"), (json{"glibc arena_max=2"}));
  EXPECT_EQ(stopping.at("failing"), (json{"mimalloc"}));
  EXPECT_EQ(stopping.at("comparisons"), 3);
  EXPECT_TRUE(adaptive.at("combinations")[1].at("cpu_vs_baseline").at("decided").is_boolean());
  EXPECT_EQ(adaptive.at("output"),
            (json{{"mode", "discard"}, {"consistent", true}, {"finding", nullptr}}));
}

// The frame's row gives the results stage its warnings from the program part alone: a run's
// document (no program part) gets none from it.
TEST(ProgramResults, TheRowsWarningsReadOnlyTheProgramPart) {
  EXPECT_TRUE(program_warnings(lab::model::document{}).empty());
  lab::program_results_section section;
  section.output.mode = "discard";
  lab::combination_result failing;
  failing.name = "jemalloc";
  failing.runs_failed = 2;
  section.combinations.push_back(failing);
  lab::model::document d;
  d.parts.set(lab::program_document_figures{section});
  EXPECT_EQ(program_warnings(d),
            (std::vector<std::string>{"jemalloc: 2 of its runs failed (no numbers)"}));
  EXPECT_FALSE(program_numbers_include(lab::run_plan{}).empty());
}

}  // namespace
}  // namespace alloclab::program
