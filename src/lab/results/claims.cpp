#include "claims.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "claims/claim_metrics.hpp"
#include "claims/embedded_files.hpp"
#include "model/claim_figures.hpp"
#include "model/fields.hpp"
#include "results/claim_rules.hpp"
#include "results/ratio_intervals.hpp"
#include "results/schema_check.hpp"
#include "stats/ratio_text.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using namespace claim_rules;

// The claim's candidate strategy under `candidate_malloc` against its baseline; `comparison_id`
// names the pair in the stop rule's comparisons.
outcome judge_ratio(const model::document& results, const json& claim, const claim_metric& metric,
                    const std::string& candidate_malloc, const std::string& comparison_id) {
  const std::string workload = claim.at("workload");
  const model::cell* base = nullptr;
  const model::cell* cand = nullptr;
  if (auto why = why_untimed(results, claim, workload, claim.at("baseline"),
                             claim.value("baseline_malloc", std::string("glibc")), base))
    return *why;
  if (auto why =
          why_untimed(results, claim, workload, claim.at("candidate"), candidate_malloc, cand))
    return *why;

  std::optional<ratio_estimate> measured =
      estimate_cell_ratio(std::string(metric.name), *base, *cand);
  if (!measured)
    return {not_measurable, "-",
            fmt::format("metric {} is undefined here (zero or negative figure)", metric.name)};
  const accepted_range range = accepted(claim);
  const std::string judged_on = use_stop_rule_interval(results, comparison_id, *measured);
  std::string detail = fmt::format("claimed {}, accepted {:.2f}-{:.2f}; {}",
                                   claim.at("claimed").dump(), range.low, range.high, judged_on);
  const std::vector<model::claim_estimate> estimates{estimate_of(*measured, candidate_malloc)};
  if (const std::string small = too_small(results, *measured, metric, base, cand); !small.empty())
    return {too_few, estimate_text(*measured), detail + "; " + small, accepted_interval(range),
            estimates};
  const std::string verdict = verdict_of(*measured, range, detail);
  return {verdict, estimate_text(*measured), detail, accepted_interval(range), estimates};
}

outcome judge_ratio(const model::document& results, const json& claim, const claim_metric& metric) {
  return judge_ratio(results, claim, metric, claim.value("candidate_malloc", std::string("glibc")),
                     claim.at("id").get<std::string>());
}

// "Some candidate malloc is N x better than the baseline": each of `candidate_mallocs` that this
// run measured is judged like a ratio claim; reproduced when any lies in the accepted range.
outcome judge_any_malloc(const model::document& results, const json& claim,
                         const claim_metric& metric) {
  const accepted_range range = accepted(claim);
  std::string measured, outside;
  std::vector<std::string> inside, missing;
  std::vector<model::claim_estimate> estimates;
  bool undecided = false;
  for (const std::string m : claim.at("candidate_mallocs")) {
    const std::string comparison_id = claim.at("id").get<std::string>() + " @ " + m;
    const outcome o = judge_ratio(results, claim, metric, m, comparison_id);
    if (o.verdict != reproduced && o.verdict != refuted && o.verdict != inconclusive) {
      missing.push_back(m);
      continue;
    }
    if (o.verdict == inconclusive) undecided = true;
    measured += fmt::format("{}{} {}", measured.empty() ? "" : ", ", m, o.measured);
    estimates.insert(estimates.end(), o.estimates.begin(), o.estimates.end());
    if (o.verdict == reproduced) inside.push_back(m);
  }
  if (measured.empty()) {
    const model::cell* cell = nullptr;
    const std::string first = claim.at("candidate_mallocs").at(0);
    if (auto why =
            why_untimed(results, claim, claim.at("workload"), claim.at("candidate"), first, cell))
      return *why;
    return {not_measurable, "-", "no candidate malloc has a usable figure"};
  }
  std::string detail = fmt::format(
      "claimed {}, accepted {:.2f}-{:.2f}; inside: {}", claim.at("claimed").dump(), range.low,
      range.high,
      inside.empty() ? std::string("none") : fmt::format("{}", fmt::join(inside, ", ")));
  if (!missing.empty()) detail += fmt::format("; not measured: {}", fmt::join(missing, ", "));
  if (claim.contains("note")) detail += "; " + claim.at("note").get<std::string>();
  return {!inside.empty() ? reproduced
          : undecided     ? inconclusive
                          : refuted,
          measured, detail, accepted_interval(range), estimates};
}

// The served throughput beside the server's CPU per request, and how much narrower the CPU
// figure's interval over servers is (both as ratios of the intervals' widths in log space).
std::string serve_figure_beside(const std::map<std::string, model::served_ratio>& vs,
                                const std::string& judged) {
  const std::string other = "throughput_ratio_hey";
  const auto a = vs.find(judged);
  const auto b = vs.find(other);
  if (judged == other || a == vs.end() || b == vs.end() || !a->second.range || !b->second.range)
    return {};
  const auto width = [](const model::served_ratio& e) {
    return std::log(e.range->high / e.range->low);
  };
  const std::string throughput =
      ratio_with_interval(b->second.value, b->second.range->low, b->second.range->high, "x");
  return fmt::format(
      "; throughput (hey req/s) beside it: {}; over repetitions the {} interval "
      "is {:.1f}x narrower than the throughput's",
      throughput, judged, width(a->second) > 0 ? width(b->second) / width(a->second) : 0.0);
}

// The variant the serve frame served as `strategy` under `malloc` for `workload`, or null.
const model::served_variant* find_served(const std::vector<model::served_variant>& served,
                                         const std::string& workload, const std::string& strategy,
                                         const std::string& malloc) {
  const auto found = std::find_if(served.begin(), served.end(), [&](const auto& v) {
    return v.workload == workload && v.strategy == strategy && v.malloc == malloc;
  });
  return found == served.end() ? nullptr : &*found;
}

