// report.md: the heap study (seeds 003 and 004): ns per malloc+free pair under each malloc,
// the size distributions, and what each malloc keeps and gives back over time.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string pair_cost_text(const json& cell) {
  if (cell["status"] != "ok") return unmeasured_text(cell);
  const double ns = ns_per_pair(cell);
  return ns > 0 ? fmt::format("{:.1f}", ns) : fmt::format("{:.1f} (below noise)", ns);
}

void heap_figure_table(std::string& md, const json& r, const std::vector<const json*>& heap,
                       bool pages) {
  if (heap.empty()) return;
  md += pages ? "### Page-touching variant: mean ns per malloc+free pair (every page of every "
                "block written; NOOP loop subtracted; lower is better)\n\n"
                "Not seed 003's method: writing every page adds a first-touch fault or a cache "
                "and TLB miss per page of the large blocks, which is memory-system cost as much "
                "as the allocator's, and reorders the allocators (docs/heap-study.md).\n\n"
              : "### Seed 003's figure: mean ns per malloc+free pair (one write per block, the "
                "seed's method; NOOP loop subtracted; lower is better)\n\n";
  md +=
      "Seed 003 compared the native malloc with dlmalloc 2.8.6. Debian ships no dlmalloc, so the "
      "alternatives "
      "here are the allocators Debian does ship; `×` is glibc's median per-repetition figure ÷ "
      "this one's, with its 95 % interval (> 1: faster than glibc).\n\n";
  std::vector<column> columns = {text_column("malloc")};
  for (const json* w : heap) columns.push_back(figure_column((*w)["name"].get<std::string>()));
  md += table_head(columns);
  for (const std::string& m : malloc_labels(r)) {
    md += fmt::format("| {} |", m);
    for (const json* w : heap) {
      const json* c = heap_cell(*w, m);
      if (c == nullptr) {
        md += " - |";
        continue;
      }
      std::string text = pair_cost_text(*c);
      if (const std::string x = pair_speedup_text(*c); !x.empty()) text += " (" + x + ")";
      md += fmt::format(" {} |", text);
    }
    md += "\n";
  }
  md += "\n";
}

void heap_distribution_table(std::string& md, const json& w) {
  const json& spec = w["heap_spec"];
  md += fmt::format(
      "### {}\n\n{}. {} repetitions × {} batches of {} blocks (ring of {}), seed {}; checksum {} "
      "(identical under every allocator).\n\n",
      w["name"].get<std::string>(), w["description"].get<std::string>(),
      spec["repetitions"].get<std::size_t>(), spec["iterations"].get<std::size_t>(),
      spec["batch"].get<std::size_t>(), spec["capacity"].get<std::size_t>(),
      spec["seed"].get<std::uint64_t>(), w["checksum"].get<std::string>());
  md += table_head({text_column("malloc"), figure_column("ns/pair (mean)"),
                    text_column("per repetition"), figure_column("vs baseline (pair cost)"),
                    figure_column("batch p50"), figure_column("batch p90"),
                    figure_column("batch p99"), figure_column("p99−p50"),
                    figure_column("NOOP batch p50"), figure_column("faults/batch")});
  const json* base = heap_cell(w, w["baseline"].value("malloc", std::string("glibc")));
  for (const auto& c : w["cells"]) {
    const std::string m = c.value("malloc", std::string("glibc"));
    if (c["status"] != "ok") {
      md += fmt::format("| {} | **{}** | {} | | | | | | | |\n", m, unmeasured_text(c),
                        c["reason"].is_string() ? c["reason"].get<std::string>() : "");
      continue;
    }
    std::string reps;
    for (const auto& v : c["ns_per_pair"]["per_repetition"])
      reps += fmt::format("{}{:.0f}", reps.empty() ? "" : ", ", v.get<double>());
    const std::string x = pair_speedup_text(c);
    const std::string vs = &c == base ? "baseline" : x.empty() ? "-" : x;
    const json& t = c["timing"];
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} |\n", m,
                      pair_cost_text(c), reps, vs, format_ns(t["p50_ns"]), format_ns(t["p90_ns"]),
                      format_ns(t["p99_ns"]), format_ns(t["jitter_ns"]),
                      format_ns(c["ns_per_pair"]["noop_batch_p50_ns"]),
                      c["os"]["minor_faults_per_1000_iterations"].get<double>() / 1000);
  }
  md +=
      "\nBatch percentiles are raw per-batch times (100 pairs plus the loop and one write per "
      "touched page); "
      "ns/pair subtracts the NOOP run of the same loop. Faults are minor page faults per "
      "batch.\n\n";
}

