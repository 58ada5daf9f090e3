// report.md: the serve frame: batch and serve side by side with Amdahl, the two
// load generators, the open-loop ladder, and the servers that failed. It reads the results model
// (the frame's `serve` part, frames/serve/figures.hpp) and computes nothing.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "frames/serve/figures.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string serve_variant(const serve_cell& cell) {
  return fmt::format("{} @ {}", cell.head.strategy, cell.head.malloc);
}

std::optional<double> hey_server(const serve_cell& c,
                                 std::optional<double> server_account::*figure) {
  return c.hey ? c.hey->server.*figure : std::nullopt;
}

// Batch beside serve for each variant, with Amdahl's prediction of the serve ratio.
void serve_amdahl_table(std::string& md, const serve_workload& w) {
  md += fmt::format(
      "### {}: batch beside serve\n\n"
      "Ratios against {} @ {}, > 1 favours the variant, with 95 % intervals over repetitions. "
      "*Workload share* is a server's time inside the workload (allocator included) divided by "
      "its CPU time per request, during the hey run. *Amdahl* predicts the serve throughput "
      "ratio from the batch speedup s and the baseline's share f: 1 / ((1 − f) + f / s), in "
      "brackets at the ends of s's interval. "
      "*Allocator's part* is f × (1 − 1 / s): the share of the baseline's request time the "
      "variant's allocation strategy takes away; a 2× batch win on a workload that is 5 % of a "
      "request removes 2.5 % of it. "
      "*Served workload ratio* is the same workload timed inside the server, one iteration per "
      "request from a reset arena.\n\n",
      w.name, w.baseline.strategy, w.baseline.malloc);
  md += table_head(
      {text_column("variant"), figure_column("batch p50"), figure_column("batch speedup"),
       figure_column("served workload time"), figure_column("served workload ratio"),
       figure_column("workload share of server CPU"),
       figure_column("allocator's part of request time"),
       figure_column("Amdahl: predicted serve ratio"),
       figure_column("measured serve ratio (hey req/s)"), figure_column("measured (wrk req/s)"),
       figure_column("server CPU per request ratio")});
  for (const serve_cell& c : w.cells) {
    if (c.head.status != "ok") {
      md += fmt::format("| {} | **{}** | | | | | | | | | |\n", serve_variant(c),
                        status_text(c.head.status));
      continue;
    }
    const std::optional<batch_beside>& b = c.batch;
    const bool base = !c.vs_std;
    const serve_comparison vs = c.vs_std.value_or(serve_comparison());
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", serve_variant(c),
        b ? format_ns(b->p50_ns) : "not in this run",
        base ? "baseline"
        : b  ? estimate_or_dash(b->speedup_p50)
             : "-",
        format_number_or_dash(hey_server(c, &server_account::workload_mean_us), "{:.2f} µs"),
        base ? "baseline" : estimate_or_dash(vs.workload_time_ratio),
        percent_or_dash(hey_server(c, &server_account::share_of_cpu)),
        base || !b ? "-" : percent_or_dash(b->allocator_share_removed),
        base ? "-"
        : b  ? format_number_or_dash(b->predicted_serve_ratio, "{:.3f}×") +
                  interval_text(b->predicted_serve_interval)
            : "-",
        base ? "baseline" : estimate_or_dash(vs.throughput_ratio_hey),
        base ? "baseline" : estimate_or_dash(vs.throughput_ratio_wrk),
        base ? "baseline" : estimate_or_dash(vs.cpu_per_request_ratio));
  }
  md += "\n";
}

// One closed-loop generator's row: its summary and its ratios against the baseline.
struct generator_row {
  const char* name;
  std::optional<generator_summary> serve_cell::*summary;
  std::optional<serve_estimate> serve_comparison::*throughput_ratio;
  std::optional<serve_estimate> serve_comparison::*p50_ratio;
};

void serve_generator_table(std::string& md, const serve_workload& w, unsigned connections) {
  md += fmt::format(
      "### {}: served, per generator (closed loop)\n\n"
      "Medians over repetitions; latency in ms at the client (queueing included: a closed loop "
      "keeps {} requests in flight). hey prints 0.1 ms steps and no p99.9.\n\n",
      w.name, connections);
  md += table_head({text_column("variant"), text_column("generator"), figure_column("req/s"),
                    figure_column("requests"), figure_column("errors"), figure_column("p50"),
                    figure_column("p90"), figure_column("p99"), figure_column("p99.9"),
                    figure_column("mean"), figure_column("server CPU per request"),
                    figure_column("req/s vs baseline"), figure_column("p50 vs baseline")});
  const generator_row generators[] = {
      {"hey", &serve_cell::hey, &serve_comparison::throughput_ratio_hey,
       &serve_comparison::p50_ratio_hey},
      {"wrk", &serve_cell::wrk, &serve_comparison::throughput_ratio_wrk,
       &serve_comparison::p50_ratio_wrk}};
  for (const serve_cell& c : w.cells) {
    if (c.head.status != "ok") continue;
    for (const generator_row& g : generators) {
      const std::optional<generator_summary>& s = c.*g.summary;
      if (!s) continue;  // a budgeted run serves with hey alone
      const auto ratio = [&](std::optional<serve_estimate> serve_comparison::*figure) {
        return c.vs_std ? estimate_or_dash((*c.vs_std).*figure) : std::string("baseline");
      };
      md += fmt::format("| {} | {} | {:.0f} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                        serve_variant(c), g.name, s->throughput_rps.value(), s->requests, s->errors,
                        ms_or_dash(s->p50_ms), ms_or_dash(s->p90_ms), ms_or_dash(s->p99_ms),
                        ms_or_dash(s->p999_ms), ms_or_dash(s->mean_ms),
                        format_number_or_dash(s->server.cpu_us_per_request, "{:.1f} µs"),
                        ratio(g.throughput_ratio), ratio(g.p50_ratio));
    }
  }
  md += "\n";
}

