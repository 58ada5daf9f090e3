#include "plan/plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "claims/embedded_files.hpp"
#include "plan/budget.hpp"
#include "plan/frame_planner.hpp"
#include "plan/seed_plan.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

template <class Registry>
std::vector<std::string> all_names(const Registry& registry) {
  return collect(registry, [](const auto& entry) { return std::string(entry.name); });
}

// Requested names in registry order; an unknown one is a usage error listing the valid ones.
template <class Registry>
std::vector<std::string> select(const std::vector<std::string>& requested, const Registry& registry,
                                const char* kind, const char* kinds) {
  const std::vector<std::string> valid = all_names(registry);
  if (requested.empty()) return valid;
  for (const auto& name : requested)
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      throw usage_error(
          fmt::format("unknown {} '{}'; valid {}: {}", kind, name, kinds, join_names(valid)));
  std::vector<std::string> chosen;
  for (const auto& name : valid)
    if (std::find(requested.begin(), requested.end(), name) != requested.end())
      chosen.push_back(name);
  return chosen;
}

// The shared sizes; each frame's own come from its row's resolve_sizes.
measurement_sizes resolve_sizes(const run_request& r) {
  measurement_sizes s;
  s.quick = r.quick;
  s.seed = r.seed;
  s.samples_per_repetition = r.iterations.value_or(r.quick ? quick_samples : default_samples);
  s.repetitions = r.repetitions.value_or(r.quick ? quick_repetitions : default_repetitions);
  s.processes = r.processes.value_or(r.quick ? quick_processes : default_processes);
  // A cell's repetitions are shared out over its processes: never more processes than that.
  if (r.repetitions) s.processes = std::min(s.processes, *r.repetitions);
  return s;
}

std::chrono::milliseconds resolve_timeout(const run_request& r) {
  const double seconds = r.cell_timeout_seconds.value_or(default_cell_timeout_seconds);
  if (!std::isfinite(seconds) || seconds < 0.1 || seconds > 86400)
    throw usage_error(
        fmt::format("--cell-timeout {} is not a number of seconds in [0.1, 86400]", seconds));
  return std::chrono::milliseconds(static_cast<std::int64_t>(1000 * seconds));
}

// Repetitions of part `part` when `total` are spread over `parts` processes.
std::size_t share(std::size_t total, std::size_t parts, std::size_t part) {
  return total / parts + (part < total % parts ? 1 : 0);
}

}  // namespace

void refuse_empty_names(const std::vector<std::string>& names, const char* option) {
  if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); }))
    throw usage_error(fmt::format("{} has an empty name (a stray comma?)", option));
}

const char* to_string(frame f) {
  return planner_of(f).name;
}

std::vector<std::string> frame_names() {
  std::vector<std::string> names;
  for (const auto& e : frame_planners())
    if (e.add_cells != nullptr) names.push_back(e.name);
  return names;
}

frame frame_from_string(const std::string& name) {
  for (const auto& e : frame_planners())
    if (name == e.name && e.add_cells != nullptr) return e.id;
  throw usage_error(
      fmt::format("unknown frame '{}'; valid frames: {}", name, join_names(frame_names())));
}

const std::vector<std::string>& workload_selection::names(workload_kind kind) const {
  switch (kind) {
    case workload_kind::lab:
      return lab;
    case workload_kind::heap:
      return heap;
    case workload_kind::memory:
      return memory;
    case workload_kind::trace:    // named by `alloclab replay`
    case workload_kind::program:  // named by `alloclab try`
      break;
  }
  throw std::logic_error(
      fmt::format("workload kind {} has no --workloads names", static_cast<int>(kind)));
}

std::vector<std::string>& workload_selection::names(workload_kind kind) {
  return const_cast<std::vector<std::string>&>(std::as_const(*this).names(kind));
}

bool has_frame(const run_plan& plan, frame f) {
  return std::find(plan.frames.begin(), plan.frames.end(), f) != plan.frames.end();
}

