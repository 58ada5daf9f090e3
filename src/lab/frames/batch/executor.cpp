// The batch frame: one lab workload x strategy cell per fresh worker process
// (`alloclab __cell <task JSON>`), under the cell's malloc, proven live before it measures.
// Before any cell, each workload is calibrated once in a fresh process of its own: batch size and
// reference checksum, from the baseline strategy, whatever else the run measures.
#include <cstdio>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "schedule/executor.hpp"
#include "schedule/worker_records.hpp"
#include "measure/build_guard.hpp"
#include "frames/batch/frame.hpp"
#include "frames/batch/runner.hpp"
#include "frames/batch/process_figures.hpp"
#include "plan/budget.hpp"
#include "workloads/workload.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

struct calibration_outcome {
  bool ok = false;
  std::string reason;
  calibration result;
};

json calibration_json(const calibration& c) {
  return {{"batch_size", c.batch_size},
          {"iteration_ns", c.iteration_ns},
          {"checksum", c.checksum},
          {"footprint", c.footprint},
          {"clock", c.clock}};
}

json task_json(const cell_spec& cell, const task& t, const run_plan& plan, const calibration& c) {
  const std::size_t batch = c.batch_size;
  const double target_ns = 1e6 * plan.sizes.repetition_ms;
  const double sample_ns = c.iteration_ns * static_cast<double>(batch);
  return {{"mode", "measure"},
          {"workload", cell.workload},
          {"strategy", cell.strategy},
          {"malloc", cell.malloc.argument},
          {"part", t.part},
          {"samples", plan.sizes.samples_per_repetition},
          {"repetitions", t.repetitions},
          {"counted_iterations", plan.sizes.counted_iterations},
          {"seed", plan.sizes.seed},
          {"order_seed", t.order_seed},
          {"batch_size", batch},
          {"repetition_ms", plan.sizes.repetition_ms},
          {"min_samples", target_ns > 0 ? repetition_floor(target_ns, sample_ns) : std::size_t{1}},
          {"quick", plan.sizes.quick},
          {"allow_debug", plan.allow_debug}};
}

// Why the library a strategy needs is absent (checked here, in the parent: nothing is loaded).
std::string strategy_missing(const std::string& name) {
  const strategy_entry* strategy = find_strategy(name);
  return strategy != nullptr && strategy->not_installed != nullptr ? strategy->not_installed()
                                                                   : std::string();
}

// Why a cell's strategy cannot serve its workload's threads, or empty.
std::string thread_unsafe(const cell_spec& cell) {
  const workload_entry* workload = find_workload(cell.workload);
  const strategy_entry* strategy = find_strategy(cell.strategy);
  if (workload == nullptr || strategy == nullptr) return {};
  return thread_safety_reason(*strategy, workload->threads);
}

class batch_executor final : public executor {
 public:
  void prepare(const run_plan& plan, const progress_note& note) override {
    const malloc_choice glibc = resolve_mallocs({}, false).front();
    for (const std::string& workload : plan.workloads.lab) {
      note("calibrating " + workload);
      const cell_spec cell{workload, baseline_strategy, glibc, frame::batch, false};
      json request = {{"mode", "calibrate"},
                      {"workload", workload},
                      {"malloc", glibc.argument},
                      {"seed", plan.sizes.seed},
                      {"allow_debug", plan.allow_debug}};
      const process::cell_outcome o =
          run_cell_worker(cell, {"/proc/self/exe", batch_worker_command, request.dump()}, plan);
      calibration_outcome& out = calibrations_[workload];
      if (o.status != process::cell_status::ok) {
        out.reason = "calibration failed: " + o.detail;
        continue;
      }
      try {
        const json& c = o.document.at("result");
        out.result.batch_size = c.at("batch_size");
        out.result.iteration_ns = c.value("iteration_ns", 0.0);
        out.result.checksum = c.at("checksum");
        out.result.clock = c.at("clock").get<clock_profile>();
        out.ok = true;
        facts_[workload] = c;
      } catch (const json::exception& e) {
        out.reason = fmt::format("calibration printed an unexpected document: {}", e.what());
      }
    }
  }

