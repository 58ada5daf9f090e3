#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/claim_figures.hpp"
#include "results/claim_rules.hpp"
#include "stats/decision.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab::claim_rules {

outcome judge_highest(const model::document& results, const json& claim,
                      const claim_metric& metric) {
  const std::string candidate = claim.at("candidate");
  const std::string strategy = claim.value("strategy", std::string("malloc"));
  const std::vector<std::string> among = claim.at("among_workloads");
  std::size_t judged = 0, held = 0;
  std::string detail, exceptions;
  for (const std::string& m : results.config.mallocs) {
    std::vector<std::pair<std::string, double>> figures;
    for (const std::string& w : among) {
      const model::cell* c = find_cell(results, w, strategy, m);
      const auto figure = c != nullptr ? metric.figure.read(*c) : std::nullopt;
      if (!figure) break;
      figures.emplace_back(w, figure->pooled);
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

namespace {

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

}  // namespace

namespace {

// The same claim on the retention timelines (results.json's `retention_timelines`): each malloc's
// default settings under `load` ("light" or "idle") at the horizon, median over the workloads of
// the share still resident minus LazyFree; the other frames beside it in the detail.
outcome judge_returns_over_time(const model::document& results, const json& claim,
                                const std::string& load) {
  const std::optional<model::retention_timeline_shares> summary =
      model::claim_figures_of(results.parts).retention_timelines;
  if (!summary)
    return {not_measured, "-",
            fmt::format("needs the retention timelines (use {})", run_hint(claim))};
  const double threshold = claim.value("threshold", 0.5);
  const auto figure = [&](const std::string& malloc, bool background, const std::string& l) {
    for (const model::kept_at_horizon_share& v : summary->variants)
      if (v.malloc == malloc && v.background_thread == background && v.load == l &&
          v.median_kept_unreclaimable)
        return v.median_kept_unreclaimable;
    return std::optional<double>();
  };
  const auto percent = [](std::optional<double> v) {
    return v ? fmt::format("{:.0f}%", 100 * *v) : std::string("-");
  };
  std::string measured, failures, missing, beside;
  for (const char* side : {"retains", "returns"})
    for (const auto& m : claim.at(side)) {
      const std::string name = m;
      const auto kept = figure(name, false, load);
      if (!kept) {
        missing += (missing.empty() ? "" : ", ") + name;
        continue;
      }
      measured += fmt::format("{}{} keeps {}", measured.empty() ? "" : ", ", name, percent(kept));
      const bool retains = *kept >= threshold;
      if (retains != (std::string(side) == "retains"))
        failures += fmt::format("{}{} {}", failures.empty() ? "" : "; ", name,
                                retains ? "kept its memory" : "gave its memory back");
      beside += fmt::format("{}{} idle {}", beside.empty() ? "" : ", ", name,
                            percent(figure(name, false, load == "light" ? "idle" : "light")));
      if (name == "jemalloc")
        beside +=
            fmt::format(", jemalloc with its background thread idle {} / light {}",
                        percent(figure(name, true, "idle")), percent(figure(name, true, "light")));
    }
  if (measured.empty())
    return {not_measured, "-",
            fmt::format("no retention timeline of {} (use {})", missing, run_hint(claim))};
  std::string detail = fmt::format(
      "kept = share of the heap growth still resident {:.0f} s after the last free under {} "
      "load, RSS minus LazyFree (MADV_FREE pages count as returned), median over {}; threshold "
      "{:.0f}%; beside it: {}",
      summary->horizon_s, load,
      fmt::join(claim.at("workloads").get<std::vector<std::string>>(), ", "), 100 * threshold,
      beside);
  if (!failures.empty()) detail += "; against the claim: " + failures;
  if (!missing.empty()) detail += "; not measured: " + missing;
  if (claim.contains("note")) detail += "; " + claim.at("note").get<std::string>();
  return {failures.empty() && missing.empty() ? reproduced
          : failures.empty()                  ? inconclusive
                                              : refuted,
          measured, detail};
}

}  // namespace

outcome judge_returns_memory(const model::document& results, const json& claim) {
  const std::string timeline = claim.value("figure", std::string());
  if (timeline.rfind("timeline_", 0) == 0)
    return judge_returns_over_time(results, claim, timeline.substr(9));
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
        const model::cell* c = find_cell(results, w, "malloc", m);
        if (c == nullptr) continue;
        const std::map<std::string, double> shares = model::claim_figures_of(c->figures).retention;
        if (const auto share = shares.find(figure); share != shares.end())
          kept.push_back(share->second);
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

outcome judge_lowest(const model::document& results, const json& claim,
                     const claim_metric& metric) {
  const std::string field(metric.figure.name);
  const std::string workload = claim.at("workload");
  const std::string candidate = claim.at("candidate");
  struct entry {
    std::string name;
    double value;
    std::vector<double> reps;
  };
  std::vector<entry> figures;
  for (const auto& name : claim.at("among")) {
    const model::cell* cell = nullptr;
    if (auto why = why_untimed(results, claim, workload, name, "glibc", cell)) return *why;
    const model::repetition_series figure = metric.figure.read(*cell).value();
    figures.push_back({name.get<std::string>(), figure.pooled, figure.per_repetition});
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
  const bool power = can_reach_significance(figures.front().reps.size(), rival->reps.size());
  const std::string verdict =
      std::min(figures.front().reps.size(), rival->reps.size()) < min_repetitions
          ? too_few
          : to_string(judge_ranking(lowest, difference_test{p, power}));
  return {verdict, fmt::format("lowest: {}", figures.front().name),
          fmt::format("{}: {}; {} vs {} over repetitions: U test p={:.3g}", field, listing,
                      figures.front().name, rival->name, p)};
}

std::optional<outcome> heap_run_too_small(const model::document& results,
                                          const claim_metric& metric) {
  if (metric.judged_as != claim_judging::highest &&
      metric.judged_as != claim_judging::returns_memory)
    return std::nullopt;
  const std::optional<std::size_t> iterations = heap_iterations(results);
  if (!iterations) return std::nullopt;
  const std::size_t n = *iterations;
  if (n >= min_heap_iterations) return std::nullopt;
  return outcome{too_few, "-",
                 fmt::format("{} batches per repetition; a verdict needs at least {}", n,
                             min_heap_iterations)};
}

}  // namespace alloclab::lab::claim_rules
