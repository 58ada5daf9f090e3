// Equivalence of `alloclab try`'s results document built two ways from the same records: by the
// frame's own builder (program_document over program_section, what `try` writes today) and by
// the shared results builder (results/results_builder.hpp's build_results over the program
// plan and run_records_of the rounds), the route issue 38 moves `try` onto. Where the two still
// differ, a test says so, with why; closing a gap drops it. When none is left, `try` can write
// build_results' document and the frame's own builder goes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "frames/program/figures.hpp"
#include "frames/program/program_document.hpp"
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
  ran.duration_seconds = duration_seconds;
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

// Today's document: the frame's own builder, as try_command's results_of calls it.
json frame_document(const lab::run_plan& plan, const lab::round_records& ran,
                    const stopping_outcome& outcome, const json& noise) {
  return program_document(
      program_section(program_part(plan), rows_of(ran.ran, ran.records), outcome), command_line,
      created, duration_seconds, noise);
}

json shared_document(const lab::run_plan& plan, const lab::run_records& run, const json& noise) {
  lab::results_context context;
  context.build = lab::current_build();
  context.command_line = command_line;
  context.created_utc = created;
  context.noise = noise;
  return lab::model::to_json(lab::build_results(plan, run, context));
}

// A noise gate that found the machine busy, with its warning.
json busy_noise() {
  lab::model::noise_gate gate;
  gate.busy = true;
  gate.warning = "NOISY: other processes used 1.5 CPUs while this run measured";
  return lab::model::write_json(gate);
}

// The JSON pointers at which `a` (the frame's) and `b` (the shared builder's) differ: objects
// key by key (a key only one has is marked so), arrays of objects or arrays of one length
// element by element, anything else (a list of warnings) as a whole.
void differences(const json& a, const json& b, const std::string& at, std::set<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys)
      if (!a.contains(k) || !b.contains(k))
        out.insert(at + "/" + k + (a.contains(k) ? " (frame's only)" : " (shared only)"));
      else
        differences(a.at(k), b.at(k), at + "/" + k, out);
  } else if (a.is_array() && b.is_array() && a.size() == b.size() && !a.empty() &&
             a[0].is_structured()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      differences(a[i], b[i], at + "/" + std::to_string(i), out);
  } else if (a != b) {
    out.insert(at);
  }
}

// Each difference found, with both sides' values (shortened), for the one closing it.
std::string shown(const std::set<std::string>& found, const json& frame, const json& shared) {
  std::string out;
  for (const std::string& difference : found) {
    const json::json_pointer at(difference.substr(0, difference.find(' ')));
    out += difference + "\n  frame's: " + frame.value(at, json()).dump().substr(0, 200) +
           "\n  shared:  " + shared.value(at, json()).dump().substr(0, 200) + "\n";
  }
  return out;
}

// Expects the two documents of `rounds` rounds of `frame_plan`, stopped as `outcome` says, to
// differ at `expected` alone; each difference found is shown with its values.
void expect_differences(const try_plan& frame_plan, std::size_t rounds,
                        const stopping_outcome& outcome, std::set<std::string> expected,
                        const json& noise = nullptr) {
  const lab::run_plan plan = make_program_plan(frame_plan);
  const lab::round_records ran = rounds_of(plan, rounds);
  const json frame = frame_document(plan, ran, outcome, noise),
             shared = shared_document(plan, run_records_of(ran, outcome), noise);
  std::set<std::string> found;
  differences(frame, shared, "", found);
  // 6. the builder warns of a DEBUG build (the sanitizer presets'); try's document does not.
  if (!lab::current_build().benchmark_ready()) expected.insert("/warnings");
  EXPECT_EQ(found, expected) << shown(found, frame, shared);
}

TEST(TryDocument, AFixedRunIsTheSame) {
  try_plan plan = plan_of(5);
  plan.stopping = fixed_stopping(5);
  plan.check_output = true;
  expect_differences(plan, 5, fixed_outcome(5), {});
}

// The rounds stopped before the schedule's end: the records are a prefix of it, and the
// intervals are the stop rule's at its last look.
TEST(TryDocument, AnAdaptiveRunStoppedEarlyIsTheSame) {
  try_plan plan = plan_of(8);
  plan.stopping = adaptive_stopping(4, 8, 30);
  expect_differences(plan, 4, adaptive_outcome(), {});
}

// Left (gap 6 of the list): the builder's warnings of the run as a whole come first and
// include "too few repetitions" (2 rounds cannot reach p < 0.05); try's document puts its own
// warnings before the noise gate's and says nothing of the rounds being too few.
TEST(TryDocument, WarningsStillDifferInOrderAndInTooFewRounds) {
  try_plan plan = plan_of(2);
  plan.stopping = fixed_stopping(2);
  expect_differences(plan, 2, fixed_outcome(2), {"/warnings"});
  expect_differences(plan_of(5), 5, fixed_outcome(5), {"/warnings"}, busy_noise());
}

// The builder's power warning names a try run's repetitions as what they are: rounds.
TEST(TryDocument, TooFewRoundsAreCalledRounds) {
  try_plan frame_plan = plan_of(2);
  frame_plan.stopping = fixed_stopping(2);
  const lab::run_plan plan = make_program_plan(frame_plan);
  const json shared =
      shared_document(plan, run_records_of(rounds_of(plan, 2), fixed_outcome(2)), nullptr);
  const std::vector<std::string> warnings = shared.at("warnings");
  ASSERT_FALSE(warnings.empty());
  const std::string expected =
      "2 rounds are too few for the Mann-Whitney U test to reach p < 0.05 (smallest possible p = "
      "0.333); every verdict says too few runs";
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), expected), warnings.end())
      << shared.at("warnings").dump();
}

}  // namespace
}  // namespace alloclab::program
