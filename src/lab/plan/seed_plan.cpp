#include "plan/seed_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "mallocs/malloc_table.hpp"
#include "plan/frame_planner.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string claim_id(const json& claim) {
  return claim.value("id", std::string("(no id)"));
}

// The claim's cells, each checked against its frame's catalogue.
class claim_cells {
 public:
  claim_cells(const json& claim, std::vector<claim_cell>& out)
      : claim_(claim), frame_(claim_frame(claim)), out_(out) {}

  // Names as the claim spells them (JSON strings) or as the plan does.
  void add(const json& workload_name, const json& strategy, const json& malloc,
           bool every_malloc = false) {
    const std::string workload = workload_name.get<std::string>();
    const frame_planner& row = planner_of(frame_);
    const std::vector<std::string> measured =
        row.workloads != nullptr ? row.workloads->names() : std::vector<std::string>{};
    if (std::find(measured.begin(), measured.end(), workload) == measured.end())
      throw std::invalid_argument(
          fmt::format("seed claim '{}': frame '{}' does not measure workload '{}'",
                      claim_id(claim_), row.name, workload));
    out_.push_back(
        {workload, strategy.get<std::string>(), malloc.get<std::string>(), frame_, every_malloc});
  }

 private:
  const json& claim_;
  frame frame_;
  std::vector<claim_cell>& out_;
};

void add_ratio_cells(const json& claim, claim_cells& cells) {
  const std::string workload = claim.at("workload");
  const std::string glibc = "glibc";
  cells.add(workload, claim.at("baseline"), claim.value("baseline_malloc", glibc));
  if (claim.contains("candidate_mallocs")) {
    for (const auto& m : claim.at("candidate_mallocs"))
      cells.add(workload, claim.at("candidate"), m.get<std::string>());
    return;
  }
  cells.add(workload, claim.at("candidate"), claim.value("candidate_malloc", glibc));
}

bool same_cell(const cell_spec& c, const claim_cell& want, const std::string& malloc) {
  return c.workload == want.workload && c.strategy == want.strategy && c.frame == want.frame &&
         c.malloc.label == malloc && !c.copy_cliff_removed;
}

const malloc_choice& plan_malloc(run_plan& plan, const std::string& name) {
  for (const malloc_choice& m : plan.mallocs)
    if (m.label == name) return m;
  malloc_choice added = resolve_mallocs({name}, false).front();
  added.named = false;  // a claim's malloc that is not installed is a row, not a failure
  plan.mallocs.push_back(std::move(added));
  return plan.mallocs.back();
}

void add_cell(run_plan& plan, const claim_cell& want, const std::string& malloc) {
  const malloc_choice& m = plan_malloc(plan, malloc);
  for (const cell_spec& c : plan.cells)
    if (same_cell(c, want, m.label)) return;
  plan.cells.push_back({want.workload, want.strategy, m, want.frame, false});
  auto& names = plan.workloads.names(planner_of(want.frame).measures);
  if (std::find(names.begin(), names.end(), want.workload) == names.end())
    names.push_back(want.workload);
  if (!has_frame(plan, want.frame)) plan.frames.push_back(want.frame);
}

// A malloc's place in the registry; a custom library comes after every entry. (Not its address:
// the registry's entries lie wherever the heap put them when it was built.)
std::size_t registry_position(const malloc_choice& m) {
  const auto& registry = mallocs::malloc_registry();
  std::size_t position = 0;
  while (position < registry.size() && &registry[position] != m.entry) ++position;
  return position;
}

// Frames in table order, heap workloads and mallocs in registry order (what results list them
// by; glibc, the baseline, stays first).
void restore_orders(run_plan& plan) {
  std::stable_sort(plan.mallocs.begin(), plan.mallocs.end(), [](const auto& a, const auto& b) {
    return registry_position(a) < registry_position(b);
  });
  std::vector<frame> frames;
  for (const auto& row : frame_planners())
    if (has_frame(plan, row.id)) frames.push_back(row.id);
  plan.frames = std::move(frames);
  for (const kind_catalogue& c : workload_catalogues()) {
    auto& names = plan.workloads.names(c.kind);
    names = c.catalogue->in_order(names);
  }
}

}  // namespace

frame claim_frame(const json& claim) {
  const auto named = claim.find("frame");
  if (named == claim.end() || !named->is_string())
    throw std::invalid_argument(
        fmt::format("seed claim '{}' names no frame: give it \"frame\", one of {}", claim_id(claim),
                    fmt::join(frame_names(), ", ")));
  const frame_planner* row = find_planner(named->get<std::string>());
  if (row == nullptr || row->add_cells == nullptr)
    throw std::invalid_argument(
        fmt::format("seed claim '{}': frame '{}' names no frame; frames: {}", claim_id(claim),
                    named->get<std::string>(), fmt::join(frame_names(), ", ")));
  return row->id;
}

bool is_default_request(const run_request& r) {
  const bool sized = r.iterations || r.repetitions || r.processes || r.quick;
  return r.workloads.empty() && r.strategies.empty() && r.mallocs.empty() && r.frames.empty() &&
         !sized && requesting_planner(r) == nullptr;
}

std::vector<claim_cell> cells_for_claims(const json& claims) {
  std::vector<claim_cell> out;
  for (const json& claim : claims.at("claims")) {
    if (!claim.value("measurable", true)) continue;
    claim_cells cells(claim, out);
    if (claim.value("metric", std::string()) == "returns_memory") {
      for (const char* side : {"retains", "returns"})
        for (const auto& m : claim.at(side))
          for (const auto& w : claim.at("workloads")) cells.add(w, heap_strategy, m);
    } else if (claim.contains("among_workloads")) {
      for (const auto& w : claim.at("among_workloads"))
        cells.add(w, claim.value("strategy", std::string(heap_strategy)), "glibc", true);
    } else if (claim.contains("among")) {
      for (const auto& s : claim.at("among")) cells.add(claim.at("workload"), s, "glibc");
    } else {
      add_ratio_cells(claim, cells);
    }
  }
  return out;
}

void add_claim_cells(run_plan& plan, const json& claims) {
  const std::vector<claim_cell> wanted = cells_for_claims(claims);
  for (const claim_cell& c : wanted)
    if (!c.every_malloc) add_cell(plan, c, c.malloc);
  const std::vector<malloc_choice> mallocs = plan.mallocs;  // every malloc a claim named
  for (const claim_cell& c : wanted)
    if (c.every_malloc)
      for (const malloc_choice& m : mallocs) add_cell(plan, c, m.label);
  restore_orders(plan);
}

}  // namespace alloclab::lab
