// report.md: the tables the seeds published (claims/seed_claims.json, "published_tables"), each
// row beside the same variant measured in this run. The frame decides where the run's figures
// come from: a batch workload's cells, or the served variants' hey runs.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

// Where one frame's measured figures live in the results, and how they are written.
struct frame_reading {
  const json* workload = nullptr;  // null: the frame did not measure the table's workload
  const char* ratio_column;        // what "vs baseline" compares
  // "| p50 | p99 | throughput | ratio |" for a measured cell.
  std::string (*measured)(const json& workload, const json& cell);
};

std::string batch_measured(const json& w, const json& cell) {
  const json& t = cell["timing"];
  if (t.is_null()) return "";
  return fmt::format("| {} | {} | {} | {} |", format_ns(t["p50_ns"]), format_ns(t["p99_ns"]),
                     format_rate(t["throughput_per_s"]),
                     is_baseline(w, cell) ? std::string("baseline") : speedup_text(cell));
}

std::string serve_measured(const json&, const json& cell) {
  if (cell["status"] != "ok") return "";
  const json& h = cell["hey"];
  return fmt::format("| {} ms | {} ms | {:.0f}/s | {} |", ms_or_dash(h["p50_ms"]),
                     ms_or_dash(h["p99_ms"]), h["throughput_rps"].get<double>(),
                     cell["vs_std"].is_null()
                         ? std::string("baseline")
                         : estimate_or_dash(cell["vs_std"]["throughput_ratio_hey"]));
}

frame_reading read_frame(const json& r, const std::string& frame, const std::string& workload) {
  if (frame == "serve") {
    // A reference into `r`, not r.value(): the result points into it.
    const bool served = r.contains("serve") && r["serve"].is_object();
    return {served ? workload_named(r["serve"]["workloads"], workload, "lab") : nullptr,
            "req/s vs baseline", serve_measured};
  }
  return {workload_named(r["workloads"], workload, "lab"), "vs baseline (p50)", batch_measured};
}

// The run's cell for a published row: same strategy and malloc, never the placement twin.
const json* cell_for(const json& w, const json& row) {
  for (const auto& c : w["cells"])
    if (c["strategy"] == row["strategy"] &&
        c.value("malloc", std::string("glibc")) == row["malloc"] && !is_twin(c))
      return &c;
  return nullptr;
}

std::string measured_columns(const frame_reading& frame, const json& row) {
  const json* cell = cell_for(*frame.workload, row);
  if (cell == nullptr) return "| not in this run | | | |";
  const std::string measured = frame.measured(*frame.workload, *cell);
  return measured.empty() ? fmt::format("| **{}** | | | |", unmeasured_text(*cell)) : measured;
}

void published_table(std::string& md, const frame_reading& frame, const json& table) {
  const std::string unit = table["unit"] == "ms" ? "ms" : "µs";
  const json& rows = table["rows"];
  md += fmt::format("### {}\n\n{} To fill every row: `{}`.\n\n", table["title"].get<std::string>(),
                    table["about"].get<std::string>(), table["fill_with"].get<std::string>());
  md += table_head(
      {text_column(fmt::format("seed {} variant", table["seed"].get<std::string>())),
       text_column("here"), figure_column("p50"), figure_column("p99"), figure_column("throughput"),
       figure_column(frame.ratio_column), figure_column("seed p50"), figure_column("seed p99"),
       figure_column("seed throughput"),
       figure_column(fmt::format("seed throughput vs {}", rows[0]["variant"].get<std::string>()))});
  const double first_throughput = rows[0]["throughput_per_s"];
  for (const auto& row : rows)
    md += fmt::format("| {} | {} @ {} {} {:.2f} {} | {:.2f} {} | {:.0f}/s | {:.3f}× |\n",
                      row["variant"].get<std::string>(), row["strategy"].get<std::string>(),
                      row["malloc"].get<std::string>(), measured_columns(frame, row),
                      row["p50"].get<double>(), unit, row["p99"].get<double>(), unit,
                      row["throughput_per_s"].get<double>(),
                      row["throughput_per_s"].get<double>() / first_throughput);
  md += "\n";
}

}  // namespace

void published_tables(std::string& md, const json& r, const json& tables,
                      const std::string& frame) {
  for (const auto& table : tables) {
    if (table["frame"] != frame) continue;
    const frame_reading reading = read_frame(r, frame, table["workload"]);
    if (reading.workload != nullptr) published_table(md, reading, table);
  }
}

}  // namespace alloclab::lab::markdown
