#include "schedule/tracked_comparisons.hpp"

#include "stats/decision.hpp"

#include <optional>

#include <fmt/format.h>

#include "plan/seed_plan.hpp"
#include "claims/accepted_range.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::optional<std::size_t> cell_index(const run_plan& plan, frame f, const std::string& workload,
                                      const std::string& strategy, const std::string& malloc) {
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const cell_spec& c = plan.cells[i];
    if (c.frame == f && c.workload == workload && c.strategy == strategy &&
        c.malloc.label == malloc && !c.copy_cliff_removed)
      return i;
  }
  return std::nullopt;
}

std::string cell_text(const cell_spec& c) {
  return fmt::format("{} / {} @ {}", c.workload, c.strategy, c.malloc.label);
}

// Each cell against its workload's baseline: std @ the first malloc, or the first malloc's cell
// in the heap frame; serve cells are compared by the serve claim.
void add_vs_baseline(const run_plan& plan, std::vector<tracked_comparison>& out) {
  const std::string first = plan.mallocs.front().label;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const cell_spec& c = plan.cells[i];
    if (c.copy_cliff_removed || (c.frame != frame::batch && c.frame != frame::heap)) continue;
    const std::string strategy = c.frame == frame::heap ? heap_strategy : baseline_strategy;
    const auto base = cell_index(plan, c.frame, c.workload, strategy, first);
    if (!base || *base == i) continue;
    out.push_back({"vs_std " + cell_text(c),
                   "vs_std",
                   *base,
                   i,
                   c.frame == frame::heap ? "ns_per_pair" : "p50",
                   {1.0}});
  }
}

// A ratio claim (one candidate malloc, or each of candidate_mallocs) against its accepted range.
void add_ratio_claim(const run_plan& plan, const json& claim,
                     std::vector<tracked_comparison>& out) {
  const std::string figure = figure_of_metric(claim.at("metric"));
  if (figure.empty()) return;
  const frame f = claim_frame(claim);
  const std::string workload = claim.at("workload");
  const auto base = cell_index(plan, f, workload, claim.at("baseline").get<std::string>(),
                               claim.value("baseline_malloc", std::string("glibc")));
  const claim_rules::accepted_range range = claim_rules::accepted(claim);
  std::vector<std::string> mallocs;
  if (claim.contains("candidate_mallocs"))
    mallocs = claim.at("candidate_mallocs").get<std::vector<std::string>>();
  else
    mallocs = {claim.value("candidate_malloc", std::string("glibc"))};
  // "Any malloc" claims hold when any candidate does: each is judged at alpha / candidates.
  std::vector<std::pair<std::string, std::size_t>> candidates;
  for (const std::string& m : mallocs)
    if (const auto c = cell_index(plan, f, workload, claim.at("candidate").get<std::string>(), m))
      candidates.emplace_back(m, *c);
  if (!base) return;
  for (const auto& [m, candidate] : candidates) {
    const std::string id = claim.at("id").get<std::string>() +
                           (claim.contains("candidate_mallocs") ? " @ " + m : std::string());
    out.push_back(
        {id, "claim", *base, candidate, figure, {range.low, range.high}, candidates.size()});
  }
}

// "X has the lowest figure among ...": X against each rival (rival / X > 1 when X is lowest).
void add_lowest_claim(const run_plan& plan, const json& claim,
                      std::vector<tracked_comparison>& out) {
  const std::string figure = claim.at("metric") == "lowest_cv" ? "cv" : "jitter";
  const std::string workload = claim.at("workload");
  const frame f = claim_frame(claim);
  const auto candidate =
      cell_index(plan, f, workload, claim.at("candidate").get<std::string>(), "glibc");
  for (const auto& rival : claim.at("among")) {
    const auto other = cell_index(plan, f, workload, rival.get<std::string>(), "glibc");
    if (!candidate || !other || *other == *candidate) continue;
    out.push_back({claim.at("id").get<std::string>() + " vs " + rival.get<std::string>(),
                   "claim",
                   *other,
                   *candidate,
                   figure,
                   {1.0}});
  }
}

