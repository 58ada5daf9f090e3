// The heap study's lines in the console summary a run ends with: ns per malloc+free pair, each
// malloc by each heap workload.
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

// A heap-study cell: its mean ns per pair, or its status; its speedup over the baseline malloc.
std::string heap_cell_text(const model::cell& c) {
  const auto* f = c.figures.as<heap_cell_figures>();
  std::string text = c.head.status == "ok" && f != nullptr && f->ns_per_pair
                         ? fmt::format("{:.1f}", f->ns_per_pair->mean)
                         : status_text(c.head.status);
  if (c.vs_std && c.vs_std->speedup_ns_per_pair && *c.vs_std->speedup_ns_per_pair)
    text += fmt::format(" ({:.2f}x)", **c.vs_std->speedup_ns_per_pair);
  return text;
}

}  // namespace

void heap_console_lines(std::string& out, const model::document& r) {
  std::vector<const model::workload*> heap;
  for (const auto& w : r.workloads)
    if (is_heap(w)) heap.push_back(&w);
  if (heap.empty()) return;
  out +=
      "heap study: mean ns per malloc+free pair, NOOP loop subtracted (lower is better; x = "
      "glibc / this; intervals in report.md)\n";
  out += fmt::format("{:<14}", "malloc");
  for (const model::workload* w : heap) out += fmt::format("  {:>20}", w->name);
  out += "\n";
  for (const std::string& m : r.config.mallocs) {
    out += fmt::format("{:<14}", m);
    for (const model::workload* w : heap) {
      const auto cell = std::find_if(w->cells.begin(), w->cells.end(),
                                     [&](const model::cell& c) { return c.head.malloc == m; });
      out += fmt::format("  {:>20}",
                         cell == w->cells.end() ? std::string("-") : heap_cell_text(*cell));
    }
    out += "\n";
  }
}

}  // namespace alloclab::lab::markdown
