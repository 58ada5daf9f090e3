#include "merge/shard_file.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "mallocs/malloc_table.hpp"
#include "merge/frame_figures_reader.hpp"
#include "plan/frame_planner.hpp"

namespace alloclab::lab {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(task, cell, part, repetitions, order_seed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(measurement_sizes, samples_per_repetition, repetitions,
                                   processes, counted_iterations, seed, quick, seed_plan,
                                   budget_seconds, max_processes, repetition_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(build_facts, optimized, assertions, sanitized, build_type,
                                   compiler, flags)

namespace {

using json = nlohmann::json;

json choice_json(const malloc_choice& m) {
  return {{"label", m.label},     {"argument", m.argument},
          {"custom", m.custom()}, {"preload_path", m.preload_path},
          {"named", m.named},     {"missing", m.missing}};
}

malloc_choice choice_from_json(const json& j) {
  malloc_choice m;
  m.label = j.at("label").get<std::string>();
  m.argument = j.at("argument").get<std::string>();
  m.preload_path = j.at("preload_path").get<std::string>();
  m.named = j.at("named").get<bool>();
  m.missing = j.at("missing").get<std::string>();
  if (!j.at("custom").get<bool>()) {
    m.entry = alloclab::mallocs::find_malloc(m.argument);
    if (m.entry == nullptr) throw usage_error("unknown malloc '" + m.argument + "'");
  }
  return m;
}

// Each frame's own sizes, from their JSON by the frame's row (read_sizes).
frame_slots frame_sizes_from_json(const json& j) {
  frame_slots sizes;
  for (const auto& [name, value] : j.items()) {
    const frame_planner* row = find_planner(name);
    if (row == nullptr || row->read_sizes == nullptr)
      throw usage_error(fmt::format("frame_sizes names '{}', a frame with no sizes", name));
    sizes.put_slot(name, row->read_sizes(value));
  }
  return sizes;
}

std::vector<std::string> frame_names_of(const std::vector<frame>& frames) {
  std::vector<std::string> names;
  for (const frame f : frames) names.push_back(to_string(f));
  return names;
}

}  // namespace

json plan_to_json(const run_plan& plan) {
  json mallocs = json::array(), cells = json::array();
  for (const auto& m : plan.mallocs) mallocs.push_back(choice_json(m));
  for (const auto& c : plan.cells)
    cells.push_back({{"workload", c.workload},
                     {"strategy", c.strategy},
                     {"malloc", choice_json(c.malloc)},
                     {"frame", to_string(c.frame)},
                     {"copy_cliff_removed", c.copy_cliff_removed}});
  return {{"frames", frame_names_of(plan.frames)},
          {"lab_workloads", plan.workloads.lab},
          {"heap_workloads", plan.workloads.heap},
          {"memory_workloads", plan.workloads.memory},
          {"strategies", plan.strategies},
          {"mallocs", std::move(mallocs)},
          {"cells", std::move(cells)},
          {"schedule", plan.schedule},
          {"sizes", plan.sizes},
          {"cell_timeout_ms", plan.cell_timeout.count()},
          {"skip_missing", plan.skip_missing},
          {"allow_debug", plan.allow_debug},
          {"placement_check", to_string(plan.placement_check)},
          {"placement_twin", plan.placement_twin},
          {"frame_sizes", plan.frame_sizes.to_json()}};
}

run_plan plan_from_json(const json& j) {
  run_plan plan;
  for (const auto& name : j.at("frames")) plan.frames.push_back(frame_from_string(name));
  j.at("lab_workloads").get_to(plan.workloads.lab);
  j.at("heap_workloads").get_to(plan.workloads.heap);
  j.at("memory_workloads").get_to(plan.workloads.memory);
  j.at("strategies").get_to(plan.strategies);
  for (const auto& m : j.at("mallocs")) plan.mallocs.push_back(choice_from_json(m));
  for (const auto& c : j.at("cells"))
    plan.cells.push_back({c.at("workload").get<std::string>(), c.at("strategy").get<std::string>(),
                          choice_from_json(c.at("malloc")),
                          frame_from_string(c.at("frame").get<std::string>()),
                          c.at("copy_cliff_removed").get<bool>()});
  j.at("schedule").get_to(plan.schedule);
  for (const task& t : plan.schedule)
    if (t.cell >= plan.cells.size())
      throw usage_error("a task names a cell the plan does not have");
  j.at("sizes").get_to(plan.sizes);
  plan.cell_timeout = std::chrono::milliseconds(j.at("cell_timeout_ms").get<std::int64_t>());
  j.at("skip_missing").get_to(plan.skip_missing);
  j.at("allow_debug").get_to(plan.allow_debug);
  plan.placement_check = parse_placement_check_mode(j.at("placement_check").get<std::string>());
  j.at("placement_twin").get_to(plan.placement_twin);
  plan.frame_sizes = frame_sizes_from_json(j.at("frame_sizes"));
  resolve_repetitions(plan);
  return plan;
}

json to_json(const shard_file& file) {
  json records = json::array();
  for (const auto& r : file.records.records) records.push_back(record_to_json(r));
  return {
      {"schema", "alloclab-shard"},
      {"results_schema_version", results_schema_version},
      {"shard",
       {{"index", file.shard.index}, {"count", file.shard.count}, {"source", file.shard.source}}},
      {"deal", file.deal},
      {"plan", plan_to_json(file.whole_plan)},
      {"records", std::move(records)},
      {"frame_facts", file.records.frame_facts},
      {"duration_seconds", file.records.duration_seconds},
      {"context",
       {{"build", file.context.build},
        {"command", file.context.command_line},
        {"created_utc", file.context.created_utc},
        {"placement", model::write_json(file.context.placement)}}}};
}

shard_file shard_file_from_json(const json& doc, const std::string& path) {
  if (!doc.is_object() || doc.value("schema", "") != "alloclab-shard")
    throw usage_error(fmt::format("{}: not an alloclab shard file", path));
  const int version = doc.value("results_schema_version", 0);
  if (version != results_schema_version)
    throw usage_error(
        fmt::format("{}: written for results schema version {}; this alloclab reads "
                    "version {} (merge shards with the alloclab that ran them)",
                    path, version, results_schema_version));
  try {
    shard_file file;
    const json& s = doc.at("shard");
    file.shard = {s.at("index").get<std::size_t>(), s.at("count").get<std::size_t>(),
                  s.at("source").get<std::string>()};
    doc.at("deal").get_to(file.deal);
    file.whole_plan = plan_from_json(doc.at("plan"));
    for (const auto& r : doc.at("records")) file.records.records.push_back(read_record(r));
    file.records.frame_facts = doc.at("frame_facts");
    file.records.duration_seconds = doc.at("duration_seconds").get<double>();
    const json& c = doc.at("context");
    file.context.build = c.at("build").get<build_facts>();
    file.context.command_line = c.at("command").get<std::string>();
    file.context.created_utc = c.at("created_utc").get<std::string>();
    file.context.placement = model::read_json<std::optional<model::placement_facts>>(
        c.at("placement"), "/context/placement");
    return file;
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{}: malformed shard file: {}", path, e.what()));
  } catch (const model::model_error& e) {
    throw usage_error(fmt::format("{}: malformed shard file: {}", path, e.what()));
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("{}: malformed shard file: {}", path, e.what()));
  }
}

}  // namespace alloclab::lab
