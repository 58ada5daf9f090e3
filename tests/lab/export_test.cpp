// Test plan: `alloclab export --format gbench` (src/lab/export/gbench_export).
//   1. The format is Google Benchmark's own: a reference program built against the installed
//      Google Benchmark is run with --benchmark_format=json; every key of its context, iteration
//      and aggregate entries appears in the export with the same JSON type
//      (KeysAndTypesMatchTheInstalledGoogleBenchmark).
//   2. Reader conventions hold: aggregate names are RUN_NAME_mean/_median/_stddev/_cv, cv is a
//      percentage, iteration entries carry repetition_index 0..n-1 and the cell's repetition
//      means, and memory figures only where a per-iteration figure belongs (not on
//      stddev or cv); a cell that did not run is an error entry (EntriesCarryTheCellsRepetitions,
//      ACellThatDidNotRunIsAnErrorEntry).
//   3. The command: writes -o atomically, refuses an unknown format, the results file as its
//      own output and a missing file, each with exit 2 and one line (CommandWritesAndRefuses).
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "export/gbench_export.hpp"
#include "model/document.hpp"
#include "results/results_file.hpp"
#include "stats/stats.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using namespace cli_support;

json reference_output() {
  const std::string command = std::string("'") + ALLOCLAB_GBENCH_REFERENCE +
                              "' --benchmark_format=json --benchmark_repetitions=3 "
                              "--benchmark_min_time=0 2>/dev/null";
  std::string text;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return json();
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  ::pclose(pipe);
  return json::parse(text);
}

// Every key of `reference` is in `entry`, with the same JSON type (numbers are numbers), but
// cpu_scaling_enabled, which an export leaves out when the run could not read the governor.
void expect_same_keys(const json& reference, const json& entry, const std::string& what) {
  for (const auto& [key, value] : reference.items()) {
    if (key == "cpu_scaling_enabled" && !entry.contains(key)) continue;
    ASSERT_TRUE(entry.contains(key)) << what << " lacks '" << key << "': " << entry.dump();
    const bool both_numbers = value.is_number() && entry.at(key).is_number();
    EXPECT_TRUE(both_numbers || value.type() == entry.at(key).type())
        << what << " '" << key << "' is " << entry.at(key).type_name() << ", Google Benchmark "
        << "writes " << value.type_name();
  }
}

// The export of a results document given as JSON, read through the results model.
json exported_of(const json& results) {
  return to_gbench_json(model::from_json(results));
}

const json* first_entry(const json& benchmarks, const std::string& run_type,
                        const std::string& aggregate = "") {
  for (const json& b : benchmarks)
    if (b.at("run_type") == run_type &&
        (aggregate.empty() || b.value("aggregate_name", "") == aggregate))
      return &b;
  return nullptr;
}

TEST(GbenchExport, KeysAndTypesMatchTheInstalledGoogleBenchmark) {
  const json reference = reference_output();
  ASSERT_TRUE(reference.is_object()) << "the reference program printed no JSON";
  const json exported = exported_of(report_fixture::results());
  expect_same_keys(reference.at("context"), exported.at("context"), "context");
  const json& ours = exported.at("benchmarks");
  const json* iteration = first_entry(reference.at("benchmarks"), "iteration");
  ASSERT_NE(iteration, nullptr);
  for (const json& b : ours)
    if (b.at("run_type") == "iteration") expect_same_keys(*iteration, b, b.at("name"));
  for (const char* aggregate : {"mean", "median", "stddev", "cv"}) {
    const json* ref = first_entry(reference.at("benchmarks"), "aggregate", aggregate);
    ASSERT_NE(ref, nullptr) << aggregate;
    const json* mine = first_entry(ours, "aggregate", aggregate);
    ASSERT_NE(mine, nullptr) << aggregate;
    expect_same_keys(*ref, *mine, aggregate);
    EXPECT_EQ(mine->at("aggregate_unit"), ref->at("aggregate_unit")) << aggregate;
    // Google Benchmark's naming rule, checked on its own output and on ours.
    EXPECT_EQ(ref->at("name"), ref->at("run_name").get<std::string>() + "_" + aggregate);
    EXPECT_EQ(mine->at("name"), mine->at("run_name").get<std::string>() + "_" + aggregate);
  }
}

