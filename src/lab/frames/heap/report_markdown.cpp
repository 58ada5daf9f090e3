// report.md: the heap study (seeds 003 and 004): ns per malloc+free pair under each malloc,
// the size distributions, and what each malloc keeps and gives back over time. It reads the
// results model (model/document.hpp) and computes nothing: the retention medians and ranges are
// the results' (heap_retention).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/heap/figures.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

// A heap workload with its own figures.
struct heap_workload {
  const model::workload* workload;
  const heap_workload_figures* figures;
};

const heap_cell_figures& figures_of(const model::cell& cell) {
  static const heap_cell_figures none;
  const heap_cell_figures* f = cell.figures.as<heap_cell_figures>();
  return f == nullptr ? none : *f;
}

// The cell of `w` under `malloc`, or null.
const model::cell* cell_under(const model::workload& w, const std::string& malloc) {
  for (const model::cell& c : w.cells)
    if (c.head.malloc == malloc) return &c;
  return nullptr;
}

// "2.00× [1.90–2.10]": the speedup over the baseline malloc's pair cost, or "" without one.
// Where the stop rule judged it paired (the distribution's mallocs in lockstep rings), its
// paired ratio, interval and verdict: the ones the claims use.
std::string pair_speedup_text(const model::document& r, const model::workload& w,
                              const model::cell& cell) {
  if (const model::budget_comparison* p = paired_vs_baseline(r, w, cell.head))
    return ratio_text(*p->value, model::interval{*p->low, *p->high}) + " " +
           stop_rule_verdict_words(*p);
  if (!cell.vs_std || !cell.vs_std->speedup_ns_per_pair || !*cell.vs_std->speedup_ns_per_pair)
    return "";
  const auto& range = cell.vs_std->intervals.speedup_ns_per_pair;
  return ratio_text(**cell.vs_std->speedup_ns_per_pair,
                    range ? *range : std::optional<model::interval>());
}

std::string pair_cost_text(const model::cell& cell) {
  if (cell.head.status != "ok") return status_text(cell.head.status);
  const double ns = figures_of(cell).ns_per_pair->mean;
  return ns > 0 ? fmt::format("{:.1f}", ns) : fmt::format("{:.1f} (below noise)", ns);
}

void heap_figure_table(std::string& md, const model::document& r,
                       const std::vector<heap_workload>& heap, bool pages) {
  if (heap.empty()) return;
  md += pages ? "### Page-touching variant: mean ns per malloc+free pair (every page of every "
                "block written; NOOP loop subtracted; lower is better)\n\n"
                "Not seed 003's method: writing every page adds a first-touch fault or a cache "
                "and TLB miss per page of the large blocks, which is memory-system cost as much "
                "as the allocator's, and reorders the allocators (docs/heap-study.md).\n\n"
              : "### Seed 003's figure: mean ns per malloc+free pair (one write per block, the "
                "seed's method; NOOP loop subtracted; lower is better)\n\n";
  const bool paired = std::any_of(heap.begin(), heap.end(), [&r](const heap_workload& w) {
    return std::any_of(w.workload->cells.begin(), w.workload->cells.end(),
                       [&](const model::cell& c) {
                         return paired_vs_baseline(r, *w.workload, c.head) != nullptr;
                       });
  });
  md +=
      "Seed 003 compared the native malloc with dlmalloc 2.8.6: `dlmalloc` here is the lab's build "
      "of that very file (its two speed claims are judged on it); ";
  md += paired ? "`×` is the stop rule's paired ratio of glibc's pair cost ÷ this one's (the "
                 "distribution's mallocs ran in lockstep rings), with its interval at the run's "
                 "last look and its verdict, the ones the claims are judged on (> 1: faster than "
                 "glibc).\n\n"
               : "`×` is glibc's median per-repetition figure ÷ this one's, with its 95 % "
                 "interval (> 1: faster than glibc).\n\n";
  std::vector<column> columns = {text_column("malloc")};
  for (const heap_workload& w : heap) columns.push_back(figure_column(w.workload->name));
  md += table_head(columns);
  for (const std::string& m : r.config.mallocs) {
    md += fmt::format("| {} |", m);
    for (const heap_workload& w : heap) {
      const model::cell* c = cell_under(*w.workload, m);
      if (c == nullptr) {
        md += " - |";
        continue;
      }
      std::string text = pair_cost_text(*c);
      if (const std::string x = pair_speedup_text(r, *w.workload, *c); !x.empty())
        text += " (" + x + ")";
      md += fmt::format(" {} |", text);
    }
    md += "\n";
  }
  md += "\n";
}

