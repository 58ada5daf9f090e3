#include "claims.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "embedded_files.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

constexpr const char* reproduced = "reproduced";
constexpr const char* refuted = "refuted";
constexpr const char* not_measurable = "not measurable here";
constexpr const char* not_measured = "not measured in this run";

struct outcome {
  std::string verdict;
  std::string measured;
  std::string detail;
};

std::string malloc_of(const json& cell) {
  return cell.value("malloc", std::string("glibc"));
}

const json* find_cell(const json& results, const std::string& workload, const std::string& strategy,
                      const std::string& malloc) {
  for (const auto& w : results.at("workloads")) {
    if (w.at("name") != workload) continue;
    for (const auto& c : w.at("cells"))
      if (c.at("strategy") == strategy && malloc_of(c) == malloc) return &c;
  }
  return nullptr;
}

std::string cell_name(const std::string& workload, const std::string& strategy,
                      const std::string& malloc) {
  return malloc == "glibc" ? fmt::format("{} x {}", workload, strategy)
                           : fmt::format("{} x {} @ {}", workload, strategy, malloc);
}

// How to measure a claim this run did not cover.
std::string run_hint(const json& claim) {
  if (claim.contains("run_with")) return claim.at("run_with").get<std::string>();
  std::string hint = fmt::format(
      "--workloads {} --strategies {},{}", claim.value("workload", std::string("?")),
      claim.value("baseline", std::string("std")), claim.value("candidate", std::string("?")));
  const std::string m = claim.value("candidate_malloc", std::string("glibc"));
  if (m != "glibc") hint += " --malloc glibc," + m;
  return hint;
}

// The cell with a number, or the outcome that explains why there is none: a cell this run did not
// include is "not measured in this run"; one that ran but has no number is "not measurable here".
std::optional<outcome> why_untimed(const json& results, const json& claim,
                                   const std::string& workload, const std::string& strategy,
                                   const std::string& malloc, const json*& cell) {
  cell = find_cell(results, workload, strategy, malloc);
  const std::string name = cell_name(workload, strategy, malloc);
  if (!cell)
    return outcome{not_measured, "-",
                   fmt::format("{} was not part of this run (use {})", name, run_hint(claim))};
  if (cell->at("timing").is_null()) {
    const json& reason = cell->at("reason");
    return outcome{not_measurable, "-",
                   fmt::format("{} has no number: {}", name,
                               reason.is_string() ? reason.get<std::string>()
                                                  : cell->at("status").get<std::string>())};
  }
  return std::nullopt;
}

// Ratio metrics, oriented so that > 1 means the candidate is better.
std::optional<double> ratio_metric(const std::string& metric, const json& base_cell,
                                   const json& cand_cell) {
  auto quotient = [](double num, double den) {
    return den > 0 && num > 0 ? std::optional<double>(num / den) : std::nullopt;
  };
  if (metric == "speedup_ns_per_pair") {
    if (base_cell.value("ns_per_pair", json()).is_null() ||
        cand_cell.value("ns_per_pair", json()).is_null())
      return std::nullopt;
    return quotient(base_cell["ns_per_pair"]["mean"], cand_cell["ns_per_pair"]["mean"]);
  }
  const json& base = base_cell.at("timing");
  const json& cand = cand_cell.at("timing");
  if (metric == "speedup_p50") return quotient(base["p50_ns"], cand["p50_ns"]);
  if (metric == "speedup_mean") return quotient(base["mean_ns"], cand["mean_ns"]);
  if (metric == "p99_ratio") return quotient(base["p99_ns"], cand["p99_ns"]);
  if (metric == "jitter_ratio") return quotient(base["jitter_ns"], cand["jitter_ns"]);
  if (metric == "cv_ratio") return quotient(base["cv"], cand["cv"]);
  if (metric == "throughput_ratio")
    return quotient(cand["throughput_per_s"], base["throughput_per_s"]);
  return std::nullopt;
}

bool is_speed_metric(const std::string& metric) {
  return metric == "speedup_p50" || metric == "speedup_mean";
}

