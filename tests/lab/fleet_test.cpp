// Test plan: the fleet report and the shard file, on documents made here (no process runs).
//   fleet: a comparison decided in opposite directions on two machines flips, one decided on
//     one machine and inside the noise on the other is "decided on some machines only", the same
//     decided verdict holds, one missing on a machine is "measured on some machines only" and
//     reads "not measured" there; claims likewise (reproduced vs refuted flips); the environment facts
//     that go with a difference are exactly those that split the machines as its verdicts do
//     (with three machines, a fact shared across the split does not go with it); a served
//     variant (the serve section's cells, which have no speedup) does not replace the batch
//     verdict of the workload it serves (FleetReport.*). The report is built from results models
//     and read as fleet.json holds it.
//   identities: two builds differ in the facts named, in the order of their names, each value as
//     JSON text; a machine type is its facts, a twin not measured the same as none
//     (BuildIdentity.*, MachineType.*).
//   shard file: a plan survives the round trip through JSON, mallocs looked up again by name; a
//     file of another results schema version or another kind is refused (ShardFile.*).
#include <optional>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "main/frame_registry.hpp"
#include "frames/serve/figures.hpp"
#include "merge/fleet.hpp"
#include "merge/merge_inputs.hpp"
#include "merge/shard_file.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "frames/heap/run_options.hpp"
#include "frames/memory/run_options.hpp"
#include "frames/replay/run_options.hpp"
#include "frames/serve/run_options.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

model::comparison vs(double ratio, double low, double high, double p) {
  model::comparison c;
  c.speedup_p50 = ratio;
  c.p_value = p;
  c.intervals.speedup_p50 = model::interval{low, high};
  return c;
}

model::cell cell(const std::string& strategy, const std::string& malloc,
                 std::optional<model::comparison> vs_std) {
  model::cell c;
  c.head.strategy = strategy;
  c.head.malloc = malloc;
  c.head.status = "ok";
  c.vs_std = std::move(vs_std);
  return c;
}

model::document machine(const std::string& cpu, const std::string& glibc,
                        const std::optional<std::string>& twin, const model::comparison& arena_vs,
                        const std::string& claim_verdict) {
  model::document d;
  d.environment.cpu_model = cpu;
  d.environment.logical_cpus = 2;
  d.environment.glibc = glibc;
  d.environment.transparent_hugepages = "always [madvise] never";
  d.environment.kernel = "Linux 6.1";
  d.environment.placement.emplace();
  d.environment.placement->probe.has_cliff = twin.has_value();
  d.config.placement_twin = twin;
  d.significance.enough_repetitions = true;
  for (const auto& [id, statement, verdict] :
       {std::tuple{"c1", "arena wins", claim_verdict}, {"c2", "pool wins", "reproduced"}}) {
    model::claim_verdict c;
    c.id = id;
    c.statement = statement;
    c.verdict = verdict;
    d.claims.push_back(c);
  }
  model::workload w;
  w.name = "vector_push";
  w.frame = "batch";
  w.cells = {cell("std", "glibc", std::nullopt), cell("arena", "glibc", arena_vs),
             cell("pool", "glibc", vs(1.5, 1.4, 1.6, 0.001))};
  if (twin) w.cells.push_back(cell("arena", "glibc_nocliff", vs(1.3, 1.2, 1.4, 0.001)));
  d.workloads.push_back(w);
  return d;
}

// The report as fleet.json holds it.
json fleet_of(const std::vector<fleet_machine>& machines) {
  return fleet_json(fleet_document(machines));
}

const json& row_of(const json& fleet, const char* kind, const std::string& id) {
  for (const auto& r : fleet.at(kind))
    if (r.at("id") == id) return r;
  static const json none;
  ADD_FAILURE() << "no row " << id;
  return none;
}

std::vector<std::string> facts_named(const json& row) {
  std::vector<std::string> names;
  for (const auto& f : row.at("facts")) names.push_back(f.at("fact"));
  return names;
}