std::string per_repetition_text(const std::vector<double>& figures) {
  std::string text;
  for (const double v : figures) text += fmt::format("{}{:.0f}", text.empty() ? "" : ", ", v);
  return text;
}

void heap_distribution_table(std::string& md, const model::document& r, const heap_workload& hw) {
  const model::workload& w = *hw.workload;
  const heap_spec_figures& spec = hw.figures->heap_spec;
  md += fmt::format(
      "### {}\n\n{}. {} repetitions × {} batches of {} blocks (ring of {}), seed {}; checksum {} "
      "(identical under every allocator).\n\n",
      w.name, w.description, spec.repetitions, spec.iterations, spec.batch, spec.capacity,
      spec.seed, w.checksum);
  md += table_head({text_column("malloc"), figure_column("ns/pair (mean)"),
                    text_column("per repetition"), figure_column("vs baseline (pair cost)"),
                    figure_column("batch p50"), figure_column("batch p90"),
                    figure_column("batch p99"), figure_column("p99−p50"),
                    figure_column("NOOP batch p50"), figure_column("faults/batch")});
  const model::cell* base = cell_under(w, w.baseline.malloc);
  for (const model::cell& c : w.cells) {
    const std::string& m = c.head.malloc;
    if (c.head.status != "ok") {
      md += fmt::format("| {} | **{}** | {} | | | | | | | |\n", m, status_text(c.head.status),
                        c.head.reason.value_or(""));
      continue;
    }
    const pair_cost& cost = *figures_of(c).ns_per_pair;
    const std::string x = pair_speedup_text(r, w, c);
    const std::string vs = &c == base ? "baseline" : x.empty() ? "-" : x;
    const model::timing& t = *c.timing;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} |\n", m,
                      pair_cost_text(c), per_repetition_text(cost.per_repetition), vs,
                      format_ns(t.p50_ns), format_ns(t.p90_ns), format_ns(t.p99_ns),
                      format_ns(t.jitter_ns), format_ns(cost.noop_batch_p50_ns),
                      c.os->minor_faults_per_1000_iterations / 1000);
  }
  md +=
      "\nBatch percentiles are raw per-batch times (100 pairs plus the loop and one write per "
      "touched page); "
      "ns/pair subtracts the NOOP run of the same loop. Faults are minor page faults per "
      "batch.\n\n";
}

std::string kept_text(const std::optional<double>& share) {
  return share ? fmt::format("{:.0f}%", 100 * *share) : "-";
}

void heap_memory_table(std::string& md, const std::vector<heap_workload>& heap) {
  md +=
      "### Memory: what each malloc keeps, and what its purge gives back\n\n"
      "Peak RSS is `VmHWM` of the cell's own worker (reset before the runs); fragmentation = peak "
      "RSS ÷ the "
      "workload's peak live bytes (net: the RSS growth over the pre-run baseline ÷ peak live "
      "bytes); "
      "*kept* = share of the RSS growth still resident after every block was freed, before and "
      "after the "
      "allocator's own purge call.\n\n" +
      table_head({text_column("workload"), text_column("malloc"), figure_column("peak live"),
                  figure_column("peak RSS"), figure_column("fragmentation (net)"),
                  figure_column("RSS after free"), figure_column("kept"),
                  figure_column("RSS after purge"), figure_column("kept"),
                  text_column("purge call"), figure_column("major faults")});
  for (const heap_workload& hw : heap)
    for (const model::cell& c : hw.workload->cells) {
      const std::string& name = hw.workload->name;
      const std::optional<heap_memory>& mem = figures_of(c).memory;
      if (c.head.status != "ok" || !mem) {
        md += fmt::format("| {} | {} | **{}** | | | | | | | | |\n", name, c.head.malloc,
                          status_text(c.head.status));
        continue;
      }
      md += fmt::format("| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | `{}` | {} |\n", name,
                        c.head.malloc, format_bytes(static_cast<double>(mem->peak_live_bytes)),
                        format_bytes(static_cast<double>(mem->peak_rss_bytes)),
                        format_number_or_dash(mem->fragmentation, "{:.2f}"),
                        format_number_or_dash(mem->fragmentation_net, "{:.2f}"),
                        format_bytes(static_cast<double>(mem->rss_after_free_bytes)),
                        kept_text(mem->retained_after_free),
                        format_bytes(static_cast<double>(mem->rss_after_purge_bytes)),
                        kept_text(mem->retained_after_purge), mem->purge.method, mem->major_faults);
    }
  md += "\n";
}