void serve_ladder_table(std::string& md, const serve_workload& w) {
  if (std::none_of(w.cells.begin(), w.cells.end(),
                   [](const serve_cell& c) { return c.ladder && !c.ladder->empty(); }))
    return;  // hey alone: no ladder
  md += fmt::format(
      "### {}: open loop, constant rate\n\n"
      "Each request is due at t0 + i / rate; its latency runs from that due time (coordinated "
      "omission corrected). Rates are fractions of the closed-loop saturation (the lower of hey's "
      "and wrk's req/s) of each server. Medians over repetitions.\n\n",
      w.name);
  md += table_head({text_column("variant"), figure_column("target req/s"),
                    figure_column("achieved req/s"), figure_column("errors"),
                    figure_column("p50 ms"), figure_column("p90 ms"), figure_column("p99 ms"),
                    figure_column("p99.9 ms"), figure_column("workload share of latency")});
  for (const serve_cell& c : w.cells) {
    if (c.head.status != "ok" || !c.ladder) continue;
    for (const std::optional<generator_summary>& rung : *c.ladder) {
      const generator_summary& step = rung.value();
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", serve_variant(c),
                        format_number_or_dash(step.target_rate_rps, "{:.0f}"),
                        format_number_or_dash(step.throughput_rps, "{:.0f}"), step.errors,
                        ms_or_dash(step.p50_ms), ms_or_dash(step.p90_ms), ms_or_dash(step.p99_ms),
                        ms_or_dash(step.p999_ms), percent_or_dash(step.server.share_of_latency));
    }
  }
  md += "\n";
}

void serve_failures(std::string& md, const serve_workload& w) {
  for (const serve_cell& c : w.cells)
    if (c.head.status != "ok")
      md += failed_cell_item("served " + w.name + " / " + serve_variant(c), c.head, "server");
}

std::string pinning_text(const lab::serve_section& serve) {
  if (serve.workloads.empty() || serve.workloads[0].cells.empty() ||
      !serve.workloads[0].cells[0].server)
    return "Pinning: see each cell";
  return serve.workloads[0].cells[0].server->pinning;
}

// The seeds' serve tables: a variant's hey run beside each published row.
std::string serve_seed_columns(const serve_cell& cell) {
  if (cell.head.status != "ok") return "";
  const generator_summary& h = cell.hey.value();
  return fmt::format(
      "| {} ms | {} ms | {:.0f}/s | {} |", ms_or_dash(h.p50_ms), ms_or_dash(h.p99_ms),
      h.throughput_rps.value(),
      cell.vs_std ? estimate_or_dash(cell.vs_std->throughput_ratio_hey) : std::string("baseline"));
}

seed_table_cells serve_seed_cells(const lab::serve_section& serve) {
  const auto workload = [&serve](const std::string& name) -> const serve_workload* {
    for (const serve_workload& w : serve.workloads)
      if (w.name == name) return &w;
    return nullptr;
  };
  return {"req/s vs baseline",
          [workload](const std::string& name) { return workload(name) != nullptr; },
          [workload](const std::string& name, const model::published_row& row) {
            return published_row_columns(workload(name)->cells, row, serve_seed_columns);
          }};
}

}  // namespace

void serve_section(std::string& md, const model::document& r) {
  const serve_document_figures* part = r.parts.get<serve_document_figures>();
  if (part == nullptr || !part->serve) return;
  const lab::serve_section& serve = *part->serve;
  const std::string generators = serve.generators.value_or("hey and wrk");
  md += fmt::format(
      "## Batch and serve (seed 004's two frames)\n\n"
      "Served: one `alloclab serve` process per variant and repetition ({} each), one iteration "
      "per `GET /run`; {} with {} connections for {} s each{}. "
      "{}.\n\n",
      serve.repetitions, generators, serve.connections, serve.duration_s,
      serve.generators.value_or("") == "hey" ? "" : ", then the open-loop ladder",
      pinning_text(serve));
  std::string failures;
  for (const serve_workload& w : serve.workloads) {
    serve_amdahl_table(md, w);
    serve_generator_table(md, w, serve.connections);
    serve_ladder_table(md, w);
    serve_failures(failures, w);
  }
  published_tables(md, r, "serve", serve_seed_cells(serve));
  if (!failures.empty())
    md += "### Failed servers\n\nThe other variants still ran.\n\n" + failures + "\n";
}

}  // namespace alloclab::lab::markdown