namespace {

bool measured_by_frames(const run_plan& plan, workload_kind kind) {
  return std::any_of(plan.frames.begin(), plan.frames.end(),
                     [&](frame f) { return planner_of(f).measures == kind; });
}

// --frames, or else the frames the requested workloads belong to. A chosen frame with no workload
// of its kind named measures all of them; a named workload no chosen frame measures is an error.

void choose_frames(run_plan& plan, const run_request& request) {
  refuse_empty_names(request.frames, "--frames");
  for (const auto& name : request.frames) frame_from_string(name);
  const frame_planner* own = requesting_planner(request);
  for (const auto& e : frame_planners())
    if (e.requested != nullptr && own == nullptr &&
        std::find(request.frames.begin(), request.frames.end(), e.name) != request.frames.end())
      throw usage_error(
          e.own_command_hint != nullptr
              ? std::string(e.own_command_hint)
              : fmt::format("the {} frame is measured by a command of its own", e.name));
  if (own != nullptr) {  // e.g. `alloclab replay`: nothing but the trace
    plan.workloads.lab.clear();
    plan.workloads.heap.clear();
    plan.workloads.memory.clear();
  }
  for (const auto& e : frame_planners()) {
    if (e.add_cells == nullptr) continue;  // measured by a command of its own (`alloclab try`)
    if (e.requested != nullptr) {          // named by its own command alone (a trace: `replay`)
      if (&e == own) plan.frames.push_back(e.id);
      continue;
    }
    const auto& names = plan.workloads.names(e.measures);
    const bool asked =
        std::find(request.frames.begin(), request.frames.end(), e.name) != request.frames.end();
    if (request.frames.empty() ? e.by_default && !names.empty() : asked)
      plan.frames.push_back(e.id);
  }
  if (request.frames.empty()) return;
  for (const kind_catalogue& c : workload_catalogues()) {
    auto& names = plan.workloads.names(c.kind);
    const bool measured = measured_by_frames(plan, c.kind);
    if (!measured && !request.workloads.empty() && !names.empty())
      throw usage_error(fmt::format("workload '{}' is not measured by any frame in --frames {}",
                                    names.front(), join_names(request.frames)));
    if (!measured) names.clear();
    if (measured && names.empty()) names = c.catalogue->names();
  }
}

[[noreturn]] void refuse_unknown_workload(const std::string& name,
                                          const std::vector<kind_catalogue>& catalogues) {
  std::vector<std::string> valid, hints;
  for (const kind_catalogue& c : catalogues) {
    const std::vector<std::string> names = c.catalogue->names();
    valid.insert(valid.end(), names.begin(), names.end());
    if (*c.catalogue->family_hint != '\0') hints.push_back(c.catalogue->family_hint);
  }
  throw usage_error(fmt::format("unknown workload '{}'; valid workloads: {}{}", name,
                                join_names(valid),
                                hints.empty() ? "" : " (or " + join_names(hints) + ")"));
}

}  // namespace

workload_selection split_workloads(const std::vector<std::string>& requested) {
  workload_selection chosen;
  if (requested.empty()) {
    chosen.lab = all_names(workload_registry());
    return chosen;
  }
  refuse_empty_names(requested, "--workloads");
  const std::vector<kind_catalogue> catalogues = workload_catalogues();
  for (const auto& word : requested) {
    const auto naming = std::find_if(catalogues.begin(), catalogues.end(), [&](const auto& c) {
      return !c.catalogue->expand(word).empty();
    });
    if (naming == catalogues.end()) refuse_unknown_workload(word, catalogues);
    const auto names = naming->catalogue->expand(word);
    auto& into = chosen.names(naming->kind);
    into.insert(into.end(), names.begin(), names.end());
  }
  for (const kind_catalogue& c : catalogues)
    chosen.names(c.kind) = c.catalogue->in_order(chosen.names(c.kind));
  return chosen;
}