// Retention over time, one row per malloc (results' heap_retention): the median over the heap
// workloads of the share of the RSS growth still resident at each settle time, range in brackets.
void heap_retention_table(std::string& md, const std::vector<retention_row>& retention) {
  if (retention.empty()) return;
  md +=
      "### Retention over time: how much of the RSS growth each malloc still holds\n\n"
      "Share of the cell's RSS growth (peak − baseline) still resident right after the last "
      "free, 100 ms and 1 s after it (the worker sleeps; nothing else runs), and after the "
      "allocator's own purge call (made after the 1 s reading). Median over the heap workloads "
      "of this run, [min–max] in brackets. Seed 004's \"returns memory\" claim is judged on "
      "the 1 s figure.\n\n" +
      table_head({text_column("malloc"), figure_column("workloads"), figure_column("0 ms"),
                  figure_column("100 ms"), figure_column("1 s"), figure_column("after purge"),
                  text_column("purge call")});
  using spread = std::optional<model::fraction_spread> retention_row::*;
  for (const retention_row& row : retention) {
    std::string line = fmt::format("| {} | {} |", row.malloc, row.workloads);
    for (const spread figure : {&retention_row::after_free_0ms, &retention_row::after_free_100ms,
                                &retention_row::after_free_1s, &retention_row::after_purge}) {
      const std::optional<model::fraction_spread>& kept = row.*figure;
      line += !kept ? std::string(" - |")
                    : fmt::format(" {:.0f}% [{:.0f}–{:.0f}%] |", 100 * kept->median,
                                  100 * kept->min, 100 * kept->max);
    }
    md += line + fmt::format(" `{}` |\n", row.purge_call);
  }
  md += "\n";
}

}  // namespace

void heap_section(std::string& md, const model::document& r) {
  std::vector<heap_workload> heap;
  for (const model::workload& w : r.workloads)
    if (const auto* f = w.figures.as<heap_workload_figures>(); f != nullptr && w.kind == "heap")
      heap.push_back({&w, f});
  if (heap.empty()) return;
  md +=
      "## Heap study: the process-wide malloc (seeds 003 and 004)\n\n"
      "Each cell ran in its own worker process under the allocator's `LD_PRELOAD` / environment; "
      "the worker "
      "proved which allocator owns `malloc` and `free` (and an allocator-specific symbol) before "
      "measuring. "
      "These workloads are malloc-level kernels: the in-process strategy axis does not apply "
      "(strategy "
      "`malloc`).\n\n";
  std::vector<heap_workload> seed_method, page_touching;
  for (const heap_workload& w : heap)
    (w.figures->heap_spec.touch == "every_page" ? page_touching : seed_method).push_back(w);
  heap_figure_table(md, r, seed_method, false);
  heap_figure_table(md, r, page_touching, true);
  for (const heap_workload& w : heap) heap_distribution_table(md, r, w);
  heap_memory_table(md, heap);
  const heap_document_figures* top = r.parts.get<heap_document_figures>();
  heap_retention_table(md, top == nullptr ? std::vector<retention_row>() : top->heap_retention);
}

// The heap study's paragraphs in the Method section: how its cells ran and what its memory
// figures are.
void heap_method_lines(std::string& md, const model::document& r) {
  if (std::none_of(r.workloads.begin(), r.workloads.end(),
                   [](const model::workload& w) { return is_heap(w); }))
    return;
  const model::run_config& cfg = r.config;
  const heap_config_figures* heap = cfg.frames.get<heap_config_figures>();
  md += fmt::format(
      "- Heap study: every (workload, malloc) cell runs alone in fresh worker processes ({} "
      "repetitions × {} batches, shared out over up to {} processes; each repetition a NOOP run "
      "then a malloc run of the same loop); a process's first repetition pays the page faults, "
      "later ones reuse what the allocator kept. Memory figures are medians over the "
      "processes. Time limit per process {:.0f} s.\n",
      heap != nullptr ? heap->heap.repetitions : 0, heap != nullptr ? heap->heap.iterations : 0,
      cfg.processes.value_or(1), cfg.cell_timeout_seconds);
  md +=
      "- Memory: `VmHWM` reset through `/proc/self/clear_refs` before the runs, `VmRSS` after "
      "every block "
      "was freed and again after the allocator's purge call (found with `dlsym` at run time); "
      "faults from "
      "`getrusage`. glibc_trim sets `MALLOC_TRIM_THRESHOLD_`, which also switches off glibc's "
      "dynamic mmap "
      "threshold.\n";
}

}  // namespace alloclab::lab::markdown
