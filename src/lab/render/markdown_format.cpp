#include "markdown_format.hpp"

#include <optional>

#include <fmt/format.h>

#include "stats/ratio_text.hpp"

namespace alloclab::lab::markdown {

std::string table_head(const std::vector<column>& columns) {
  std::string titles = "|", rule = "|";
  for (const column& c : columns) {
    titles += " " + c.title + " |";
    rule += c.figure ? "---:|" : "---|";
  }
  return titles + "\n" + rule + "\n";
}

std::string format_rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M/s", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f} k/s", per_second / 1e3);
  return fmt::format("{:.0f} /s", per_second);
}

std::string format_count(double value) {
  if (value == 0) return "0";
  if (value < 10) return fmt::format("{:.2g}", value);
  return fmt::format("{:.0f}", value);
}

std::string interval_text(const json& range) {
  if (!range.is_object()) return "";
  return interval_text(model::interval{range["low"].get<double>(), range["high"].get<double>()});
}

std::string interval_text(const std::optional<model::interval>& range) {
  return range ? fmt::format(" [{:.2f}–{:.2f}]", range->low, range->high) : std::string();
}

std::string ratio_text(double value, const json& range) {
  if (!range.is_object()) return ratio_text(value, std::optional<model::interval>());
  return ratio_text(value,
                    model::interval{range["low"].get<double>(), range["high"].get<double>()});
}

std::string ratio_text(double value, const std::optional<model::interval>& range) {
  if (!range) return ratio_with_interval(value, std::nullopt, std::nullopt);
  return ratio_with_interval(value, range->low, range->high);
}

namespace {

// "1.07× [1.05–1.10] **": a speedup with its interval and significance mark.
std::string marked_ratio_text(const std::string& ratio, const std::string& mark) {
  return fmt::format("{} {}", ratio, mark);
}

}  // namespace

std::string speedup_text(const json& cell) {
  const json& vs = cell["vs_std"];
  if (vs.is_null() || vs["speedup_p50"].is_null()) return "";
  const json& intervals = vs.value("intervals", json::object());
  return marked_ratio_text(
      ratio_text(vs["speedup_p50"].get<double>(), intervals.value("speedup_p50", json())),
      vs["mark"].get<std::string>());
}

std::string speedup_text(const std::optional<model::comparison>& vs_std) {
  if (!vs_std || !vs_std->speedup_p50) return "";
  return marked_ratio_text(ratio_text(*vs_std->speedup_p50, vs_std->intervals.speedup_p50),
                           vs_std->mark);
}

bool is_twin(const json& cell) {
  return cell.value("placement_twin", false);
}

std::string baseline_name(const model::workload& w) {
  return fmt::format("{} @ {}", w.baseline.strategy, w.baseline.malloc);
}

std::string baseline_name(const json& w) {
  const json& b = w.value("baseline", json::object());
  return fmt::format("{} @ {}", b.value("strategy", std::string("std")),
                     b.value("malloc", std::string("glibc")));
}

bool is_debug(const json& r) {
  return r.value("debug_build", false);
}

const json* peer_verdict_of(const json& w, const std::string& malloc) {
  if (!w.contains("peer_verdicts") || !w["peer_verdicts"].is_array()) return nullptr;
  const json& all = w["peer_verdicts"];  // a reference into `w`: the result points into it
  for (const auto& v : all)
    if (v["malloc"] == malloc) return &v;
  return nullptr;
}

bool any_peer_verdict(const json& r) {
  for (const auto& w : r["workloads"])
    if (w.value("peer_verdicts", json()).is_array() && !w["peer_verdicts"].empty()) return true;
  return false;
}

std::string revision_text(const json& r) {
  const json& revision = r["environment"]["git_revision"];
  return revision.is_null() ? "unknown" : revision.get<std::string>();
}

bool is_heap(const json& w) {
  return w.value("kind", "lab") == "heap";
}

bool is_lab(const json& w) {
  return w.value("kind", "lab") == "lab";
}

std::vector<std::string> malloc_labels(const json& r) {
  return r.at("config").value("mallocs", std::vector<std::string>{"glibc"});
}

bool several_mallocs(const json& r) {
  const auto m = malloc_labels(r);
  return m.size() > 1 || (m.size() == 1 && m.front() != "glibc");
}

const json* cell_labelled(const json& w, const std::string& label, bool with_malloc) {
  for (const auto& c : w["cells"])
    if (!is_twin(c) && cell_label(c, with_malloc) == label) return &c;
  return nullptr;
}

std::string cell_label(const json& cell, bool with_malloc) {
  const std::string strategy = cell["strategy"];
  return with_malloc ? strategy + " @ " + cell.value("malloc", std::string("glibc")) : strategy;
}