// A served variant against the baseline variant (the serve frame's section, one fresh server per
// repetition): the ratio named by the claim's metric, judged like a ratio claim.
outcome judge_serve(const model::document& results, const json& claim, const claim_metric& metric) {
  const std::string workload = claim.at("workload");
  const std::string estimate(metric.served_estimate);
  const std::string strategy = claim.at("candidate");
  const std::string malloc = claim.value("candidate_malloc", std::string("glibc"));
  const model::claim_figures figures = model::claim_figures_of(results.parts);
  const model::served_variant* cell = find_served(figures.served, workload, strategy, malloc);
  const std::string name = cell_name(workload, strategy, malloc);
  if (cell == nullptr)
    return {not_measured, "-",
            fmt::format("{} was not served in this run (use {})", name, run_hint(claim))};
  const auto e = cell->vs_baseline.find(estimate);
  if (e == cell->vs_baseline.end())
    return {not_measurable, "-",
            fmt::format("{} has no {}: {}", name, estimate,
                        cell->reason.value_or("its baseline has no number"))};
  ratio_estimate r;
  r.value = e->second.value;
  if (e->second.range) r.range = {e->second.range->low, e->second.range->high};
  r.base_repetitions = r.candidate_repetitions = e->second.repetitions;
  const accepted_range range = accepted(claim);
  const std::string judged_on = use_stop_rule_interval(results, claim.at("id"), r);
  std::string detail = fmt::format(
      "claimed {}, accepted {:.2f}-{:.2f}; {} over fresh servers, {}{}", claim.at("claimed").dump(),
      range.low, range.high, estimate, judged_on, serve_figure_beside(cell->vs_baseline, estimate));
  if (r.base_repetitions < min_repetitions)
    return {too_few, estimate_text(r),
            fmt::format("{}; {} repetitions per side; a verdict needs at least {}", detail,
                        r.base_repetitions, min_repetitions)};
  const std::string verdict = verdict_of(r, range, detail);
  return {verdict, estimate_text(r), detail};
}

// The claim's judge, as its metric's entry in the metrics table says.
outcome judge(const model::document& results, const json& claim) {
  if (!claim.value("measurable", true)) return {not_measurable, "-", claim.value("reason", "")};
  const std::string name = claim.at("metric");
  const claim_metric* metric = find_claim_metric(name);
  if (metric == nullptr)
    return {not_measurable, "-",
            fmt::format("malformed claim: unknown metric '{}' (known: {})", name,
                        claim_metric_names())};
  if (auto small = heap_run_too_small(results, *metric)) return *small;
  switch (metric->judged_as) {
    case claim_judging::lowest:
      return judge_lowest(results, claim, *metric);
    case claim_judging::highest:
      return judge_highest(results, claim, *metric);
    case claim_judging::returns_memory:
      return judge_returns_memory(results, claim);
    case claim_judging::served_ratio:
      return judge_serve(results, claim, *metric);
    case claim_judging::ratio:
      break;
  }
  return claim.contains("candidate_mallocs") ? judge_any_malloc(results, claim, *metric)
                                             : judge_ratio(results, claim, *metric);
}

std::string joined(const json& names, const char* separator) {
  return fmt::format("{}", fmt::join(names.get<std::vector<std::string>>(), separator));
}

// What the claims table shows as "workload / candidate".
std::pair<std::string, std::string> where_of(const json& claim) {
  if (claim.contains("among_workloads"))
    return {joined(claim.at("among_workloads"), ", "), claim.value("candidate", "")};
  if (claim.contains("workloads"))
    return {joined(claim.at("workloads"), ", "),
            joined(claim.at("retains"), ", ") + " vs " + joined(claim.at("returns"), ", ")};
  std::string candidate = claim.value("candidate", "");
  if (claim.contains("candidate_mallocs"))
    candidate += " @ " + joined(claim.at("candidate_mallocs"), "|");
  else if (claim.contains("candidate_malloc"))
    candidate += " @ " + claim.at("candidate_malloc").get<std::string>();
  return {claim.value("workload", ""), candidate};
}

}  // namespace

const json& seed_claims() {
  static const json claims = json::parse(embedded::seed_claims_json);
  return claims;
}

const json& seed_claims_schema() {
  static const json schema = json::parse(embedded::seed_claims_schema_json);
  return schema;
}

std::vector<std::string> claims_problems(const json& claims) {
  return schema_violations(claims, seed_claims_schema());
}

std::vector<model::claim_verdict> claim_verdicts(const model::document& results,
                                                 const json& claims) {
  std::vector<model::claim_verdict> verdicts;
  for (const auto& claim : claims.at("claims")) {
    outcome o;
    std::pair<std::string, std::string> where;
    try {
      o = judge(results, claim);
      where = where_of(claim);
    } catch (const json::exception& e) {
      o = {not_measurable, "-", fmt::format("malformed claim or results: {}", e.what())};
    }
    model::claim_verdict v;
    v.id = claim.at("id");
    v.seed = claim.value("seed", "");
    v.source = claim.value("source", "");
    v.statement = claim.value("statement", "");
    std::tie(v.workload, v.candidate) = std::move(where);
    v.metric = claim.value("metric", "");
    v.verdict = std::move(o.verdict);
    v.measured = std::move(o.measured);
    v.accepted = o.accepted;
    v.estimates = std::move(o.estimates);
    v.detail = std::move(o.detail);
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

json judge_claims(const json& results, const json& claims) {
  return model::write_json(claim_verdicts(model::from_json(results), claims));
}

}  // namespace alloclab::lab
