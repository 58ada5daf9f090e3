// The terminal headline (render_headline) and its claims tally: plain text from the results
// document alone, printed when a run ends.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "markdown.hpp"
#include "markdown_format.hpp"
#include "markdown_sections.hpp"

namespace alloclab::lab {

using namespace markdown;  // the report's vocabulary

// "seed claims: 3 reproduced, 1 inconclusive, ...": every verdict the run gave, each counted under
// its own name, in the schema's order.
std::string claims_tally(const json& claims) {
  static constexpr const char* verdicts[] = {"reproduced",
                                             "refuted",
                                             "inconclusive",
                                             "not judged: too few samples",
                                             "not measured in this run",
                                             "not measurable here"};
  std::vector<std::string> parts;
  for (const char* verdict : verdicts) {
    const auto n = std::count_if(claims.begin(), claims.end(),
                                 [&](const json& c) { return c.value("verdict", "") == verdict; });
    if (n > 0) parts.push_back(fmt::format("{} {}", n, verdict));
  }
  return fmt::format("seed claims: {}\n",
                     parts.empty() ? "none judged" : fmt::format("{}", fmt::join(parts, ", ")));
}

std::string render_headline(const json& r) {
  const bool with_malloc = several_mallocs(r);
  std::string out = is_debug(r) ? "DEBUG BUILD — numbers are meaningless\n" : "";
  if (r.value("smoke_test", false)) out += "SMOKE TEST (--quick) — do not quote these numbers\n";
  const json* first = nullptr;
  std::size_t name_width = 8;
  for (const auto& w : r["workloads"]) {
    name_width = std::max(name_width, w["name"].get<std::string>().size());
    if (is_lab(w) && first == nullptr) first = &w;
  }
  const bool any_ratio =
      std::any_of(r["workloads"].begin(), r["workloads"].end(), has_baseline_timing);
  if (first != nullptr && !any_ratio)
    out += fmt::format(
        "no speed table: this run has no timed {} cell to divide by; add std to --strategies\n",
        baseline_name(*first));
  if (first != nullptr && any_ratio) {
    std::vector<std::string> columns;
    for (const auto& c : (*first)["cells"])
      if (!is_baseline(*first, c) && !is_twin(c)) columns.push_back(cell_label(c, with_malloc));
    out += fmt::format(
        "speed vs {} at p50 (baseline p50 / cell p50, >1 = faster; ** p<0.01, * p<0.05, ! = the "
        "cell has a warning, listed below; intervals in report.md)\n",
        with_malloc ? baseline_name(*first) : "std");
    out +=
        fmt::format("{:<{}}  {:>9}", "workload", name_width, with_malloc ? "base p50" : "std p50");
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += fmt::format("  {:>9}", fmt::format("[{}]", i + 1));
    out += "\n";
    for (const auto& w : r["workloads"]) {
      if (!is_lab(w)) continue;
      const std::string base_p50 = baseline_p50_text(w);
      out += fmt::format("{:<{}}  {:>9}", w["name"].get<std::string>(), name_width, base_p50);
      for (const std::string& label : columns) {
        const json* found = cell_labelled(w, label, with_malloc);
        if (found == nullptr) {  // the first workload's columns: this one lacks the cell
          out += fmt::format("  {:>9}", "-");
          continue;
        }
        const json& c = *found;
        std::string text = cell_state(c);
        if (text.empty() && !c["vs_std"].is_null() && !c["vs_std"]["speedup_p50"].is_null()) {
          const std::string mark = c["vs_std"]["mark"];
          text = fmt::format("{:.2f}{}", c["vs_std"]["speedup_p50"].get<double>(),
                             mark == "n.s." ? "" : mark);
        }
        if (!c["warning"].is_null()) text += "!";
        out += fmt::format("  {:>9}", text);
      }
      out += "\n";
    }
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += fmt::format("[{}] {}  ", i + 1, columns[i]);
    out += "\n";
  }
  std::vector<const json*> heap;
  for (const auto& w : r["workloads"])
    if (is_heap(w)) heap.push_back(&w);
  if (!heap.empty()) {
    out +=
        "heap study: mean ns per malloc+free pair, NOOP loop subtracted (lower is better; x = "
        "glibc / this; intervals in report.md)\n";
    out += fmt::format("{:<14}", "malloc");
    for (const json* w : heap) out += fmt::format("  {:>20}", (*w)["name"].get<std::string>());
    out += "\n";
    for (const std::string& m : malloc_labels(r)) {
      out += fmt::format("{:<14}", m);
      for (const json* w : heap) {
        const json* c = heap_cell(*w, m);
        std::string text = c == nullptr             ? "-"
                           : (*c)["status"] == "ok" ? fmt::format("{:.1f}", ns_per_pair(*c))
                                                    : unmeasured_text(*c);
        if (c != nullptr)
          if (const auto x = pair_speedup(*c)) text += fmt::format(" ({:.2f}x)", *x);
        out += fmt::format("  {:>20}", text);
      }
      out += "\n";
    }
  }
  for (const auto& w : r["workloads"]) {
    if (w.value("kind", "") != "trace") continue;
    out += fmt::format("replay of {}: ns per call (x = {} / this, 95 % interval)\n",
                       w["name"].get<std::string>(), baseline_name(w));
    for (const auto& c : w["cells"]) {
      const std::string what =
          c["status"] == "ok" && !c["replay"].is_null()
              ? fmt::format("{:.1f} ns  {}", c["replay"]["ns_per_call"]["median"].get<double>(),
                            speedup_text(c))
              : unmeasured_text(c);
      out += fmt::format("  {:<40} {}\n", replay_cell_label(c), what);
    }
  }
  if (first != nullptr && any_peer_verdict(r)) {
    std::size_t met = 0, judged = 0;
    std::string missed;
    for (const auto& w : r["workloads"]) {
      const json* v = peer_verdict_of(w, baseline_malloc(w));
      if (v == nullptr || (*v)["verdict"] == "not_judged") continue;
      ++judged;
      if ((*v)["verdict"] == "met")
        ++met;
      else
        missed += (missed.empty() ? "" : ", ") + w["name"].get<std::string>();
    }
    out += fmt::format(
        "alloclab vs peers ({}): best alloclab beats every peer on {} of {} workloads{}\n",
        baseline_malloc(*first), met, judged,
        missed.empty() ? "" : "; missed: " + missed + " (reasons in report.md)");
  }
  out += budget_headline(r);
  out += claims_tally(r["claims"]);
  return out;
}

}  // namespace alloclab::lab
