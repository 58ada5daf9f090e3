// The replay frame: a recorded trace (alloclab record) replayed with its thread structure in a
// fresh worker process (`alloclab __replay-worker <spec JSON>`), under the cell's process-wide
// malloc or through one in-process resource (strategies/replay_resources.hpp). The worker
// proves its malloc live first (heap/liveness.hpp), as the heap frame's does.
#include <fmt/format.h>

#include "schedule/executor.hpp"
#include "schedule/worker_records.hpp"
#include "process/measuring_worker.hpp"
#include "process/proc_memory.hpp"
#include "frames/replay/figures.hpp"
#include "frames/replay/process_figures.hpp"
#include "frames/replay/run_options.hpp"
#include "frames/replay/replay_resources.hpp"
#include "model/codecs.hpp"
#include "trace/replay.hpp"
#include "process/hooks.hpp"
#include "mallocs/knobs.hpp"

namespace alloclab::mallocs {
// A knob variant's settings travel in the worker's spec.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(knob_setting, knob, value)
}  // namespace alloclab::mallocs

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

struct replay_spec {
  std::string trace;
  std::string name;
  std::string strategy = replay_malloc_strategy;
  std::size_t repetitions = 1;
  std::string malloc_name = "glibc";         // registry name or mallocs::custom_malloc_name
  std::string preload;                       // custom only
  std::string label;                         // the cell's malloc: a knob variant's label
  std::vector<mallocs::knob_setting> knobs;  // a knob variant's, read back before measuring
  replay_trace_facts facts;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(replay_spec, trace, name, strategy, repetitions, malloc_name,
                                   preload, label, knobs, facts)

json to_json(const replay_spec& s) {
  return json(s);
}

replay_spec spec_from_json(const json& j) {
  const replay_spec s = j.get<replay_spec>();
  if (s.repetitions == 0) throw std::invalid_argument("repetitions must be at least 1");
  if (s.strategy != replay_malloc_strategy && find_replay_resource(s.strategy) == nullptr)
    throw std::invalid_argument("unknown replay strategy '" + s.strategy + "'");
  return s;
}

// The worker's spec for task `t` of `cell`.
json spec_for(const cell_spec& cell, const task& t, const run_plan& plan) {
  replay_spec s;
  s.trace = replay_sizes_of(plan).replay.trace;
  s.name = replay_sizes_of(plan).replay.name;
  s.strategy = cell.strategy;
  s.repetitions = t.repetitions;
  s.malloc_name = cell.malloc.registry_name();
  s.preload = cell.malloc.preload_path;
  s.label = cell.malloc.label;
  s.knobs = cell.malloc.knobs;
  s.facts = replay_sizes_of(plan).replay.facts;
  return to_json(s);
}

std::uint64_t rss_now() {
  return process::read_proc_status().vm_rss_bytes.value_or(0);
}

// One replay with the program-work model (trace/replay.hpp): its replayed program time per call.
double program_ns_per_call(const trace::trace_file& file, const replay_resource_entry* entry,
                           const replay_spec& s) {
  std::unique_ptr<replay_resource> holder = entry ? entry->make(s.facts) : nullptr;
  trace::replay_options options;
  options.resource = holder ? holder->resource() : nullptr;
  options.end_us = s.facts.end_us;
  options.program_work = true;
  const double ns = trace::replay_trace(file, options).program_ns_per_call();
  holder.reset();
  mallocs::purge_live_malloc();
  return ns;
}

// `repetitions` whole replays timing the calls, each followed by one with program work; the
// first one's RSS readings. Each replay gets a fresh resource (destroyed, with the malloc
// purged, after it), so every replay starts from the same state.
replay_figures measure(const replay_spec& s) {
  const trace::trace_file file(s.trace);
  const replay_resource_entry* entry = find_replay_resource(s.strategy);
  replay_figures f;
  f.threads = file.threads().size();
  for (std::size_t rep = 0; rep < s.repetitions; ++rep) {
    std::unique_ptr<replay_resource> holder = entry ? entry->make(s.facts) : nullptr;
    trace::replay_options options;
    options.resource = holder ? holder->resource() : nullptr;
    options.end_us = s.facts.end_us;
    replay_memory_reading memory;
    if (rep == 0) {
      memory.peak_was_reset = process::reset_peak_rss();
      memory.baseline_rss_bytes = rss_now();
    }
    const process::fault_counts faults = process::read_faults();
    const trace::replay_result r = trace::replay_trace(file, options);
    if (rep == 0) {
      const process::proc_status after_free = process::read_proc_status();
      memory.peak_rss_bytes = after_free.vm_hwm_bytes.value_or(0);
      memory.rss_after_free_bytes = after_free.vm_rss_bytes.value_or(0);
      memory.minor_faults = process::read_faults().minor - faults.minor;
      memory.bookkeeping_bytes = r.bookkeeping_bytes;
    }
    holder.reset();
    const mallocs::purge_result purge = mallocs::purge_live_malloc();
    if (rep == 0) {
      memory.rss_after_purge_bytes = rss_now();
      memory.purge = {purge.method, purge.available, purge.rc};
      f.memory = model::write_json(memory);
      f.calls = r.calls;
      f.skipped = r.skipped;
      // The trace's one peak live bytes (trace info's); the replay's own interleaving's peak
      // only when the spec lacks it.
      f.peak_live_bytes =
          s.facts.trust.peak_live_bytes != 0 ? s.facts.trust.peak_live_bytes : r.peak_live_bytes;
    }
    f.ns_per_call.push_back(r.ns_per_call());
    f.program_ns_per_call.push_back(program_ns_per_call(file, entry, s));
    f.call_seconds.push_back(r.call_seconds);
    f.wall_seconds.push_back(r.wall_seconds);
  }
  return f;
}

// The malloc proven live, then each knob of a variant read back from it: a knob it did not take
// would measure the defaults under the variant's label.
mallocs::live_allocator prove_with_knobs(const replay_spec& spec) {
  mallocs::live_allocator live = mallocs::prove_named(spec.malloc_name, spec.preload);
  if (!live.ok || spec.knobs.empty()) return live;
  const mallocs::variant v{spec.malloc_name, spec.knobs};
  std::vector<std::string> names;
  for (const mallocs::knob_setting& k : spec.knobs) names.push_back(k.knob);
  const std::string problem = mallocs::knob_not_applied(v, mallocs::read_knobs(v.malloc, names));
  if (!problem.empty()) {
    live.ok = false;
    live.detail = problem;
  }
  return live;
}

}  // namespace

std::unique_ptr<executor> make_replay_executor() {
  return make_worker_executor(replay_worker_command, spec_for, read_into<replay_figures>());
}

int run_replay_worker(const char* spec_json) {
  return run_frame_worker(replay_worker_command, spec_json, [](const json& j) {
    const replay_spec spec = spec_from_json(j);
    process::worker_cell cell;
    cell.id =
        fmt::format("{}/{}@{}", spec.name, spec.strategy,
                    spec.knobs.empty() ? mallocs::named_malloc_label(spec.malloc_name, spec.preload)
                                       : spec.label);
    cell.prove = [spec] { return prove_with_knobs(spec); };
    cell.measure = [spec] { return json{{"result", measure(spec)}}; };
    return cell;
  });
}

}  // namespace alloclab::lab
