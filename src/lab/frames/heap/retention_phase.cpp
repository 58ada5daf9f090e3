#include "frames/heap/retention_phase.hpp"
#include "frames/heap/run_options.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <alloclab/memory_budget.hpp>
#include <fmt/format.h>

#include "frames/heap/heap_workloads.hpp"
#include "process/interrupt.hpp"
#include "process/measuring_worker.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {
namespace {

namespace heap = alloclab::heap;
using json = nlohmann::json;

// The mallocs seed 004's retention claim is about; jemalloc twice (background thread off, on).
struct variant {
  const char* malloc;
  bool background_thread;
};
constexpr variant variants[] = {
    {"glibc", false}, {"jemalloc", false}, {"jemalloc", true}, {"mimalloc", false}};

// The ring of 1000 blocks at the distribution's mean size, pages written.
double growth_estimate(heap::size_dist dist) {
  switch (dist) {
    case heap::size_dist::uniform:
      return 1000.0 * 262144;
    case heap::size_dist::exponential:
      return 1000.0 * 8192;
    case heap::size_dist::lognormal:
      return 1000.0 * 4096;
  }
  return 1000.0 * 262144;
}

// What the timelines may use: the machine's available memory, or less under a cgroup limit (a
// container's), whose headroom is what the kernel would OOM-kill over.
double available_memory() {
  double available = 2e9;  // unknown: assume a small machine
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemAvailable:", 0) == 0) available = 1024.0 * std::stod(line.substr(13));
  const alloclab::memory_budget cgroup = alloclab::memory_budget::detect();
  if (cgroup.source() == alloclab::budget_source::cgroup_v2 ||
      cgroup.source() == alloclab::budget_source::cgroup_v1) {
    const std::optional<std::uint64_t> used = cgroup.usage();
    const double headroom =
        static_cast<double>(cgroup.limit()) - static_cast<double>(used ? *used : std::uint64_t{0});
    available = std::min(available, std::max(headroom, 0.0));
  }
  return available;
}

const malloc_choice* measured_malloc(const run_plan& plan, const char* name) {
  for (const malloc_choice& m : plan.mallocs)
    if (m.label == name && m.missing.empty()) return &m;
  return nullptr;
}

// The timeline with this status and the reason for it.
retention_timeline_run with_status(retention_timeline_run run, std::string status,
                                   std::string reason) {
  run.status = std::move(status);
  run.reason = std::move(reason);
  return run;
}

retention_timeline_run run_one(const run_plan& plan, const heap::retention_spec& spec) {
  const malloc_choice& m = *measured_malloc(plan, spec.malloc_name.c_str());
  const mallocs::worker_env env = environment_for(m);
  process::worker_request request;
  request.argv = {"/proc/self/exe", heap_worker_command, to_json(spec).dump()};
  request.env_set = env.set;
  request.env_unset = env.unset;
  request.env_unset.push_back("MALLOC_CONF");  // the parent's must not reach the timeline
  if (spec.background_thread) request.env_set.emplace_back("MALLOC_CONF", "background_thread:true");
  request.timeout = std::chrono::milliseconds(static_cast<long>(1000 * (spec.horizon_s + 60)));
  const process::cell_outcome o = process::run_measuring_worker(request);
  retention_timeline_run out;
  out.spec.spec = spec;
  out.status = to_string(o.status);
  const json& document = o.document.is_object() ? o.document : json::object();
  out.live_allocator = model::read_json<std::optional<model::liveness_proof>>(
      document.value("live_allocator", json()), "/live_allocator");
  if (o.status != process::cell_status::ok) return with_status(out, out.status, o.detail);
  const json figures = document.value("retention", json());
  if (!figures.is_object())
    return with_status(out, "failed", "the worker's document has no retention figures");
  out.retention = model::read_json<retention_timeline_figures>(figures, "/retention");
  const bool knob_took = !spec.background_thread || out.retention->background_thread == "true";
  if (!knob_took)  // not the variant it claims to be
    return with_status(out, "refused", "jemalloc did not report background_thread on");
  return out;
}

}  // namespace

std::vector<heap::retention_spec> planned_timelines(const run_plan& plan) {
  std::vector<heap::retention_spec> specs;
  if (!(heap_sizes_of(plan).retention_horizon_s > 0)) return specs;
  for (const std::string& name : plan.workloads.heap) {
    const heap_workload* w = find_heap_workload(name);
    if (w == nullptr || w->kernel != heap::kernel_kind::fifo || w->touch != heap::touch_mode::once)
      continue;
    for (const variant& v : variants) {
      if (measured_malloc(plan, v.malloc) == nullptr) continue;
      for (const bool light : {false, true}) {
        heap::retention_spec s;
        s.malloc_name = v.malloc;
        s.dist = w->dist;
        s.light_load = light;
        s.background_thread = v.background_thread;
        s.horizon_s = heap_sizes_of(plan).retention_horizon_s;
        s.seed = plan.sizes.seed;
        specs.push_back(s);
      }
    }
  }
  return specs;
}

std::vector<std::vector<std::size_t>> retention_waves(
    const std::vector<heap::retention_spec>& specs, double memory_bytes) {
  std::vector<std::vector<std::size_t>> waves;
  double used = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const double need = growth_estimate(specs[i].dist);
    if (waves.empty() || (used + need > memory_bytes && !waves.back().empty())) {
      waves.emplace_back();
      used = 0;
    }
    waves.back().push_back(i);
    used += need;
  }
  return waves;
}

std::vector<retention_timeline_run> run_retention_timelines(
    const run_plan& plan, const std::vector<heap::retention_spec>& specs,
    const progress_note& note) {
  std::vector<retention_timeline_run> done(specs.size());
  const auto waves = retention_waves(specs, available_memory() / 2);
  for (std::size_t w = 0; w < waves.size(); ++w) {
    note(fmt::format("retention timelines: {} side by side, {:.0f} s each (wave {} of {})",
                     waves[w].size(), heap_sizes_of(plan).retention_horizon_s, w + 1,
                     waves.size()));
    std::vector<std::thread> threads;
    for (const std::size_t i : waves[w])
      threads.emplace_back([&, i] {
        try {
          done[i] = run_one(plan, specs[i]);
        } catch (const std::exception& e) {  // a failed timeline, never a terminated run
          retention_timeline_run failed;
          failed.spec.spec = specs[i];
          done[i] = with_status(std::move(failed), "failed", e.what());
        }
      });
    for (auto& t : threads) t.join();
    throw_if_interrupted();
  }
  return done;
}

}  // namespace alloclab::lab
