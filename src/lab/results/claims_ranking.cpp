#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "results/claim_rules.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab::claim_rules {

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

namespace {

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

}  // namespace

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

}  // namespace alloclab::lab::claim_rules