TEST(GbenchExport, EntriesCarryTheCellsRepetitions) {
  const json results = report_fixture::results();
  const json exported = exported_of(results);
  std::map<std::string, std::vector<double>> iterations;
  std::map<std::string, json> aggregates;
  for (const json& b : exported.at("benchmarks")) {
    if (b.at("run_type") == "iteration") {
      EXPECT_EQ(b.at("repetition_index"), iterations[b.at("run_name")].size());
      iterations[b.at("run_name")].push_back(b.at("real_time"));
      EXPECT_EQ(b.at("cpu_time"), b.at("real_time"));
      EXPECT_EQ(b.at("time_unit"), "ns");
    } else {
      aggregates[b.at("name")] = b;
    }
  }
  std::size_t cells = 0;
  for (const json& w : results.at("workloads"))
    for (const json& c : w.at("cells")) {
      ++cells;
      const std::string name = w.at("name").get<std::string>() + "/" +
                               c.at("strategy").get<std::string>() +
                               "/malloc:" + c.at("malloc").get<std::string>();
      const std::vector<double> means = c.at("timing").at("repetition_means_ns");
      EXPECT_EQ(iterations[name], means) << name;
      ASSERT_TRUE(aggregates.count(name + "_median")) << name;
      EXPECT_DOUBLE_EQ(aggregates[name + "_median"].at("real_time").get<double>(),
                       summarize(means).p50);
      EXPECT_EQ(aggregates[name + "_mean"].at("repetitions"), means.size());
      EXPECT_EQ(aggregates[name + "_cv"].at("aggregate_unit"), "percentage");
      // Memory figures are per iteration: they belong beside times, not beside a spread.
      if (c.at("heap").is_object()) {
        EXPECT_EQ(aggregates[name + "_mean"].at("allocs_per_iter"),
                  c.at("heap").at("allocations_per_iteration"));
      }
      for (const char* spread : {"_stddev", "_cv"}) {
        EXPECT_FALSE(aggregates[name + spread].contains("allocs_per_iter")) << name << spread;
        EXPECT_FALSE(aggregates[name + spread].contains("alloclab_bytes_per_iter"))
            << name << spread;
      }
    }
  EXPECT_EQ(iterations.size(), cells);
  EXPECT_EQ(exported.at("context").at("library_build_type"), "release");
  EXPECT_NE(exported.at("context").at("alloclab_time_note").get<std::string>().find("cpu_time"),
            std::string::npos);
}

TEST(GbenchExport, ACellThatDidNotRunIsAnErrorEntry) {
  json results = report_fixture::results();
  json& cell = results.at("workloads").at(0).at("cells").at(1);
  cell["status"] = "failed";
  cell["reason"] = "worker killed by SIGKILL";
  cell["timing"] = nullptr;
  const json exported = exported_of(results);
  std::size_t errors = 0;
  for (const json& b : exported.at("benchmarks")) {
    if (!b.value("error_occurred", false)) continue;
    ++errors;
    EXPECT_EQ(b.at("name"), "request_mix/pmr_monotonic_over_pool/malloc:glibc");
    EXPECT_EQ(b.at("error_message"), "failed: worker killed by SIGKILL");
    // Google Benchmark writes these on an errored run too; readers index them.
    EXPECT_EQ(b.at("iterations"), 0);
    EXPECT_EQ(b.at("real_time"), 0.0);
    EXPECT_EQ(b.at("cpu_time"), 0.0);
    EXPECT_EQ(b.at("time_unit"), "ns");
  }
  EXPECT_EQ(errors, 1u);
}

// host_name is not `uname -m` (results.json records no host name); cpu_scaling_enabled is said
// only when the governor was read (false would claim scaling was off on a VM that exposes none).
TEST(GbenchExport, ContextSaysOnlyWhatTheRunRead) {
  json results = report_fixture::results();
  results["environment"]["governor"] = nullptr;
  json context = exported_of(results).at("context");
  EXPECT_FALSE(context.contains("cpu_scaling_enabled")) << context.dump();
  EXPECT_NE(context.at("host_name"), results.at("environment").at("machine"));
  results["environment"]["governor"] = "powersave";
  context = exported_of(results).at("context");
  EXPECT_EQ(context.at("cpu_scaling_enabled"), true);
}

// A `try` run has no repetitions to export: its program frame is named as not exported (README).
TEST(GbenchExport, TryResultsNameTheProgramFrameAsNotExported) {
  const json results =
      json::parse(read_file(fs::path(ALLOCLAB_TEST_DATA) / "try_fixture" / "results.json"));
  const json exported = exported_of(results);
  EXPECT_EQ(exported.at("context").at("alloclab_frames_not_exported"), json::array({"program"}));
}

class ExportCommand : public binary_test {};

TEST_F(ExportCommand, CommandWritesAndRefuses) {
  const fs::path out = dir_ / "gbench.json";
  const outcome ok = run("export --format gbench " + report_fixture::results_file.string() +
                         " -o " + out.string());
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(json::parse(read_file(out)),
            to_gbench_json(read_results_model_as_written(report_fixture::results_file.string())));
  // The file's own version, not the one the model reads it as.
  EXPECT_EQ(json::parse(read_file(out)).at("context").at("alloclab_schema_version"),
            report_fixture::results().at("schema_version"));

  const fs::path copy = dir_ / "results.json";
  fs::copy_file(report_fixture::results_file, copy);
  for (const std::string& args :
       {"export --format csv " + report_fixture::results_file.string(),
        "export --format gbench " + copy.string() + " -o " + copy.string(),
        "export --format gbench " + (dir_ / "missing.json").string(),
        std::string("export " + report_fixture::results_file.string())}) {
    const outcome refused = run(args);
    EXPECT_EQ(refused.exit_code, 2) << args;
    EXPECT_EQ(line_count(refused.err), 1u) << args << ": " << refused.err;
  }
  EXPECT_EQ(read_file(copy), read_file(report_fixture::results_file));
}

}  // namespace
}  // namespace alloclab::lab
