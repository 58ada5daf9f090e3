#include "schedule/worker_records.hpp"

#include <iostream>

#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "process/hooks.hpp"
#include "process/interrupt.hpp"
#include "lockstep/enrolment.hpp"
#include "lockstep/slice_gate.hpp"

namespace alloclab::lab {
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

json worker_facts(const process::worker_outcome& w, bool keep_stderr) {
  return {{"exit", w.describe()},
          {"exit_code", w.exited ? json(w.exit_code) : json(nullptr)},
          {"signal", w.term_signal != 0 ? json(w.term_signal) : json(nullptr)},
          {"timed_out", w.timed_out},
          {"wall_seconds", w.wall_seconds},
          {"stderr_tail", keep_stderr ? w.stderr_tail : std::string()}};
}

process::cell_outcome run_cell_worker(const cell_spec& cell, std::vector<std::string> argv,
                                      const run_plan& plan) {
  throw_if_interrupted();  // a signal before the spawn finds no worker to kill: do not start one
  const mallocs::worker_env env = environment_for(cell.malloc);
  process::worker_request request;
  request.argv = std::move(argv);
  request.env_set = env.set;
  request.env_unset = env.unset;
  request.timeout = plan.cell_timeout;
  request.stdout_max_bytes = std::size_t{256} << 20;
  if (const lockstep::enrolment& ring = lockstep::thread_enrolment(); ring.active()) {
    request.handed_fds = {{ring.go_read, lockstep::go_descriptor},
                          {ring.done_write, lockstep::done_descriptor}};
    request.env_set.emplace_back(lockstep::environment_variable, lockstep::ring_setting(ring.cpu));
    for (const auto& setting : ring.extra_env) request.env_set.push_back(setting);
    if (!ring.program.empty()) request.argv.front() = ring.program;
    lockstep::thread_enrolment() = {};  // one worker per enrolment
  }
  process::cell_outcome outcome = process::run_measuring_worker(request);
  throw_if_interrupted();
  return outcome;
}

measurement_record failed_record(const cell_spec& cell, const task& t,
                                 const process::cell_outcome& o) {
  const char* status = o.status == process::cell_status::refused ? "refused" : "failed";
  measurement_record r = unmeasured_record(cell, t, status, o.detail);
  r.worker = worker_facts(o.worker, true);
  if (o.document.is_object() && o.document.contains("live_allocator"))
    r.live_allocator = o.document["live_allocator"];
  return r;
}

process::worker_cell cell_under(const malloc_choice& malloc, std::string id) {
  process::worker_cell cell;
  cell.id = std::move(id);
  cell.prove = [malloc] { return prove_choice(malloc); };
  cell.measure_unproven = alloclab::build::sanitized && malloc.plain_glibc();
  return cell;
}

int run_frame_worker(const char* command, const char* spec_json,
                     std::function<process::worker_cell(const json&)> read) {
  const process::worker_entry entry{fmt::format("alloclab {}", command), std::move(read),
                                    before_measuring};
  return process::run_worker_main(entry, spec_json, std::cout, std::cerr);
}

namespace {

measurement_record run_worker_task(const run_plan& plan, const task& t, const char* command,
                                   const spec_writer& write, const figures_reader& read) {
  const cell_spec& cell = plan.cells.at(t.cell);
  if (!cell.malloc.missing.empty())
    return unmeasured_record(cell, t, "not_installed", cell.malloc.missing);
  const process::cell_outcome o =
      run_cell_worker(cell, {"/proc/self/exe", command, write(cell, t, plan).dump()}, plan);
  if (o.status != process::cell_status::ok) return failed_record(cell, t, o);
  try {
    measurement_record r = unmeasured_record(cell, t, "ok", "");
    r.live_allocator = o.document.at("live_allocator");
    r.worker = worker_facts(o.worker, false);
    read(o.document.at("result"), plan, r);
    return r;
  } catch (const nlohmann::json::exception& e) {
    process::cell_outcome bad = o;
    bad.detail = fmt::format("worker printed an unexpected document: {}", e.what());
    return failed_record(cell, t, bad);
  }
}

class worker_executor final : public executor {
 public:
  worker_executor(const char* command, spec_writer write, figures_reader read)
      : command_(command), write_(std::move(write)), read_(std::move(read)) {}

  void prepare(const run_plan&, const progress_note&) override {}

  measurement_record execute(const run_plan& plan, const task& t) override {
    return run_worker_task(plan, t, command_, write_, read_);
  }

  json run_facts() const override { return json::object(); }

 private:
  const char* command_;
  spec_writer write_;
  figures_reader read_;
};

}  // namespace

std::unique_ptr<executor> make_worker_executor(const char* command, spec_writer write,
                                               figures_reader read) {
  return std::make_unique<worker_executor>(command, std::move(write), std::move(read));
}

}  // namespace alloclab::lab