void heap_memory_table(std::string& md, const std::vector<const json*>& heap) {
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
  auto percent = [](const json& v) {
    return v.is_number() ? fmt::format("{:.0f}%", 100 * v.get<double>()) : "-";
  };
  for (const json* w : heap)
    for (const auto& c : (*w)["cells"]) {
      const std::string m = c.value("malloc", std::string("glibc"));
      if (c["status"] != "ok" || c["memory"].is_null()) {
        md += fmt::format("| {} | {} | **{}** | | | | | | | | |\n", (*w)["name"].get<std::string>(),
                          m, unmeasured_text(c));
        continue;
      }
      const json& mem = c["memory"];
      md += fmt::format(
          "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | `{}` | {} |\n",
          (*w)["name"].get<std::string>(), m, format_bytes(mem["peak_live_bytes"].get<double>()),
          format_bytes(mem["peak_rss_bytes"].get<double>()),
          format_number_or_dash(mem["fragmentation"], "{:.2f}"),
          format_number_or_dash(mem["fragmentation_net"], "{:.2f}"),
          format_bytes(mem["rss_after_free_bytes"].get<double>()),
          percent(mem["retained_after_free"]),
          format_bytes(mem["rss_after_purge_bytes"].get<double>()),
          percent(mem["retained_after_purge"]), mem["purge"]["method"].get<std::string>(),
          mem["major_faults"].get<std::uint64_t>());
    }
  md += "\n";
}

// Retention over time, one row per malloc: the median over the heap workloads of the share of the
// RSS growth still resident at each settle time (memory.retention), with the range in brackets.
void heap_retention_table(std::string& md, const std::vector<const json*>& heap) {
  constexpr const char* figures[] = {"after_free_0ms", "after_free_100ms", "after_free_1s",
                                     "after_purge"};
  std::vector<std::string> mallocs;
  std::map<std::string, std::array<std::vector<double>, 4>> kept;
  std::map<std::string, std::string> purge_call;
  for (const json* w : heap)
    for (const auto& c : (*w)["cells"]) {
      if (c["status"] != "ok" || !c["memory"].is_object() || !c["memory"].contains("retention"))
        continue;
      const std::string m = c.value("malloc", std::string("glibc"));
      if (kept.find(m) == kept.end()) mallocs.push_back(m);
      for (std::size_t i = 0; i < 4; ++i)
        if (const json& v = c["memory"]["retention"][figures[i]]; v.is_number())
          kept[m][i].push_back(v.get<double>());
      purge_call[m] = c["memory"]["purge"]["method"].get<std::string>();
    }
  if (mallocs.empty()) return;
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
  for (const std::string& m : mallocs) {
    std::string row = fmt::format("| {} | {} |", m, kept[m][0].size());
    for (auto& values : kept[m]) {
      if (values.empty()) {
        row += " - |";
        continue;
      }
      std::sort(values.begin(), values.end());
      row += fmt::format(" {:.0f}% [{:.0f}–{:.0f}%] |", 100 * percentile_sorted(values, 0.5),
                         100 * values.front(), 100 * values.back());
    }
    md += row + fmt::format(" `{}` |\n", purge_call[m]);
  }
  md += "\n";
}

}  // namespace

void heap_section(std::string& md, const json& r) {
  std::vector<const json*> heap;
  for (const auto& w : r["workloads"])
    if (is_heap(w)) heap.push_back(&w);
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
  std::vector<const json*> seed_method, page_touching;
  for (const json* w : heap)
    ((*w)["heap_spec"].value("touch", std::string("once")) == "every_page" ? page_touching
                                                                           : seed_method)
        .push_back(w);
  heap_figure_table(md, r, seed_method, false);
  heap_figure_table(md, r, page_touching, true);
  for (const json* w : heap) heap_distribution_table(md, *w);
  heap_memory_table(md, heap);
  heap_retention_table(md, heap);
}

}  // namespace alloclab::lab::markdown
