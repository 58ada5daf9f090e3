#include "claims.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "embedded_files.hpp"
#include "results/ratio_intervals.hpp"
#include "stats/ratio_text.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

constexpr const char* reproduced = "reproduced";
constexpr const char* refuted = "refuted";
constexpr const char* not_measurable = "not measurable here";
constexpr const char* not_measured = "not measured in this run";
constexpr const char* inconclusive = "inconclusive";
constexpr const char* too_few = "not judged: too few samples";

// Below these a verdict would be noise: 5 heap iterations once refuted a claim 5000 reproduced.
constexpr std::size_t min_repetitions = 5;
constexpr std::size_t min_batch_samples = 100;
constexpr std::size_t min_heap_iterations = 1000;

struct outcome {
  std::string verdict;
  std::string measured;
  std::string detail;
  json accepted = nullptr;         // {low, high}: the ratio range the claim accepts
  json estimates = json::array();  // {malloc, value, low, high}: what the run measured
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

// Why the run is too small to judge a claim on these cells, or empty.
std::string too_small(const json& results, const ratio_estimate& r, const std::string& metric) {
  const std::size_t reps = std::min(r.base_repetitions, r.candidate_repetitions);
  if (reps < min_repetitions)
    return fmt::format("{} repetitions per side; a verdict needs at least {}", reps,
                       min_repetitions);
  const json& config = results.at("config");
  if (metric == "speedup_ns_per_pair") {
    const json& heap = config.value("heap", json());
    const std::size_t n = heap.is_object() ? heap.value("iterations", std::size_t{0}) : 0;
    if (n < min_heap_iterations)
      return fmt::format("{} batches per repetition; a verdict needs at least {}", n,
                         min_heap_iterations);
    return {};
  }
  const std::size_t n = config.value("samples_per_repetition", std::size_t{0});
  if (n < min_batch_samples)
    return fmt::format("{} samples per repetition; a verdict needs at least {}", n,
                       min_batch_samples);
  return {};
}

// Reproduced when the whole interval lies inside the accepted range, refuted when none of it
// does, inconclusive when it straddles a bound.
std::string verdict_of(const ratio_estimate& r, const accepted_range& range) {
  if (!r.range.valid()) return inconclusive;
  if (r.range.low >= range.low && r.range.high <= range.high) return reproduced;
  if (r.range.high < range.low || r.range.low > range.high) return refuted;
  return inconclusive;
}

json range_json(const accepted_range& range) {
  return {{"low", range.low}, {"high", range.high}};
}

json estimate_json(const ratio_estimate& r, const std::string& malloc) {
  return {{"malloc", malloc},
          {"value", r.value},
          {"low", r.range.valid() ? json(r.range.low) : json(nullptr)},
          {"high", r.range.valid() ? json(r.range.high) : json(nullptr)}};
}

std::string estimate_text(const ratio_estimate& r) {
  return r.range.valid() ? ratio_with_interval(r.value, r.range.low, r.range.high, "x")
                         : ratio_with_interval(r.value, std::nullopt, std::nullopt, "x");
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

  const std::optional<ratio_estimate> measured = estimate_ratio(metric, *base, *cand);
  if (!measured)
    return {not_measurable, "-",
            fmt::format("metric {} is undefined here (zero or negative figure)", metric)};
  const accepted_range range = accepted(claim);
  std::string detail = fmt::format(
      "claimed {}, accepted {:.2f}-{:.2f}; {:.0f}% interval over "
      "repetitions",
      claim.at("claimed").dump(), range.low, range.high, 100 * interval_confidence);
  const json estimates = json::array(
      {estimate_json(*measured, claim.value("candidate_malloc", std::string("glibc")))});
  if (const std::string small = too_small(results, *measured, metric); !small.empty())
    return {too_few, estimate_text(*measured), detail + "; " + small, range_json(range), estimates};
  const std::string verdict = verdict_of(*measured, range);
  if (verdict == refuted) detail += "; measured " + miss_direction(measured->value, range);
  if (verdict == inconclusive) detail += "; the interval straddles the accepted range";
  return {verdict, estimate_text(*measured), detail, range_json(range), estimates};
}

// "Some candidate malloc is N x better than the baseline": each of `candidate_mallocs` that this
// run measured is judged like a ratio claim; reproduced when any lies in the accepted range.
outcome judge_any_malloc(const json& results, const json& claim) {
  const accepted_range range = accepted(claim);
  std::string measured, outside;
  std::vector<std::string> inside, missing;
  json estimates = json::array();
  bool undecided = false;
  for (const auto& m : claim.at("candidate_mallocs")) {
    json one = claim;
    one["candidate_malloc"] = m;
    const outcome o = judge_ratio(results, one);
    if (o.verdict != reproduced && o.verdict != refuted && o.verdict != inconclusive) {
      missing.push_back(m.get<std::string>());
      continue;
    }
    if (o.verdict == inconclusive) undecided = true;
    measured +=
        fmt::format("{}{} {}", measured.empty() ? "" : ", ", m.get<std::string>(), o.measured);
    for (const json& e : o.estimates) estimates.push_back(e);
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
  return {!inside.empty() ? reproduced
          : undecided     ? inconclusive
                          : refuted,
          measured, detail, range_json(range), estimates};
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

// The retention figure a returns_memory claim reads, and its words for the detail line.
struct retention_figure {
  const char* key;  // in memory.retention
  const char* words;
};
constexpr retention_figure retention_figures[] = {
    {"after_free_0ms", "right after the last free"},
    {"after_free_100ms", "100 ms after the last free"},
    {"after_free_1s", "1 s after the last free (settled)"},
    {"after_purge", "after the allocator's purge call"}};

// "These mallocs keep freed memory resident, those give it back": the share of a heap cell's RSS
// growth still resident at `figure` (memory.retention.<figure>; default after_free_1s, the
// settled figure before any explicit purge), median over `workloads`, against `threshold`.
outcome judge_returns_memory(const json& results, const json& claim) {
  const std::vector<std::string> workloads = claim.at("workloads");
  const double threshold = claim.value("threshold", 0.5);
  const std::string figure = claim.value("figure", std::string("after_free_1s"));
  const retention_figure* chosen = nullptr;
  for (const retention_figure& f : retention_figures)
    if (figure == f.key) chosen = &f;
  if (chosen == nullptr)
    return {not_measurable, "-", fmt::format("unknown retention figure '{}'", figure)};
  std::string measured, failures, missing;
  bool any = false;
  auto judge_group = [&](const char* key, bool expect_retain) {
    for (const auto& m : claim.at(key)) {
      std::vector<double> kept;
      for (const auto& w : workloads) {
        const json* c = find_cell(results, w, "malloc", m);
        if (c == nullptr || c->value("memory", json()).is_null()) continue;
        const json& v = c->at("memory").value(json::json_pointer("/retention/" + figure), json());
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
      "kept = share of the RSS growth still resident {} (memory.retention.{}); median over {}; "
      "threshold {:.0f}%",
      chosen->words, chosen->key, fmt::join(workloads, ", "), 100 * threshold);
  if (!failures.empty()) detail += "; against the claim: " + failures;
  if (!missing.empty()) detail += "; not measured: " + missing;
  if (claim.contains("note")) detail += "; " + claim.at("note").get<std::string>();
  return {failures.empty() ? reproduced : refuted, measured, detail};
}

// Per-repetition CV or jitter of a timed cell.
std::vector<double> per_repetition(const json& timing, const std::string& field) {
  const auto medians = timing.at("repetition_medians_ns").get<std::vector<double>>();
  if (field == "cv") return timing.value("repetition_cv", std::vector<double>{});
  const auto p99 = timing.at("repetition_p99_ns").get<std::vector<double>>();
  std::vector<double> jitter;
  for (std::size_t i = 0; i < p99.size() && i < medians.size(); ++i)
    jitter.push_back(p99[i] - medians[i]);
  return jitter;
}

// The candidate must have the lowest figure, and the gap to the nearest rival must hold over
// repetitions (U test); otherwise the ranking is inside the noise.
outcome judge_lowest(const json& results, const json& claim, const std::string& field) {
  const std::string workload = claim.at("workload");
  const std::string candidate = claim.at("candidate");
  struct entry {
    std::string name;
    double value;
    std::vector<double> reps;
  };
  std::vector<entry> figures;
  for (const auto& name : claim.at("among")) {
    const json* cell = nullptr;
    if (auto why = why_untimed(results, claim, workload, name, "glibc", cell)) return *why;
    const json& timing = cell->at("timing");
    figures.push_back(
        {name.get<std::string>(), timing.at(field).get<double>(), per_repetition(timing, field)});
  }
  std::sort(figures.begin(), figures.end(), [](auto& a, auto& b) { return a.value < b.value; });
  std::string listing;
  for (const auto& f : figures)
    listing += fmt::format(
        "{}{} {}", listing.empty() ? "" : ", ", f.name,
        field == "cv" ? fmt::format("{:.1f}%", 100 * f.value) : fmt::format("{:.0f} ns", f.value));
  const bool lowest = figures.front().name == candidate;
  const auto rival = std::find_if(figures.begin(), figures.end(), [&](const entry& f) {
    return lowest ? f.name != candidate : f.name == candidate;
  });
  const double p = mann_whitney_u(figures.front().reps, rival->reps).p_value;
  std::string verdict = lowest ? reproduced : refuted;
  if (std::min(figures.front().reps.size(), rival->reps.size()) < min_repetitions)
    verdict = too_few;
  else if (p >= 0.05)
    verdict = inconclusive;
  return {verdict, fmt::format("lowest: {}", figures.front().name),
          fmt::format("{}: {}; {} vs {} over repetitions: U test p={:.3g}", field, listing,
                      figures.front().name, rival->name, p)};
}

// Heap-study claims need the seed's scale of batches before any verdict.
std::optional<outcome> heap_run_too_small(const json& results, const std::string& metric) {
  if (metric != "highest_ns_per_pair" && metric != "returns_memory") return std::nullopt;
  const json& heap = results.at("config").value("heap", json());
  if (!heap.is_object()) return std::nullopt;
  const std::size_t n = heap.value("iterations", std::size_t{0});
  if (n >= min_heap_iterations) return std::nullopt;
  return outcome{too_few, "-",
                 fmt::format("{} batches per repetition; a verdict needs at least {}", n,
                             min_heap_iterations)};
}

// A served variant against the baseline variant (results.serve, one fresh server per
// repetition): the vs_std estimate named by the claim's metric, judged like a ratio claim.
outcome judge_serve(const json& results, const json& claim) {
  const std::string workload = claim.at("workload");
  const std::string metric = claim.at("metric");
  const std::string estimate = metric.substr(std::string("serve_").size());
  const std::string strategy = claim.at("candidate");
  const std::string malloc = claim.value("candidate_malloc", std::string("glibc"));
  const json* cell = nullptr;
  static const json no_workloads = json::array();
  const bool served = results.contains("serve") && results.at("serve").is_object();
  for (const auto& w : served ? results.at("serve").at("workloads") : no_workloads)
    if (w.at("name") == workload)
      for (const auto& c : w.at("cells"))
        if (c.at("strategy") == strategy && malloc_of(c) == malloc) cell = &c;
  const std::string name = cell_name(workload, strategy, malloc);
  if (cell == nullptr)
    return {not_measured, "-",
            fmt::format("{} was not served in this run (use {})", name, run_hint(claim))};
  const json vs = cell->value("vs_std", json());
  const json e = vs.is_object() ? vs.value(estimate, json()) : json();
  if (!e.is_object())
    return {not_measurable, "-",
            fmt::format("{} has no {}: {}", name, estimate,
                        cell->at("reason").is_string() ? cell->at("reason").get<std::string>()
                                                       : "its baseline has no number")};
  ratio_estimate r;
  r.value = e.at("value");
  if (e.at("interval").is_object())
    r.range = {e.at("interval").at("low"), e.at("interval").at("high")};
  r.base_repetitions = r.candidate_repetitions = e.at("repetitions");
  const accepted_range range = accepted(claim);
  std::string detail = fmt::format(
      "claimed {}, accepted {:.2f}-{:.2f}; {} over repetitions (fresh servers), {:.0f}% interval",
      claim.at("claimed").dump(), range.low, range.high, estimate, 100 * interval_confidence);
  if (r.base_repetitions < min_repetitions)
    return {too_few, estimate_text(r),
            fmt::format("{}; {} repetitions per side; a verdict needs at least {}", detail,
                        r.base_repetitions, min_repetitions)};
  const std::string verdict = verdict_of(r, range);
  if (verdict == refuted) detail += "; measured " + miss_direction(r.value, range);
  if (verdict == inconclusive) detail += "; the interval straddles the accepted range";
  return {verdict, estimate_text(r), detail};
}

outcome judge(const json& results, const json& claim) {
  if (!claim.value("measurable", true)) return {not_measurable, "-", claim.value("reason", "")};
  const std::string metric = claim.at("metric");
  if (auto small = heap_run_too_small(results, metric)) return *small;
  if (metric == "lowest_cv") return judge_lowest(results, claim, "cv");
  if (metric == "lowest_jitter") return judge_lowest(results, claim, "jitter_ns");
  if (metric == "highest_ns_per_pair") return judge_highest(results, claim);
  if (metric == "returns_memory") return judge_returns_memory(results, claim);
  if (metric.rfind("serve_", 0) == 0) return judge_serve(results, claim);
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
                        {"accepted", o.accepted},
                        {"estimates", o.estimates},
                        {"detail", o.detail}});
  }
  return verdicts;
}

}  // namespace alloclab::lab