TEST(FleetReport, FlipsHoldsAndFactsThatGoWithThem) {
  const model::document a =
      machine("EPYC 9B14", "2.36", "glibc_nocliff", vs(5.1, 4.8, 5.4, 0.001), "reproduced");
  const model::document b =
      machine("EPYC 9R45", "2.36", std::nullopt, vs(0.8, 0.75, 0.85, 0.001), "refuted");
  const fleet_report report =
      fleet_document({{"A", "a/results.json", a}, {"B", "b/results.json", b}});
  const json fleet = fleet_json(report);

  const json& arena = row_of(fleet, "comparisons", "batch/vector_push/arena/glibc");
  EXPECT_EQ(arena.at("agreement"), flips);
  EXPECT_EQ(arena.at("decided").at("A"), "faster than the baseline");
  EXPECT_EQ(arena.at("decided").at("B"), "slower than the baseline");
  EXPECT_EQ(facts_named(arena),
            (std::vector<std::string>{"copy_cliff", "cpu_model", "placement_twin"}));
  EXPECT_EQ(row_of(fleet, "comparisons", "batch/vector_push/pool/glibc").at("agreement"),
            holds_everywhere);
  const json& twin = row_of(fleet, "comparisons", "batch/vector_push/arena/glibc_nocliff");
  EXPECT_EQ(twin.at("agreement"), measured_on_some);
  EXPECT_EQ(twin.at("verdicts").at("B"), "not measured");
  EXPECT_EQ(row_of(fleet, "claims", "c1").at("agreement"), flips);
  EXPECT_EQ(row_of(fleet, "claims", "c2").at("agreement"), holds_everywhere);
  EXPECT_EQ(fleet.at("counts").at(flips).at("claims"), 1);
  EXPECT_EQ(fleet.at("differing_facts"), (json{"copy_cliff", "cpu_model", "placement_twin"}));

  const std::string md = fleet_markdown(report);
  EXPECT_NE(md.find("## Conclusions that flip between machines"), std::string::npos);
  EXPECT_NE(md.find("batch vector_push / arena @ glibc vs the baseline** — A: faster 5.1"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Goes with: copy_cliff (A true; B false), cpu_model (A EPYC 9B14; B EPYC "
                    "9R45), placement_twin (A glibc_nocliff; B not measured)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| c1: arena wins | reproduced | refuted | flips |"), std::string::npos);
  EXPECT_NE(md.find("1 conclusion(s); goes with: copy_cliff (A true; B false), cpu_model"),
            std::string::npos);
}

TEST(FleetReport, InsideTheNoiseIsUndecidedAndAFactSharedAcrossTheSplitDoesNotGoWithIt) {
  // A and B share a CPU but read the arena differently; C shares B's verdict and another CPU.
  const auto a = machine("X", "2.36", std::nullopt, vs(1.5, 1.4, 1.6, 0.001), "reproduced");
  const auto b = machine("X", "2.41", std::nullopt, vs(1.01, 0.98, 1.04, 0.3), "reproduced");
  const auto c = machine("Y", "2.41", std::nullopt, vs(1.0, 0.99, 1.02, 0.4), "reproduced");
  const json fleet = fleet_of({{"A", "", a}, {"B", "", b}, {"C", "", c}});
  const json& arena = row_of(fleet, "comparisons", "batch/vector_push/arena/glibc");
  EXPECT_EQ(arena.at("agreement"), decided_on_some);
  EXPECT_TRUE(arena.at("decided").at("B").is_null());
  EXPECT_EQ(facts_named(arena), std::vector<std::string>{"glibc"});  // not the CPU
  EXPECT_EQ(row_of(fleet, "claims", "c1").at("agreement"), holds_everywhere);
}

TEST(FleetReport, NoFactSplitsIsSaid) {
  const auto a = machine("X", "2.36", std::nullopt, vs(1.5, 1.4, 1.6, 0.001), "reproduced");
  const auto b = machine("X", "2.36", std::nullopt, vs(0.7, 0.6, 0.8, 0.001), "reproduced");
  const fleet_report report = fleet_document({{"A", "", a}, {"B", "", b}});
  EXPECT_TRUE(row_of(fleet_json(report), "comparisons", "batch/vector_push/arena/glibc")
                  .at("facts")
                  .empty());
  EXPECT_NE(fleet_markdown(report).find("no single environment fact splits the machines"),
            std::string::npos);
}

// The serve section's cells are no batch comparisons: a served variant (whose vs_std holds serve
// ratios, no speedup) must not replace the batch verdict of the workload it serves.
TEST(FleetReport, ServedCellsDoNotReplaceTheBatchComparisons) {
  model::document a = machine("X", "2.36", std::nullopt, vs(1.5, 1.4, 1.6, 0.001), "reproduced");
  serve_cell served;
  served.head.strategy = "arena";
  served.head.malloc = "glibc";
  served.vs_std.emplace().throughput_ratio_hey = serve_estimate{1.1, std::nullopt, 3};
  serve_section section;
  section.workloads.push_back({"vector_push", {}, {served}});
  a.parts.set(serve_document_figures{section});
  const auto b = machine("Y", "2.36", std::nullopt, vs(1.5, 1.4, 1.6, 0.001), "reproduced");
  const json fleet = fleet_of({{"A", "", a}, {"B", "", b}});
  const json& arena = row_of(fleet, "comparisons", "batch/vector_push/arena/glibc");
  EXPECT_EQ(arena.at("verdicts").at("A"), arena.at("verdicts").at("B"));
  EXPECT_EQ(arena.at("agreement"), holds_everywhere);
}

TEST(BuildIdentity, DifferencesNameEachFactThatDiffers) {
  model::environment a;
  a.build_type = "Release";
  a.compiler = "GNU 12.2.0";
  a.cxx_flags = "-O2";
  a.git_revision = "0123456789ab";
  model::environment b = a;
  EXPECT_TRUE(differences(build_identity_of(a), build_identity_of(b)).empty());
  b.compiler = "Clang 16";
  b.git_revision.reset();
  EXPECT_EQ(differences(build_identity_of(a), build_identity_of(b)),
            (std::vector<std::string>{R"(compiler: "GNU 12.2.0" vs "Clang 16")",
                                      R"(git_revision: "0123456789ab" vs null)"}));
}

TEST(MachineType, IsItsFactsAndATwinNotMeasuredIsNone) {
  model::document a;
  a.environment.cpu_model = "Xeon";
  a.environment.glibc = "2.36";
  model::document b = a;
  b.config.placement_twin.emplace();  // recorded as null: none measured
  EXPECT_TRUE(machine_type_of(a) == machine_type_of(b));
  b.config.placement_twin.emplace("glibc_nocliff");
  EXPECT_FALSE(machine_type_of(a) == machine_type_of(b));
  b = a;
  b.environment.glibc = "2.31";
  EXPECT_FALSE(machine_type_of(a) == machine_type_of(b));
}

TEST(ShardFile, PlanRoundTrip) {
  run_request r;
  r.workloads = {"vector_push", "fifo_uniform"};
  r.strategies = {"std", "pmr_monotonic"};
  r.mallocs = {"glibc", "jemalloc"};
  r.quick = true;
  r.placement_check = placement_check_mode::always;
  r.skip_missing = true;
  const run_plan plan = make_plan(r, false);
  const json once = plan_to_json(plan);
  const run_plan back = plan_from_json(once);
  EXPECT_EQ(plan_to_json(back), once);
  ASSERT_EQ(back.cells.size(), plan.cells.size());
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    EXPECT_EQ(back.cells[i].malloc.entry, plan.cells[i].malloc.entry);
    EXPECT_EQ(back.cells[i].frame, plan.cells[i].frame);
  }
}