// Tail metrics move from repetition to repetition; their per-repetition ratios, paired by
// repetition (both cells ran in it), show how far one pooled figure can be trusted.
std::vector<double> per_repetition_tail_ratios(const std::string& metric, const json& base,
                                               const json& cand) {
  std::vector<double> ratios;
  if (metric != "jitter_ratio" && metric != "p99_ratio") return ratios;
  if (!base.contains("repetition_p99_ns") || !cand.contains("repetition_p99_ns")) return ratios;
  const auto bp99 = base["repetition_p99_ns"].get<std::vector<double>>();
  const auto cp99 = cand["repetition_p99_ns"].get<std::vector<double>>();
  const auto bp50 = base["repetition_medians_ns"].get<std::vector<double>>();
  const auto cp50 = cand["repetition_medians_ns"].get<std::vector<double>>();
  if (bp99.size() != cp99.size() || bp50.size() != bp99.size() || cp50.size() != cp99.size())
    return ratios;
  for (std::size_t i = 0; i < bp99.size(); ++i) {
    const double b = metric == "p99_ratio" ? bp99[i] : bp99[i] - bp50[i];
    const double c = metric == "p99_ratio" ? cp99[i] : cp99[i] - cp50[i];
    if (c > 0) ratios.push_back(b / c);
  }
  std::sort(ratios.begin(), ratios.end());
  return ratios;
}

struct accepted_range {
  double low, high;
  bool contains(double v) const { return v >= low && v <= high; }
};

// The same factor above and below: "1.4x" with tolerance 0.2 accepts 1.17x to 1.68x.
accepted_range accepted(const json& claim) {
  const json& claimed = claim.at("claimed");
  const double low = claimed.is_array() ? claimed.at(0).get<double>() : claimed.get<double>();
  const double high = claimed.is_array() ? claimed.at(1).get<double>() : claimed.get<double>();
  const double tolerance = claim.value("tolerance", 0.2);
  return {low / (1 + tolerance), high * (1 + tolerance)};
}

// How a ratio outside the accepted range differs from the claim: ratios are
// oriented so that > 1 favours the candidate, so compare effects in log space.
std::string miss_direction(double measured, const accepted_range& range) {
  const double claimed_effect = std::log(std::sqrt(range.low * range.high));
  const double measured_effect = std::log(measured);
  if (std::abs(measured_effect) < 0.02 || claimed_effect * measured_effect < 0)
    return "no effect or the opposite one";
  return std::abs(measured_effect) > std::abs(claimed_effect) ? "a stronger effect than claimed"
                                                              : "a weaker effect than claimed";
}

outcome judge_ratio(const json& results, const json& claim) {
  const std::string workload = claim.at("workload");
  const std::string metric = claim.at("metric");
  const json* base = nullptr;
  const json* cand = nullptr;
  if (auto why = why_untimed(results, claim, workload, claim.at("baseline"),
                             claim.value("baseline_malloc", std::string("glibc")), base))
    return *why;
  if (auto why = why_untimed(results, claim, workload, claim.at("candidate"),
                             claim.value("candidate_malloc", std::string("glibc")), cand))
    return *why;

  const std::optional<double> measured = ratio_metric(metric, *base, *cand);
  if (!measured)
    return {not_measurable, "-",
            fmt::format("metric {} is undefined here (zero or negative figure)", metric)};

  const accepted_range range = accepted(claim);
  const bool inside = range.contains(*measured);
  std::string detail = fmt::format("claimed {}, accepted {:.2f}-{:.2f}", claim.at("claimed").dump(),
                                   range.low, range.high);
  if (!inside) detail += "; measured " + miss_direction(*measured, range);
  if (is_speed_metric(metric)) {
    const mann_whitney_result test =
        mann_whitney_u(base->at("timing").at("repetition_medians_ns").get<std::vector<double>>(),
                       cand->at("timing").at("repetition_medians_ns").get<std::vector<double>>());
    detail += fmt::format("; U test on repetition medians p={:.3g}", test.p_value);
  }
  const std::vector<double> spread =
      per_repetition_tail_ratios(metric, base->at("timing"), cand->at("timing"));
  if (!spread.empty()) {
    detail += fmt::format("; per repetition {:.2f}-{:.2f} (median {:.2f})", spread.front(),
                          spread.back(), percentile_sorted(spread, 0.5));
    const auto agreeing =
        std::count_if(spread.begin(), spread.end(), [&](double r) { return range.contains(r); });
    if (agreeing > 0 && static_cast<std::size_t>(agreeing) < spread.size())
      detail += fmt::format(", {} of {} repetitions inside the accepted range: unstable verdict",
                            agreeing, spread.size());
  }
  return {inside ? reproduced : refuted, fmt::format("{:.2f}x", *measured), detail};
}