std::uint64_t parse_byte_count(const std::string& text, const char* option) {
  std::uint64_t value = 0;
  const char* const end = text.data() + text.size();
  const auto [rest, ec] = std::from_chars(text.data(), end, value);
  std::string suffix(rest, end);
  if (suffix.size() == 3 && suffix.substr(1) == "iB") suffix.resize(1);
  const std::string units = "KMGT";
  const std::size_t unit = suffix.size() == 1 ? units.find(suffix[0]) : std::string::npos;
  const bool good =
      ec == std::errc() && rest != text.data() && (suffix.empty() || unit != std::string::npos);
  const unsigned shift = suffix.empty() ? 0 : 10 * (static_cast<unsigned>(unit) + 1);
  if (!good || value > (std::uint64_t{1} << 50) >> shift)
    throw usage_error(fmt::format(
        "{} '{}' is not a byte count up to 1 PiB (digits with an optional K, M, G or T suffix, "
        "e.g. 268435456 or 256M)",
        option, text));
  return value << shift;
}

std::vector<task> interleaved_schedule(const std::vector<std::size_t>& repetitions,
                                       std::size_t processes, std::uint64_t seed) {
  std::vector<task> schedule;
  std::mt19937_64 shuffler(seed);
  const std::size_t rounds = std::max<std::size_t>(1, processes);
  for (std::size_t part = 0; part < rounds; ++part) {
    std::vector<std::size_t> order(repetitions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), shuffler);
    for (std::size_t cell : order) {
      const std::size_t parts = std::min(rounds, repetitions[cell]);
      if (part < parts)
        schedule.push_back({cell, part, share(repetitions[cell], parts, part), seed + part});
    }
  }
  return schedule;
}

void resolve_repetitions(run_plan& plan) {
  plan.repetitions.clear();
  for (const frame f : plan.frames) plan.repetitions[f] = planner_of(f).repetitions(plan);
  for (const cell_spec& c : plan.cells)
    plan.repetitions[c.frame] = planner_of(c.frame).repetitions(plan);
}

run_plan make_plan(const run_request& request, bool sanitized, const host_view& host) {
  run_plan plan;
  refuse_empty_names(request.strategies, "--strategies");
  refuse_empty_names(request.mallocs, "--malloc");
  plan.workloads = split_workloads(request.workloads);
  choose_frames(plan, request);
  plan.strategies = select(request.strategies, strategy_registry(), "strategy", "strategies");
  std::vector<malloc_choice> mallocs = resolve_mallocs(request.mallocs, sanitized);
  plan.mallocs = add_knob_variants(std::move(mallocs), request.malloc_variants);
  plan.sizes = resolve_sizes(request);
  plan.sizes.seed_plan = is_default_request(request) && !sanitized;
  plan.sizes.budget_seconds = resolve_budget(request, plan.frames);
  if (plan.sizes.budget_seconds > 0) apply_budget_sizes(plan.sizes, request);
  plan.cell_timeout = resolve_timeout(request);
  plan.skip_missing = request.skip_missing;
  plan.allow_debug = request.allow_debug;
  plan.lockstep = !request.unpaired;
  plan.placement_check = request.placement_check;
  for (const auto& row : frame_planners())  // each frame's own sizes, from its own options
    if (row.resolve_sizes != nullptr) row.resolve_sizes(plan, request, host);
  if (sanitized && !plan.workloads.heap.empty())
    throw usage_error(
        "this is a sanitizer build: AddressSanitizer owns malloc, so the heap-study workloads ("
        "fifo_*, lifo_*, xthread_*) cannot measure it; use a release build");

  std::vector<malloc_choice> lab_mallocs = plan.mallocs;
  if (wants_placement_twin(plan, sanitized)) {
    malloc_choice twin = resolve_mallocs({placement_twin_malloc}, false).front();
    twin.named = false;
    plan.placement_twin = twin.label;
    lab_mallocs.push_back(std::move(twin));
  }
  for (const frame f : plan.frames) planner_of(f).add_cells(plan, lab_mallocs);
  if (plan.sizes.seed_plan)
    add_claim_cells(plan, nlohmann::json::parse(embedded::seed_claims_json));
  resolve_repetitions(plan);
  if (plan.sizes.budget_seconds > 0) {
    plan.schedule = first_round(budget_cells(plan), request.seed);
    return plan;
  }
  std::vector<std::size_t> repetitions;
  for (const cell_spec& c : plan.cells) repetitions.push_back(plan.repetitions.at(c.frame));
  plan.schedule = interleaved_schedule(repetitions, plan.sizes.processes, request.seed);
  return plan;
}

}  // namespace alloclab::lab
