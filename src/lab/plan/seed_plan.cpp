#include "plan/seed_plan.hpp"

#include <algorithm>
#include <string>

#include "frames/frame_table.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

void add_ratio_cells(const json& claim, std::vector<claim_cell>& out) {
  const std::string workload = claim.at("workload");
  const frame f = claim_frame(claim, workload);
  const std::string glibc = "glibc";
  out.push_back({workload, claim.at("baseline").get<std::string>(),
                 claim.value("baseline_malloc", glibc), f});
  if (claim.contains("candidate_mallocs")) {
    for (const auto& m : claim.at("candidate_mallocs"))
      out.push_back({workload, claim.at("candidate").get<std::string>(), m.get<std::string>(), f});
    return;
  }
  out.push_back({workload, claim.at("candidate").get<std::string>(),
                 claim.value("candidate_malloc", glibc), f});
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
  auto& names = plan.workloads.names(module_of(want.frame).measures);
  if (std::find(names.begin(), names.end(), want.workload) == names.end())
    names.push_back(want.workload);
  if (!has_frame(plan, want.frame)) plan.frames.push_back(want.frame);
}

// Frames in table order, heap workloads and mallocs in registry order (what results list them
// by; glibc, the baseline, stays first).
void restore_orders(run_plan& plan) {
  std::stable_sort(plan.mallocs.begin(), plan.mallocs.end(), [](const auto& a, const auto& b) {
    return a.entry != nullptr && b.entry != nullptr && a.entry < b.entry;
  });
  std::vector<frame> frames;
  for (const auto& row : frame_table())
    if (has_frame(plan, row.id)) frames.push_back(row.id);
  plan.frames = std::move(frames);
  for (const kind_catalogue& c : workload_catalogues()) {
    auto& names = plan.workloads.names(c.kind);
    names = c.catalogue->in_order(names);
  }
}

}  // namespace

frame claim_frame(const json& claim, const std::string& workload) {
  if (claim.value("metric", std::string()).rfind("serve_", 0) == 0) return frame::serve;
  const frame_module* measuring = default_frame_of_workload(workload);
  return measuring != nullptr ? measuring->id : frame::batch;
}

bool is_default_request(const run_request& r) {
  const bool sized = r.iterations || r.repetitions || r.processes || r.quick;
  return r.workloads.empty() && r.strategies.empty() && r.mallocs.empty() && r.frames.empty() &&
         !sized && r.replay.trace.empty();
}

std::vector<claim_cell> cells_for_claims(const json& claims) {
  std::vector<claim_cell> out;
  for (const json& claim : claims.at("claims")) {
    if (!claim.value("measurable", true)) continue;
    const std::string metric = claim.value("metric", std::string());
    if (metric == "returns_memory") {
      for (const char* side : {"retains", "returns"})
        for (const auto& m : claim.at(side))
          for (const auto& w : claim.at("workloads"))
            out.push_back({w.get<std::string>(), heap_strategy, m.get<std::string>(), frame::heap});
    } else if (claim.contains("among_workloads")) {
      for (const auto& w : claim.at("among_workloads"))
        out.push_back({w.get<std::string>(), claim.value("strategy", std::string(heap_strategy)),
                       "glibc", claim_frame(claim, w.get<std::string>()), true});
    } else if (claim.contains("among")) {
      for (const auto& s : claim.at("among"))
        out.push_back(
            {claim.at("workload").get<std::string>(), s.get<std::string>(), "glibc", frame::batch});
    } else {
      add_ratio_cells(claim, out);
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
