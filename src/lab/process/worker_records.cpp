#include "process/worker_records.hpp"

#include <iostream>

#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "process/interrupt.hpp"

namespace alloclab::lab {
namespace heap = alloclab::heap;
using json = nlohmann::json;

measurement_record unmeasured_record(const cell_spec& cell, const task& t,
                                     const std::string& status, const std::string& reason) {
  measurement_record r;
  r.frame = to_string(cell.frame);
  r.workload = cell.workload;
  r.strategy = cell.strategy;
  r.malloc = cell.malloc.label;
  r.part = t.part;
  r.status = status;
  r.reason = reason;
  return r;
}

json worker_facts(const heap::worker_outcome& w, bool keep_stderr) {
  return {{"exit", w.describe()},
          {"exit_code", w.exited ? json(w.exit_code) : json(nullptr)},
          {"signal", w.term_signal != 0 ? json(w.term_signal) : json(nullptr)},
          {"timed_out", w.timed_out},
          {"wall_seconds", w.wall_seconds},
          {"stderr_tail", keep_stderr ? w.stderr_tail : std::string()}};
}

heap::cell_outcome run_cell_worker(const cell_spec& cell, std::vector<std::string> argv,
                                   const run_plan& plan) {
  throw_if_interrupted();  // a signal before the spawn finds no worker to kill: do not start one
  const heap::worker_env env = environment_for(cell.malloc);
  heap::worker_request request;
  request.argv = std::move(argv);
  request.env_set = env.set;
  request.env_unset = env.unset;
  request.timeout = plan.cell_timeout;
  request.stdout_max_bytes = std::size_t{256} << 20;
  heap::cell_outcome outcome = heap::run_measuring_worker(request);
  throw_if_interrupted();
  return outcome;
}

measurement_record failed_record(const cell_spec& cell, const task& t,
                                 const heap::cell_outcome& o) {
  const char* status = o.status == heap::cell_status::refused ? "refused" : "failed";
  measurement_record r = unmeasured_record(cell, t, status, o.detail);
  r.worker = worker_facts(o.worker, true);
  if (o.document.is_object() && o.document.contains("live_allocator"))
    r.live_allocator = o.document["live_allocator"];
  return r;
}

bool prove_or_refuse(const malloc_choice& malloc, json& live) {
  const heap::live_allocator proof = prove_choice(malloc);
  live = heap::to_json(proof);
  // Under AddressSanitizer malloc is ASan's: plain glibc cells are measured anyway (DEBUG).
  if (proof.ok || (alloclab::build::sanitized && malloc.plain_glibc())) return true;
  std::cout << json{{"measured", false}, {"live_allocator", live}}.dump() << '\n';
  std::cerr << "alloclab worker: refusing to measure: " << proof.detail << '\n';
  return false;
}

measurement_record run_worker_task(const run_plan& plan, const task& t, const char* command,
                                   const std::string& spec_json, const figures_reader& read) {
  const cell_spec& cell = plan.cells.at(t.cell);
  if (!cell.malloc.missing.empty())
    return unmeasured_record(cell, t, "not_installed", cell.malloc.missing);
  const heap::cell_outcome o = run_cell_worker(cell, {"/proc/self/exe", command, spec_json}, plan);
  if (o.status != heap::cell_status::ok) return failed_record(cell, t, o);
  try {
    measurement_record r = unmeasured_record(cell, t, "ok", "");
    r.live_allocator = o.document.at("live_allocator");
    r.worker = worker_facts(o.worker, false);
    read(o.document.at("result"), r);
    return r;
  } catch (const nlohmann::json::exception& e) {
    heap::cell_outcome bad = o;
    bad.detail = fmt::format("worker printed an unexpected document: {}", e.what());
    return failed_record(cell, t, bad);
  }
}

}  // namespace alloclab::lab
