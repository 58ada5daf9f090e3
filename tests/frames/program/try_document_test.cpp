// `alloclab try`'s results document, as try writes it: the one results builder
// (results/results_builder.hpp's build_results) over the program plan and run_records_of its
// rounds, the program row's results part adding the frame's section. Test plan:
//   the program part is the frame's section of the records, for a fixed run and an adaptive run
//     stopped early (TheProgramPartIsTheFramesSectionOfTheRecords);
//   the run as a whole is the rounds': config, timer, significance; no budget, claims, or other
//     frames' keys (TheRunAsAWholeIsTheRounds);
//   the warnings are the builder's one rule: the run's own first (DEBUG, noise, too few rounds,
//     said in rounds), then the program's (WarningsAreTheBuildersRuleInRounds).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frames/program/figures.hpp"
#include "frames/program/program_plan.hpp"
#include "frames/program/program_results.hpp"
#include "frames/program/stopping.hpp"
#include "measure/build_guard.hpp"
#include "model/document.hpp"
#include "results/results_builder.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;

constexpr const char* command_line = "alloclab try -- prog --flag";
constexpr const char* created = "2026-01-01T00:00:00Z";
constexpr double duration_seconds = 2.5;

// glibc, jemalloc with a knob (read back as set) and mimalloc, whose runs fail.
const std::vector<variant> combinations{
    {"glibc", {}}, {"jemalloc", {{"dirty_decay_ms", "0"}}}, {"mimalloc", {}}};

try_plan plan_of(std::size_t rounds) {
  try_plan plan;
  plan.setup.argv = {"prog", "--flag"};
  plan.combinations = combinations;
  plan.rounds = rounds;
  plan.seed = 7;
  return plan;
}

run_record run_of(std::size_t round, std::size_t combination) {
  run_record r;
  r.ok = combination != 2;
  r.live = r.ok;
  r.reason = r.ok ? "" : "exit status 3";
  r.exit_code = r.ok ? 0 : 3;
  if (combination == 1) r.knobs = {{"dirty_decay_ms", "0", "mallctl(opt.dirty_decay_ms)"}};
  const double c = static_cast<double>(combination), k = static_cast<double>(round);
  r.figures.user_seconds = 1.0 + 0.2 * c + 0.001 * k;
  r.figures.sys_seconds = 0.25;
  r.figures.cpu_seconds = r.figures.user_seconds + r.figures.sys_seconds;
  r.figures.wall_seconds = 1.5;
  r.figures.peak_rss_bytes = 100'000'000 + 1'000'000 * combination + round;
  r.stdout_hash = 0xabc;
  r.stdout_bytes = 4;
  return r;
}

// The first `rounds` rounds of the plan's schedule, as run_rounds returns them: the executor's
// record of each task, in schedule order.
lab::round_records rounds_of(const lab::run_plan& plan, std::size_t rounds) {
  lab::round_records ran;
  const try_plan& part = program_part(plan);
  for (const lab::task& t : plan.schedule) {
    if (t.part >= rounds) break;
    ran.records.push_back(record_of(part.combinations.at(t.cell), t, run_of(t.part, t.cell)));
    ran.ran.push_back(t);
  }
  ran.completed = rounds;
  return ran;
}

stopping_outcome fixed_outcome(std::size_t rounds) {
  stopping_outcome outcome;
  outcome.rounds = rounds;
  outcome.stopped_because = "the fixed number of rounds";
  return outcome;
}

// Stopped at its first look, after 4 of at most 8 rounds: the budget spent, one comparison open.
stopping_outcome adaptive_outcome() {
  stopping_outcome outcome;
  outcome.rounds = 4;
  outcome.looks_taken = 1;
  outcome.last_look_final = true;
  outcome.stopped_because = "the budget spent";
  outcome.open = {"jemalloc dirty_decay_ms=0"};
  outcome.failing = {"mimalloc"};
  outcome.compared = 2;
  outcome.confidence = 0.95;
  return outcome;
}

// An optimised build's facts, or a debug build's (the builder warns DEBUG).
lab::build_facts build_of(bool benchmark_ready) {
  lab::build_facts build = lab::current_build();
  build.optimized = benchmark_ready;
  build.assertions = !benchmark_ready;
  build.sanitized = false;
  return build;
}

// The document `try` writes of the first `rounds` rounds of `frame_plan`, stopped as `outcome`
// says.
json try_document(const try_plan& frame_plan, std::size_t rounds, const stopping_outcome& outcome,
                  const json& noise = nullptr, bool benchmark_ready = true) {
  const lab::run_plan plan = make_program_plan(frame_plan);
  lab::results_context context;
  context.build = build_of(benchmark_ready);
  context.command_line = command_line;
  context.created_utc = created;
  context.noise = lab::model::read_json<std::optional<lab::model::noise_gate>>(noise);
  return lab::model::to_json(lab::build_results(
      plan, run_records_of(rounds_of(plan, rounds), outcome, duration_seconds), context));
}

