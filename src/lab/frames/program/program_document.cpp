#include "frames/program/program_document.hpp"

#include <fmt/format.h>

#include "measure/build_guard.hpp"
#include "render/atomic_write.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "results/environment.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

namespace alloclab::program {

using json = nlohmann::json;

namespace {

constexpr const char* frame_description =
    "the user's own program, run whole under each malloc (preloaded, proven live in every process "
    "by the liveness probe) and knob variant: CPU time of its process tree, wall time and peak RSS "
    "from wait4, so page faults, start-up and the program's own memory accesses are included";

json warnings_of(const json& program) {
  json warnings = json::array();
  const json& output = program.at("output");
  if (output.at("mode") == "check" && !output.at("consistent").get<bool>())
    warnings.push_back("program output differs: " + output.at("finding").get<std::string>());
  for (const json& c : program.at("combinations"))
    if (c.at("runs_failed").get<std::size_t>() > 0)
      warnings.push_back(fmt::format("{}: {} of its runs failed (no numbers)",
                                     c.at("name").get<std::string>(),
                                     c.at("runs_failed").get<std::size_t>()));
  return warnings;
}

// The run's configuration in the lab's terms: one run of the program is one sample, a round is a
// repetition; there are no workloads or strategies.
json config_of(const json& program) {
  json mallocs = json::array();
  for (const json& c : program.at("combinations"))
    if (c.at("knobs").empty()) mallocs.push_back(c.at("malloc"));
  return {{"workloads", json::array()},
          {"strategies", json::array()},
          {"samples_per_repetition", 1},
          {"repetitions", program.at("rounds")},
          {"seed", program.at("seed")},
          {"quick", false},
          {"counted_iterations", 1},
          {"mallocs", mallocs},
          {"skip_missing", false},
          {"cell_timeout_seconds", program.at("timeout_seconds")},
          {"heap", nullptr}};
}

}  // namespace

json program_document(json program, const std::string& command_line, const std::string& created_utc,
                      double duration_seconds) {
  const lab::build_facts build = lab::current_build();
  const std::size_t rounds = program.at("rounds").get<std::size_t>();
  json results = {
      {"schema", "alloclab-results"},
      {"schema_version", lab::results_schema_version},
      {"created_utc", created_utc},
      {"command", command_line},
      {"debug_build", !build.benchmark_ready()},
      {"smoke_test", false},
      {"config", config_of(program)},
      {"frames", {{"program", frame_description}}},
      {"environment", lab::model::write_json(lab::describe_environment(build))},
      {"timer",
       {{"clock", "wait4 rusage (CPU) and CLOCK_MONOTONIC (wall), one reading per run"},
        {"overhead_ns", 0},
        {"resolution_ns", 1000},
        {"batch_threshold_ns", 0}}},
      {"duration_seconds", duration_seconds},
      {"significance",
       {{"test", "Mann-Whitney U, two-sided, over per-run figures"},
        {"alpha", lab::significance_alpha},
        {"smallest_possible_p", lab::mann_whitney_min_p(rounds, rounds)},
        {"enough_repetitions", lab::test_has_power(rounds)}}},
      {"warnings", warnings_of(program)},
      {"workloads", json::array()},
      {"claims", json::array()},
      {"published_tables", json::array()},  // no seed published a table of the user's program
      {"heap_retention", json::array()},    // no heap-study cell runs here
  };
  results["environment"]["placement"] = nullptr;
  results["program"] = std::move(program);
  return results;
}

void write_program_outputs(const json& results, const std::filesystem::path& directory) {
  lab::write_file_atomically(directory / "results.json", results.dump(2) + "\n");
  lab::write_file_atomically(directory / "report.md", lab::render_report(results));
  lab::write_file_atomically(directory / "report.html", lab::render_html_report(results));
}

}  // namespace alloclab::program