// A merge rebuilds the results from the plan in shard.json: every size the results builder reads
// must come back, or a merged budgeted run loses its budget's sizes (the serve frame's
// `generators`, the retention horizon).
TEST(ShardFile, PlanKeepsEverySize) {
  run_request r;
  r.workloads = {"vector_push", "fifo_uniform"};
  r.strategies = {"std"};
  r.quick = true;
  run_plan plan = make_plan(r, false);
  plan.sizes.budget_seconds = 90;
  plan.sizes.max_processes = 7;
  plan.sizes.repetition_ms = 20;
  plan.frame_sizes.slot<serve_plan_sizes>("serve").hey_only = true;
  plan.frame_sizes.slot<heap_plan_sizes>("heap").retention_horizon_s = 3;
  const run_plan read = plan_from_json(plan_to_json(plan));
  const measurement_sizes& back = read.sizes;
  EXPECT_EQ(back.budget_seconds, 90);
  EXPECT_EQ(back.max_processes, 7u);
  EXPECT_EQ(back.repetition_ms, 20);
  EXPECT_TRUE(serve_sizes_of(read).hey_only);
  EXPECT_EQ(heap_sizes_of(read).retention_horizon_s, 3);
  EXPECT_EQ(heap_sizes_of(read).iterations, heap_sizes_of(plan).iterations);
  EXPECT_EQ(memory_sizes_of(read).budget.source, memory_sizes_of(plan).budget.source);
  EXPECT_EQ(replay_sizes_of(read).repetitions, replay_sizes_of(plan).repetitions);
  EXPECT_EQ(back.samples_per_repetition, plan.sizes.samples_per_repetition);
  EXPECT_EQ(back.seed, plan.sizes.seed);
}

TEST(ShardFile, OtherVersionsAndKindsAreRefused) {
  shard_file f;
  f.whole_plan = make_plan(run_request{}, false);
  f.deal = deal_workloads(f.whole_plan, 2, expected_task_seconds);
  EXPECT_EQ(shard_file_from_json(to_json(f), "shard.json").deal, f.deal);
  json doc = to_json(f);
  EXPECT_NO_THROW(shard_file_from_json(doc, "shard.json"));
  doc["results_schema_version"] = results_schema_version - 1;
  EXPECT_THROW(shard_file_from_json(doc, "shard.json"), usage_error);
  EXPECT_THROW(shard_file_from_json(json{{"schema", "alloclab-results"}}, "x"), usage_error);
  json broken = to_json(f);
  broken["plan"]["schedule"].push_back(
      {{"cell", 99999}, {"part", 0}, {"repetitions", 1}, {"order_seed", 1}});
  EXPECT_THROW(shard_file_from_json(broken, "shard.json"), usage_error);
}

}  // namespace
}  // namespace alloclab::lab