// "Some candidate malloc is N x better than the baseline": each of `candidate_mallocs` that this
// run measured is judged like a ratio claim; reproduced when any lies in the accepted range.
outcome judge_any_malloc(const json& results, const json& claim) {
  const accepted_range range = accepted(claim);
  std::string measured, outside;
  std::vector<std::string> inside, missing;
  for (const auto& m : claim.at("candidate_mallocs")) {
    json one = claim;
    one["candidate_malloc"] = m;
    const outcome o = judge_ratio(results, one);
    if (o.verdict != reproduced && o.verdict != refuted) {
      missing.push_back(m.get<std::string>());
      continue;
    }
    measured +=
        fmt::format("{}{} {}", measured.empty() ? "" : ", ", m.get<std::string>(), o.measured);
    if (o.verdict == reproduced) inside.push_back(m.get<std::string>());
  }
  if (measured.empty()) {
    const json* cell = nullptr;
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
  return {inside.empty() ? refuted : reproduced, measured, detail};
}

// "Workload X costs the most per pair": under every malloc that measured all of `among_workloads`.
outcome judge_highest(const json& results, const json& claim) {
  const std::string candidate = claim.at("candidate");
  const std::string strategy = claim.value("strategy", std::string("malloc"));
  const std::vector<std::string> among = claim.at("among_workloads");
  const std::vector<std::string> mallocs =
      results.contains("config")
          ? results.at("config").value("mallocs", std::vector<std::string>{"glibc"})
          : std::vector<std::string>{"glibc"};
  std::size_t judged = 0, held = 0;
  std::string detail, exceptions;
  for (const std::string& m : mallocs) {
    std::vector<std::pair<std::string, double>> figures;
    for (const std::string& w : among) {
      const json* c = find_cell(results, w, strategy, m);
      if (c == nullptr || c->value("ns_per_pair", json()).is_null()) break;
      figures.emplace_back(w, c->at("ns_per_pair").at("mean").get<double>());
    }
    if (figures.size() != among.size()) continue;
    std::sort(figures.begin(), figures.end(), [](auto& a, auto& b) { return a.second > b.second; });
    ++judged;
    if (figures.front().first == candidate)
      ++held;
    else
      exceptions += fmt::format("{}{} (highest: {})", exceptions.empty() ? "" : ", ", m,
                                figures.front().first);
    if (detail.empty()) {
      detail = m + ": ";
      for (std::size_t i = 0; i < figures.size(); ++i)
        detail +=
            fmt::format("{}{} {:.1f} ns", i ? " > " : "", figures[i].first, figures[i].second);
    }
  }
  if (judged == 0)
    return {not_measured, "-",
            fmt::format("needs {} under at least one malloc (use {})", fmt::join(among, ", "),
                        run_hint(claim))};
  if (!exceptions.empty()) detail += "; exceptions: " + exceptions;
  return {held == judged ? reproduced : refuted,
          fmt::format("highest under {}/{} mallocs", held, judged), detail};
}

// "These mallocs keep freed memory resident, those give it back": the share of a heap cell's RSS
// growth still resident after everything was freed (memory.retained_after_free, before any
// explicit purge), median over `workloads`, against `threshold`.
outcome judge_returns_memory(const json& results, const json& claim) {
  const std::vector<std::string> workloads = claim.at("workloads");
  const double threshold = claim.value("threshold", 0.5);
  std::string measured, failures, missing;
  bool any = false;
  auto judge_group = [&](const char* key, bool expect_retain) {
    for (const auto& m : claim.at(key)) {
      std::vector<double> kept;
      for (const auto& w : workloads) {
        const json* c = find_cell(results, w, "malloc", m);
        if (c == nullptr || c->value("memory", json()).is_null()) continue;
        const json& v = c->at("memory").at("retained_after_free");
        if (v.is_number()) kept.push_back(v.get<double>());
      }
      if (kept.empty()) {
        missing += fmt::format("{}{}", missing.empty() ? "" : ", ", m.get<std::string>());
        continue;
      }
      any = true;
      std::sort(kept.begin(), kept.end());
      const double median = percentile_sorted(kept, 0.5);
      measured += fmt::format("{}{} keeps {:.0f}%", measured.empty() ? "" : ", ",
                              m.get<std::string>(), 100 * median);
      if ((median >= threshold) != expect_retain)
        failures += fmt::format("{}{} {}", failures.empty() ? "" : "; ", m.get<std::string>(),
                                expect_retain ? "gave its memory back" : "kept its memory");
    }
  };
  judge_group("retains", true);
  judge_group("returns", false);
  if (!any)
    return {not_measured, "-",
            fmt::format("needs the heap workloads' memory figures (use {})", run_hint(claim))};
  std::string detail = fmt::format(
      "kept = RSS growth still resident after every block was freed, before any purge "
      "call; median over {}; threshold {:.0f}%",
      fmt::join(workloads, ", "), 100 * threshold);
  if (!failures.empty()) detail += "; against the claim: " + failures;
  if (!missing.empty()) detail += "; not measured: " + missing;
  if (claim.contains("note")) detail += "; " + claim.at("note").get<std::string>();
  return {failures.empty() ? reproduced : refuted, measured, detail};
}

outcome judge_lowest(const json& results, const json& claim, const std::string& field) {
  const std::string workload = claim.at("workload");
  const std::string candidate = claim.at("candidate");
  std::vector<std::pair<std::string, double>> figures;
  for (const auto& name : claim.at("among")) {
    const json* cell = nullptr;
    if (auto why = why_untimed(results, claim, workload, name, "glibc", cell)) return *why;
    figures.emplace_back(name.get<std::string>(), cell->at("timing").at(field).get<double>());
  }
  std::sort(figures.begin(), figures.end(), [](auto& a, auto& b) { return a.second < b.second; });
  const bool lowest = figures.front().first == candidate;
  std::string listing;
  for (const auto& [name, value] : figures)
    listing += fmt::format(
        "{}{} {}", listing.empty() ? "" : ", ", name,
        field == "cv" ? fmt::format("{:.1f}%", 100 * value) : fmt::format("{:.0f} ns", value));
  return {lowest ? reproduced : refuted, fmt::format("lowest: {}", figures.front().first),
          field + ": " + listing};
}

outcome judge(const json& results, const json& claim) {
  if (!claim.value("measurable", true)) return {not_measurable, "-", claim.value("reason", "")};
  const std::string metric = claim.at("metric");
  if (metric == "lowest_cv") return judge_lowest(results, claim, "cv");
  if (metric == "lowest_jitter") return judge_lowest(results, claim, "jitter_ns");
  if (metric == "highest_ns_per_pair") return judge_highest(results, claim);
  if (metric == "returns_memory") return judge_returns_memory(results, claim);
  if (claim.contains("candidate_mallocs")) return judge_any_malloc(results, claim);
  return judge_ratio(results, claim);
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

json judge_claims(const json& results, const json& claims) {
  json verdicts = json::array();
  for (const auto& claim : claims.at("claims")) {
    outcome o;
    std::pair<std::string, std::string> where;
    try {
      o = judge(results, claim);
      where = where_of(claim);
    } catch (const json::exception& e) {
      o = {not_measurable, "-", fmt::format("malformed claim or results: {}", e.what())};
    }
    const auto& [workload, candidate] = where;
    verdicts.push_back({{"id", claim.at("id")},
                        {"seed", claim.value("seed", "")},
                        {"source", claim.value("source", "")},
                        {"statement", claim.value("statement", "")},
                        {"workload", workload},
                        {"candidate", candidate},
                        {"metric", claim.value("metric", "")},
                        {"verdict", o.verdict},
                        {"measured", o.measured},
                        {"detail", o.detail}});
  }
  return verdicts;
}

}  // namespace alloclab::lab
