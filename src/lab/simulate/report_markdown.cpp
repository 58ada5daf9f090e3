#include "simulate/report_markdown.hpp"

#include <fmt/format.h>

#include "simulate/results.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab::simulate {
namespace {

constexpr std::size_t listed_not_simulated = 20;
// A simulated ratio this close to 1 is "the same": the timing's equivalence margin.
constexpr double same_within = default_equivalence_margin;

std::string ratio_text(const std::optional<double>& r) {
  return r ? fmt::format("{:.2f}×", *r) : "–";
}

std::string timed_text(const model::cell& c) {
  const std::optional<double> r = timed_ratio(c);
  if (!r) return "–";
  const model::comparison& v = *c.vs_std;
  const std::optional<model::interval> range =
      v.speedup_ns_per_pair && *v.speedup_ns_per_pair
          ? v.intervals.speedup_ns_per_pair.value_or(std::nullopt)
          : v.intervals.speedup_p50;
  return range ? ratio_with_interval(*r, range->low, range->high) : ratio_text(r);
}

std::string second_opinion(double simulated) {
  if (simulated > 1 + same_within) return "simulated: the cell is cheaper than the baseline";
  if (simulated < 1 - same_within) return "simulated: the cell is dearer than the baseline";
  return fmt::format("simulated: the same within {:g} %", 100 * same_within);
}

void method_paragraph(std::string& md, const model::simulation_facts& s) {
  md += fmt::format(
      "A noise-free second opinion beside the time, never mixed into it. Each batch and heap "
      "cell's own worker, under its own malloc (proven live under Valgrind by the lab's liveness "
      "proof), runs a warm-up and then a fixed number of units inside a counted region under "
      "Callgrind's cache simulation of one fixed machine ({}). Per unit (a batch iteration; a "
      "heap malloc/free pair, the NOOP kernel's events subtracted): **{}**. The same binary and "
      "input give the same counts on any host. What the simulation leaves out — page faults, "
      "memory syscalls, context switches — is counted in a normal run of the same region "
      "(columns per 1000 units). Ratios are the baseline cell's cost ÷ the cell's, > 1 when the "
      "cell is cheaper, as `vs_std`.\n\n",
      s.caches, s.formula);
  md += fmt::format("Simulated {} of {} cells in {:.0f} s{}.", s.cells_simulated, s.cells_planned,
                    s.seconds, s.cpu ? fmt::format(", pinned to CPU {}", *s.cpu) : "");
  if (s.pauses && *s.pauses > 0)
    md += fmt::format(
        " It was stopped {} times ({:.0f} s in all) while a multi-threaded or served cell "
        "measured, "
        "so those cells had every CPU to themselves.",
        *s.pauses, s.paused_seconds.value_or(0));
  if (s.agreement.rho)
    md += fmt::format(
        " Rank agreement of the simulated with the timed ratios of the same cells: Spearman's ρ = "
        "{:.2f} over {} cells.\n\n",
        *s.agreement.rho, s.agreement.cells);
  else
    md +=
        fmt::format(" Rank agreement: too few cells with both ratios ({}).\n\n", s.agreement.cells);
}

void second_opinions(std::string& md, const model::document& d) {
  std::string rows;
  for (const model::workload& w : d.workloads)
    for (const model::cell& c : w.cells) {
      if (!c.simulated || !c.simulated->ratio_vs_baseline || !timing_inconclusive(c)) continue;
      rows += fmt::format("| {} | {} @ {} | {} | {} | {} |\n", w.name, c.head.strategy,
                          c.head.malloc, timed_text(c), ratio_text(c.simulated->ratio_vs_baseline),
                          second_opinion(*c.simulated->ratio_vs_baseline));
    }
  if (rows.empty()) return;
  md +=
      "### Where the timing is inconclusive\n\n"
      "The timed interval holds 1, so the time decides nothing; the simulated ratio is given as "
      "the second opinion, and it is the simulation's, not a timing.\n\n"
      "| workload | cell | timed vs baseline | simulated vs baseline | second opinion |\n"
      "|---|---|---:|---:|---|\n" +
      rows + "\n";
}

std::string left_out_text(const std::optional<model::left_out_counts>& l) {
  if (!l) return "– | – | –";
  double calls = 0;
  if (l->syscalls)
    for (const auto& [name, n] : *l->syscalls) calls += n;
  return fmt::format("{:.1f} | {} | {:.1f}", l->minor_faults + l->major_faults,
                     l->syscalls ? fmt::format("{:.1f}", calls) : "–",
                     l->voluntary_switches + l->involuntary_switches);
}

void cell_table(std::string& md, const model::document& d) {
  md +=
      "### Every simulated cell\n\n"
      "| workload | cell | instructions | D1 misses | LL misses | cost | simulated vs baseline | "
      "timed vs baseline | faults /1000 | mmap…brk /1000 | switches /1000 |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const model::workload& w : d.workloads)
    for (const model::cell& c : w.cells) {
      if (!c.simulated || !c.simulated->per_unit) continue;
      const model::simulated_events& e = *c.simulated->per_unit;
      md += fmt::format("| {} | {} @ {} | {:.0f} | {:.1f} | {:.2f} | {:.0f} /{} | {} | {} | {} |\n",
                        w.name, c.head.strategy, c.head.malloc, e.instructions, e.d1_misses,
                        e.ll_misses, e.cost, c.simulated->unit,
                        ratio_text(c.simulated->ratio_vs_baseline), timed_text(c),
                        left_out_text(c.simulated->left_out));
    }
  md += "\n";
}

void not_simulated(std::string& md, const model::simulation_facts& s) {
  if (s.not_simulated.empty()) return;
  md += fmt::format("Not simulated ({}):\n\n", s.not_simulated.size());
  for (std::size_t i = 0; i < s.not_simulated.size() && i < listed_not_simulated; ++i)
    md += "- " + s.not_simulated[i] + "\n";
  if (s.not_simulated.size() > listed_not_simulated)
    md += fmt::format("- and {} more (results.json: `simulation.not_simulated`)\n",
                      s.not_simulated.size() - listed_not_simulated);
  md += "\n";
}

}  // namespace

void simulated_cost_section(std::string& md, const model::document& d) {
  if (!d.simulation) return;
  md += "## Simulated cost\n\n";
  method_paragraph(md, *d.simulation);
  second_opinions(md, d);
  cell_table(md, d);
  not_simulated(md, *d.simulation);
}

}  // namespace alloclab::lab::simulate