bool is_baseline(const model::workload& w, const model::cell& cell) {
  return cell.head.strategy == w.baseline.strategy && cell.head.malloc == w.baseline.malloc;
}

bool is_baseline(const json& w, const json& cell) {
  const json& b = w.value("baseline", json::object());
  return cell["strategy"] == b.value("strategy", std::string("std")) &&
         cell.value("malloc", std::string("glibc")) == b.value("malloc", std::string("glibc"));
}

std::string baseline_p50_text(const json& w) {
  for (const auto& c : w["cells"])
    if (is_baseline(w, c) && !c["timing"].is_null()) return format_ns(c["timing"]["p50_ns"]);
  return "-";
}

std::string format_number_or_dash(const json& value, const char* pattern) {
  return format_number_or_dash(
      value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt, pattern);
}

std::string format_number_or_dash(const std::optional<double>& value, const char* pattern) {
  return value ? fmt::format(fmt::runtime(pattern), *value) : "-";
}

std::string unmeasured_text(const json& cell) {
  return status_text(cell["status"]);
}

std::string status_text(const std::string& status) {
  if (status == "not_applicable") return "n/a";
  if (status == "overflowed") return "OVERFLOW";
  if (status == "not_installed") return "not installed";
  if (status == "failed") return "FAILED";
  if (status == "refused") return "REFUSED";
  return status;
}

std::string cell_state(const json& cell) {
  return cell["status"] == "ok" ? "" : unmeasured_text(cell);
}

bool has_baseline_timing(const json& w) {
  for (const auto& c : w["cells"])
    if (is_baseline(w, c) && !c["timing"].is_null()) return true;
  return false;
}

std::string baseline_malloc(const json& w) {
  return w.value("baseline", json::object()).value("malloc", std::string("glibc"));
}

std::string ms_or_dash(const std::optional<double>& value) {
  return format_number_or_dash(value, "{:.2f}");
}

std::string estimate_or_dash(const json& e) {
  if (!e.is_object()) return "-";
  return ratio_text(e["value"].get<double>(), e["interval"]);
}

std::string percent_or_dash(const std::optional<double>& share) {
  return share ? fmt::format("{:.1f} %", 100 * *share) : "-";
}

std::string spread_text(const json& spread) {
  if (!spread.is_object()) return "-";
  return format_bytes(spread["median"].get<double>());
}

std::string spread_text(const std::optional<model::spread>& spread) {
  return spread ? format_bytes(static_cast<double>(spread->median)) : "-";
}

std::string failed_cell_item(const std::string& what, const json& cell, const char* process) {
  model::cell_head head;
  head.status = cell["status"];
  if (cell["reason"].is_string()) head.reason = cell["reason"].get<std::string>();
  if (const json& worker = cell.value("worker", json()); worker.is_object()) {
    head.worker.emplace();
    head.worker->exit = worker.value("exit", std::string("-"));
    head.worker->stderr_tail = worker.value("stderr_tail", std::string());
  }
  return failed_cell_item(what, head, process);
}

std::string failed_cell_item(const std::string& what, const model::cell_head& cell,
                             const char* process) {
  std::string tail = cell.worker ? cell.worker->stderr_tail : "";
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
  std::string item =
      fmt::format("- **{}** ({}): {}; {}: {}\n", what, cell.status, cell.reason.value_or(""),
                  process, cell.worker ? cell.worker->exit : std::string("-"));
  if (!tail.empty()) item += fmt::format("\n  ```\n  {}\n  ```\n", tail);
  return item;
}

const json* heap_cell(const json& w, const std::string& malloc) {
  for (const auto& c : w["cells"])
    if (c.value("malloc", std::string("glibc")) == malloc) return &c;
  return nullptr;
}

double ns_per_pair(const json& cell) {
  return cell["ns_per_pair"]["mean"].get<double>();
}

std::optional<double> pair_speedup(const json& cell) {
  const json& vs = cell.value("vs_std", json());
  if (!vs.is_object() || !vs.value("speedup_ns_per_pair", json()).is_number()) return std::nullopt;
  return vs["speedup_ns_per_pair"].get<double>();
}

std::string pair_speedup_text(const json& cell) {
  const auto x = pair_speedup(cell);
  if (!x) return "";
  return ratio_text(*x, cell["vs_std"]["intervals"].value("speedup_ns_per_pair", json()));
}

std::string replay_cell_label(const json& cell) {
  model::cell_head head;
  head.strategy = cell["strategy"];
  head.malloc = cell["malloc"];
  return replay_cell_label(head);
}

std::string replay_cell_label(const model::cell_head& cell) {
  return cell.strategy == "malloc" ? cell.malloc
                                   : cell.strategy + " (resource, under " + cell.malloc + ")";
}

}  // namespace alloclab::lab::markdown