  measurement_record execute(const run_plan& plan, const task& t) override {
    const cell_spec& cell = plan.cells.at(t.cell);
    if (!cell.malloc.missing.empty())
      return unmeasured_record(cell, t, "not_installed", cell.malloc.missing);
    if (const std::string missing = strategy_missing(cell.strategy); !missing.empty())
      return unmeasured_record(cell, t, "not_installed", missing);
    if (const std::string unsafe = thread_unsafe(cell); !unsafe.empty())
      return unmeasured_record(cell, t, "not_applicable", unsafe);  // known without a worker
    const calibration_outcome& calibrated = calibrations_.at(cell.workload);
    if (!calibrated.ok) return unmeasured_record(cell, t, "failed", calibrated.reason);
    const json request = task_json(cell, t, plan, calibrated.result);
    const process::cell_outcome o =
        run_cell_worker(cell, {"/proc/self/exe", batch_worker_command, request.dump()}, plan);
    if (o.status != process::cell_status::ok) return failed_record(cell, t, o);
    try {
      measurement_record r =
          record_from_json(o.document.at("result"), read_figures_as<batch_figures>);
      r.malloc = cell.malloc.label;
      r.live_allocator = o.document.at("live_allocator");
      r.worker = worker_facts(o.worker, false);
      return checked(std::move(r), calibrated.result.checksum);
    } catch (const json::exception& e) {
      process::cell_outcome bad = o;
      bad.detail = fmt::format("worker printed an unexpected document: {}", e.what());
      return failed_record(cell, t, bad);
    }
  }

  json run_facts() const override { return {{"calibrations", facts_}}; }

 private:
  // Same work or no number: a cell whose iteration built something else than the baseline's.
  static measurement_record checked(measurement_record r, std::uint64_t reference) {
    const batch_figures* figures = r.figures.get<batch_figures>();
    if (r.status != "ok" || figures == nullptr || figures->cell.checksum == reference) return r;
    r.status = "failed";
    r.reason = fmt::format("checksum mismatch: built {:#018x} where {} built {:#018x}",
                           figures->cell.checksum, baseline_strategy, reference);
    r.figures.reset();
    return r;
  }

  std::map<std::string, calibration_outcome> calibrations_;
  json facts_ = json::object();
};

// Worker side --------------------------------------------------------------------------------

// Why this build must not measure, or empty (an unoptimised build without --allow-debug).
std::string not_benchmark_ready(bool allow_debug) {
  const build_facts facts = current_build();
  if (judge_build(facts, allow_debug) != build_verdict::refuse) return {};
  return "not benchmark-ready (" + facts.describe() + ")";
}

measurement_record measure_in_this_process(const json& request, const std::string& malloc) {
  run_config config;
  config.workloads = {request.at("workload").get<std::string>()};
  config.strategies = {request.at("strategy").get<std::string>()};
  config.samples_per_repetition = request.at("samples");
  config.repetitions = request.at("repetitions");
  config.counted_iterations = request.at("counted_iterations");
  config.seed = request.at("seed");
  config.order_seed = request.at("order_seed");
  config.batch_size = request.at("batch_size");
  config.quick = request.at("quick");
  config.repetition_target_ns = 1e6 * request.value("repetition_ms", 0.0);
  config.min_samples = request.value("min_samples", std::size_t{1});
  const run_measurement run = run_suite(config, [](const progress_event&) {});
  const workload_measurement& w = run.workloads.at(0);
  const cell_measurement& c = w.cells.at(0);
  measurement_record r;
  r.frame = to_string(frame::batch);
  r.workload = w.name;
  r.strategy = c.strategy;
  r.malloc = malloc;
  r.part = request.at("part");
  r.status = c.status == cell_status::ok           ? "ok"
             : c.status == cell_status::overflowed ? "overflowed"
                                                   : "not_applicable";
  r.reason = c.reason;
  r.figures = frame_figures(batch_figures{w.batch_size, w.footprint, c});
  return r;
}

// The worker's cell: calibrating a workload or measuring one cell of it, under the task's malloc.
process::worker_cell batch_worker_cell(const json& request) {
  const std::string workload = request.at("workload");
  const malloc_choice malloc =
      resolve_mallocs({request.at("malloc").get<std::string>()}, alloclab::build::sanitized).at(0);
  process::worker_cell cell = cell_under(
      malloc, fmt::format("{}/{}@{}", workload, request.value("strategy", "-"), malloc.label));
  cell.not_ready = not_benchmark_ready(request.at("allow_debug"));
  if (request.at("mode") == "simulate")
    cell.measure = [request] { return json{{"result", simulate_batch_cell(request)}}; };
  else if (request.at("mode") == "calibrate")
    cell.measure = [workload, seed = request.at("seed").get<std::uint64_t>()] {
      return json{{"result", calibration_json(calibrate_workload(workload, seed))}};
    };
  else
    cell.measure = [request, label = malloc.label] {
      return json{{"result", record_to_json(measure_in_this_process(request, label))}};
    };
  return cell;
}

}  // namespace

std::unique_ptr<executor> make_batch_executor() {
  return std::make_unique<batch_executor>();
}

int run_batch_worker(const char* task_json_text) {
  return run_frame_worker(batch_worker_command, task_json_text, batch_worker_cell);
}

}  // namespace alloclab::lab