// "X costs the most among workloads ...", under each malloc: each other workload against X.
void add_highest_claim(const run_plan& plan, const json& claim,
                       std::vector<tracked_comparison>& out) {
  const std::string strategy = claim.value("strategy", std::string(heap_strategy));
  const frame f = claim_frame(claim);
  for (const malloc_choice& m : plan.mallocs) {
    const auto top =
        cell_index(plan, f, claim.at("candidate").get<std::string>(), strategy, m.label);
    for (const auto& w : claim.at("among_workloads")) {
      const auto other = cell_index(plan, f, w.get<std::string>(), strategy, m.label);
      if (!top || !other || *other == *top) continue;
      out.push_back({fmt::format("{} @ {} vs {}", claim.at("id").get<std::string>(), m.label,
                                 w.get<std::string>()),
                     "claim",
                     *other,
                     *top,
                     "ns_per_pair",
                     {1.0}});
    }
  }
}

}  // namespace

std::string figure_of_metric(const std::string& metric) {
  static const std::map<std::string, std::string> figures = {
      {"speedup_p50", "p50"},
      {"speedup_mean", "mean"},
      {"throughput_ratio", "mean"},
      {"p99_ratio", "p99"},
      {"jitter_ratio", "jitter"},
      {"cv_ratio", "cv"},
      {"speedup_ns_per_pair", "ns_per_pair"},
      {"serve_cpu_per_request_ratio", "cpu_per_request"},
      {"serve_throughput_ratio_hey", "time_per_request"}};
  const auto found = figures.find(metric);
  return found == figures.end() ? std::string() : found->second;
}

std::vector<tracked_comparison> planned_comparisons(const run_plan& plan, const json& claims) {
  std::vector<tracked_comparison> out;
  add_vs_baseline(plan, out);
  for (const json& claim : claims.at("claims")) {
    if (!claim.value("measurable", true)) continue;
    const std::string metric = claim.value("metric", std::string());
    if (metric == "lowest_cv" || metric == "lowest_jitter")
      add_lowest_claim(plan, claim, out);
    else if (metric == "highest_ns_per_pair")
      add_highest_claim(plan, claim, out);
    else if (claim.contains("workload") && claim.contains("candidate"))
      add_ratio_claim(plan, claim, out);
  }
  for (tracked_comparison& c : out)
    if (c.kind == "vs_std") c.margin = default_equivalence_margin;
  return out;
}

std::vector<tracked_comparison> peer_comparisons(const run_plan& plan, const budget_state& state) {
  std::vector<tracked_comparison> out;
  for (const std::string& workload : plan.workloads.lab)
    for (const malloc_choice& m : plan.mallocs) {
      std::optional<std::size_t> best;
      std::vector<std::size_t> peers;
      std::size_t candidates = 0;  // the best is picked among these: alpha / candidates
      for (std::size_t i = 0; i < plan.cells.size(); ++i) {
        const cell_spec& c = plan.cells[i];
        if (c.frame != frame::batch || c.workload != workload || c.malloc.label != m.label ||
            c.copy_cliff_removed)
          continue;
        const process_spread s = state.spread(i, "p50");
        if (!s.valid()) continue;
        if (side_of(c.strategy) == peer_side::peer) peers.push_back(i);
        if (side_of(c.strategy) != peer_side::alloclab) continue;
        ++candidates;
        if (!best || s.level < state.spread(*best, "p50").level) best = i;
      }
      if (!best) continue;
      for (std::size_t p : peers)
        out.push_back({fmt::format("peer {} @ {}: {} vs {}", workload, m.label,
                                   plan.cells[*best].strategy, plan.cells[p].strategy),
                       "peer",
                       p,
                       *best,
                       "p50",
                       {1.0},
                       candidates,
                       default_equivalence_margin});
    }
  return out;
}

std::vector<figure_readings> figures_of(const measurement_record& r) {
  if (r.status != "ok") return {};
  return r.figures.readings();
}

std::vector<double> readings_of(const measurement_record& r, const std::string& figure) {
  const auto processes = figures_of(r);
  if (processes.size() != 1) return {};
  const auto found = processes.front().find(figure);
  return found == processes.front().end() ? std::vector<double>{} : found->second;
}

}  // namespace alloclab::lab