// The frame's section of the same records, built directly.
json section_of(const try_plan& frame_plan, std::size_t rounds, const stopping_outcome& outcome) {
  const lab::run_plan plan = make_program_plan(frame_plan);
  const lab::round_records ran = rounds_of(plan, rounds);
  return lab::model::write_json(
      program_section(program_part(plan), rows_of(ran.ran, ran.records), outcome));
}

// A noise gate that found the machine busy, with its warning.
json busy_noise() {
  lab::model::noise_gate gate;
  gate.busy = true;
  gate.warning = "NOISY: other processes used 1.5 CPUs while this run measured";
  return lab::model::write_json(gate);
}

try_plan fixed_plan(std::size_t rounds) {
  try_plan plan = plan_of(rounds);
  plan.stopping = fixed_stopping(rounds);
  plan.check_output = true;
  return plan;
}

// Stopped after 4 of at most 8 rounds.
try_plan adaptive_plan() {
  try_plan plan = plan_of(8);
  plan.stopping = adaptive_stopping(4, 8, 30);
  return plan;
}

TEST(TryDocument, TheProgramPartIsTheFramesSectionOfTheRecords) {
  EXPECT_EQ(try_document(fixed_plan(5), 5, fixed_outcome(5)).at("program"),
            section_of(fixed_plan(5), 5, fixed_outcome(5)));
  // The rounds stopped before the schedule's end: the records are a prefix of it, and the
  // intervals are the stop rule's at its last look.
  const json adaptive = try_document(adaptive_plan(), 4, adaptive_outcome()).at("program");
  EXPECT_EQ(adaptive, section_of(adaptive_plan(), 4, adaptive_outcome()));
  EXPECT_EQ(adaptive.at("rounds"), 4);
  EXPECT_EQ(adaptive.at("runs").size(), 4 * combinations.size());
  EXPECT_EQ(adaptive.at("stopping").at("mode"), "adaptive");
}

TEST(TryDocument, TheRunAsAWholeIsTheRounds) {
  const json d = try_document(adaptive_plan(), 4, adaptive_outcome());
  EXPECT_EQ(d.at("command"), command_line);
  EXPECT_EQ(d.at("created_utc"), created);
  EXPECT_EQ(d.at("duration_seconds"), duration_seconds);
  EXPECT_EQ(d.at("debug_build"), false);
  const json& config = d.at("config");
  EXPECT_EQ(config.at("repetitions"), 4) << "a round is a repetition";
  EXPECT_EQ(config.at("samples_per_repetition"), 1);
  EXPECT_EQ(config.at("mallocs"), (json{"glibc", "mimalloc"}));
  EXPECT_EQ(config.at("seed"), 7);
  EXPECT_EQ(config.at("workloads"), json::array());
  EXPECT_NE(d.at("timer").at("clock").get<std::string>().find("wait4"), std::string::npos);
  EXPECT_EQ(d.at("significance").at("test"), "Mann-Whitney U, two-sided, over per-run figures");
  EXPECT_EQ(d.at("significance").at("enough_repetitions"), true);
  EXPECT_FALSE(d.contains("budget")) << "the program part's `stopping` says how the rounds stopped";
  EXPECT_EQ(d.at("claims"), json::array());
  EXPECT_EQ(d.at("published_tables"), json::array());
  for (const char* other : {"heap_retention", "retention_timelines", "serve"})
    EXPECT_FALSE(d.contains(other)) << other;
  EXPECT_EQ(d.at("frames").size(), 1u);
  EXPECT_TRUE(d.at("frames").contains("program"));
  EXPECT_EQ(d.at("workloads"), json::array());
}

// The builder's one warning rule, for every frame: the run's own warnings first (DEBUG, noise,
// too few repetitions: here rounds, of which 2 cannot reach p < 0.05), then the program's.
TEST(TryDocument, WarningsAreTheBuildersRuleInRounds) {
  const std::string too_few =
      "2 rounds are too few for the Mann-Whitney U test to reach p < 0.05 (smallest possible p = "
      "0.333); every verdict says too few runs";
  EXPECT_EQ(try_document(fixed_plan(2), 2, fixed_outcome(2)).at("warnings"),
            (json{too_few, "mimalloc: 2 of its runs failed (no numbers)"}));
  const json noise = busy_noise();
  EXPECT_EQ(try_document(fixed_plan(5), 5, fixed_outcome(5), noise).at("warnings"),
            (json{noise.at("warning"), "mimalloc: 5 of its runs failed (no numbers)"}));
  const json debug = try_document(fixed_plan(5), 5, fixed_outcome(5), noise, false);
  EXPECT_EQ(debug.at("debug_build"), true);
  EXPECT_EQ(debug.at("warnings"),
            (json{"DEBUG build: these numbers measure unoptimised code and mean nothing",
                  noise.at("warning"), "mimalloc: 5 of its runs failed (no numbers)"}));
}

}  // namespace
}  // namespace alloclab::program
