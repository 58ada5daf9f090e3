#include <algorithm>
#include <functional>
#include <iterator>

#include <fmt/format.h>

#include "frames/serve/figures.hpp"
#include "frames/serve/process_figures.hpp"
#include "frames/serve/run_options.hpp"
#include "frames/serve/frame.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "strategies/strategy.hpp"

// The serve frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

using load::load_result;

// One figure of a generator's run; none when the run lacks it.
using reading = std::function<std::optional<double>(const load_result&)>;

reading run_figure(double load_result::*figure) {
  return [figure](const load_result& r) { return std::optional<double>(r.*figure); };
}
reading latency_figure(std::optional<double> load::latency_percentiles::*figure) {
  return [figure](const load_result& r) { return r.latency.*figure; };
}
template <class Figure>
reading server_figure(Figure load::server_side::*figure) {
  return [figure](const load_result& r) -> std::optional<double> {
    if (!r.server) return std::nullopt;
    return (*r.server).*figure;
  };
}

// The median over the runs; none when one of them lacks the figure.
std::optional<double> median_over(const std::vector<const load_result*>& runs,
                                  const reading& figure) {
  std::vector<double> values;
  for (const load_result* run : runs) {
    const std::optional<double> v = figure(*run);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  if (values.empty()) return std::nullopt;
  return median_of(values);
}

// The figure of every run that has it.
std::vector<double> series_over(const std::vector<const load_result*>& runs,
                                const reading& figure) {
  std::vector<double> values;
  for (const load_result* run : runs)
    if (const std::optional<double> v = figure(*run)) values.push_back(*v);
  return values;
}

// One generator over the repetitions: medians, sums and the per-repetition series the intervals
// are drawn from.
std::optional<generator_summary> summary_of(const std::vector<const load_result*>& runs) {
  if (runs.empty()) return std::nullopt;
  using load::latency_percentiles;
  using load::server_side;
  generator_summary s;
  s.generator = runs.front()->generator;
  s.command = runs.front()->command;
  for (const load_result* run : runs) {
    s.requests += run->requests;
    s.errors += run->errors;
  }
  generator_series& per = s.per_repetition;
  // The figure's median into `median` and, when asked, every run's into `series`.
  const auto take = [&runs](const reading& figure, std::optional<double>& median,
                            std::vector<double>* series = nullptr) {
    median = median_over(runs, figure);
    if (series != nullptr) *series = series_over(runs, figure);
  };
  take(run_figure(&load_result::duration_s), s.duration_s);
  take([](const load_result& r) { return r.target_rate_rps; }, s.target_rate_rps);
  take(run_figure(&load_result::throughput_rps), s.throughput_rps, &per.throughput_rps);
  take(latency_figure(&latency_percentiles::p50_ms), s.p50_ms, &per.p50_ms);
  take(latency_figure(&latency_percentiles::p90_ms), s.p90_ms);
  take(latency_figure(&latency_percentiles::p99_ms), s.p99_ms, &per.p99_ms);
  take(latency_figure(&latency_percentiles::p999_ms), s.p999_ms);
  take(latency_figure(&latency_percentiles::mean_ms), s.mean_ms, &per.mean_ms);
  server_account& server = s.server;
  take(server_figure(&server_side::workload_mean_us), server.workload_mean_us,
       &per.workload_mean_us);
  take(server_figure(&server_side::workload_p99_us), server.workload_p99_us);
  take(server_figure(&server_side::cpu_us_per_request), server.cpu_us_per_request,
       &per.cpu_us_per_request);
  take(server_figure(&server_side::share_of_cpu), server.share_of_cpu);
  take(server_figure(&server_side::share_of_latency), server.share_of_latency);
  return s;
}

server_summary servers_of(const std::vector<const serve_repetition*>& reps,
                          const std::string& pinning) {
  server_summary out;
  std::vector<double> saturation;
  for (const serve_repetition* rep : reps) {
    saturation.push_back(rep->saturation_rps);
    out.requests += rep->stats.requests;
    out.errors += rep->stats.errors;
  }
  out.saturation_rps = median_of(saturation);
  out.pinned_cpu = reps.front()->stats.pinned_cpu;
  out.pinning = pinning;
  return out;
}

serve_cell serve_cell_of(const cell_spec& spec, const cell_records& rs) {
  serve_cell cell;
  cell.head = cell_head(spec, rs).head;
  if (rs.broken() != nullptr) return cell;
  std::vector<const serve_repetition*> reps;
  for (const auto* r : rs.parts)
    for (const auto& rep : r->figures.get<serve_figures>()->repetitions) reps.push_back(&rep);
  if (reps.empty()) return cell;
  cell.head.processes = reps.size();  // one fresh server per repetition
  std::vector<const load_result*> hey, wrk;
  for (const auto* rep : reps) {
    hey.push_back(&rep->hey);
    if (rep->wrk) wrk.push_back(&*rep->wrk);
  }
  cell.hey = summary_of(hey);
  if (reps.front()->wrk) cell.wrk = summary_of(wrk);  // none: hey alone
  cell.ladder.emplace();
  for (std::size_t step = 0; step < reps.front()->ladder.size(); ++step) {
    std::vector<const load_result*> runs;
    for (const auto* rep : reps)
      if (step < rep->ladder.size()) runs.push_back(&rep->ladder[step]);
    cell.ladder->push_back(summary_of(runs));
  }
  cell.server = servers_of(reps, rs.parts.front()->figures.get<serve_figures>()->pinning);
  return cell;
}

using generator_of = std::optional<generator_summary> serve_cell::*;
using series_of = std::vector<double> generator_series::*;

std::optional<serve_estimate> serve_ratio(const serve_cell& base, const serve_cell& cell,
                                          generator_of generator, series_of figure,
                                          bool higher_is_better) {
  const auto series = [&](const serve_cell& c) {
    const std::optional<generator_summary>& g = c.*generator;
    return g ? g->per_repetition.*figure : std::vector<double>{};
  };
  std::vector<double> b = series(base), c = series(cell);
  if (!higher_is_better) std::swap(b, c);  // > 1 favours the candidate
  const auto r = ratio_of_repetition_medians(c, b);
  if (!r) return std::nullopt;
  return serve_estimate{r->value, interval_of(r->range), std::min(b.size(), c.size())};
}

// Each variant against the baseline variant, over repetitions (fresh servers).
std::optional<serve_comparison> comparison_of(const serve_cell& base, const serve_cell& cell) {
  if (!cell.hey || !base.hey) return std::nullopt;
  const auto ratio = [&](generator_of generator, series_of figure, bool higher_is_better) {
    return serve_ratio(base, cell, generator, figure, higher_is_better);
  };
  constexpr generator_of hey = &serve_cell::hey, wrk = &serve_cell::wrk;
  serve_comparison out;
  out.throughput_ratio_hey = ratio(hey, &generator_series::throughput_rps, true);
  out.throughput_ratio_wrk = ratio(wrk, &generator_series::throughput_rps, true);
  out.p50_ratio_hey = ratio(hey, &generator_series::p50_ms, false);
  out.p99_ratio_hey = ratio(hey, &generator_series::p99_ms, false);
  out.p50_ratio_wrk = ratio(wrk, &generator_series::p50_ms, false);
  out.p99_ratio_wrk = ratio(wrk, &generator_series::p99_ms, false);
  out.workload_time_ratio = ratio(hey, &generator_series::workload_mean_us, false);
  out.cpu_per_request_ratio = ratio(hey, &generator_series::cpu_us_per_request, false);
  out.intervals =
      "percentile bootstrap over repetitions (one fresh server each): ratio of medians; > 1 "
      "favours the candidate";
  return out;
}

// The batch frame's cell of the same variant (not its placement twin), or null.
const model::cell* batch_cell_of(const serve_cell& cell, const model::workload* batch_workload) {
  const model::cell* found = nullptr;
  if (batch_workload != nullptr)
    for (const model::cell& c : batch_workload->cells)
      if (c.head.strategy == cell.head.strategy && c.head.malloc == cell.head.malloc &&
          !c.head.placement_twin)
        found = &c;
  return found;
}

// The same variant in the batch frame, and Amdahl's law: a workload that is a share f of the
// server's CPU per request, made s times faster (the batch speedup), makes the server
// 1 / ((1 - f) + f / s) times faster; closed-loop throughput on a saturated server follows that.
std::optional<batch_beside> batch_of(const serve_cell& serve_base, const serve_cell& cell,
                                     const model::workload* batch_workload) {
  const model::cell* batch = batch_cell_of(cell, batch_workload);
  if (batch == nullptr || !batch->timing) return std::nullopt;
  const std::optional<model::comparison>& vs = batch->vs_std;
  batch_beside out;
  out.p50_ns = batch->timing->p50_ns;
  if (vs && vs->speedup_p50)
    out.speedup_p50 = batch_speedup{*vs->speedup_p50, vs->intervals.speedup_p50, vs->mark};
  if (serve_base.hey) out.workload_share = serve_base.hey->server.share_of_cpu;
  if (out.workload_share && out.speedup_p50) {
    const double f = std::clamp(*out.workload_share, 0.0, 1.0);
    const double s = out.speedup_p50->value;
    // The share of the baseline's request time the variant's allocation strategy takes away
    // (negative: adds): what is left of a batch speedup once a request does everything else too.
    out.allocator_share_removed = f * (1.0 - 1.0 / s);
    out.predicted_serve_ratio = amdahl_ratio(f, s);
    // Amdahl rises with s, so the batch interval's ends bound the prediction (f held fixed).
    if (const auto& range = out.speedup_p50->interval)
      out.predicted_serve_interval =
          model::interval{amdahl_ratio(f, range->low), amdahl_ratio(f, range->high)};
  }
  if (cell.vs_std) out.measured_serve_ratio = cell.vs_std->throughput_ratio_hey;
  return out;
}

// A lab workload served: its cells in plan order, each against the baseline variant and beside
// the same variant in the batch frame (`workloads`: results.json's, the batch frame's included).
serve_workload served_workload(const frame_results_input& in, const std::string& name,
                               const std::vector<model::workload>& workloads) {
  serve_workload w;
  w.name = name;
  w.baseline = {baseline_strategy, in.plan.mallocs.front().label};
  for_each_cell(in, name, frame::serve, [&w](const cell_spec& spec, const cell_records& rs) {
    w.cells.push_back(serve_cell_of(spec, rs));
  });
  const auto base = std::find_if(w.cells.begin(), w.cells.end(), [&w](const serve_cell& c) {
    return c.head.strategy == w.baseline.strategy && c.head.malloc == w.baseline.malloc;
  });
  if (base == w.cells.end()) return w;
  const model::workload* batch_workload = nullptr;
  for (const model::workload& b : workloads)
    if (b.name == name && b.kind == "lab") batch_workload = &b;
  const serve_cell built = *base;  // before any comparison is added
  for (auto c = w.cells.begin(); c != w.cells.end(); ++c) {
    if (c != base) c->vs_std = comparison_of(built, *c);
    c->batch = batch_of(built, *c, batch_workload);
  }
  return w;
}

serve_section serve_results(const frame_results_input& in,
                            const std::vector<model::workload>& workloads) {
  const run_plan& plan = in.plan;
  serve_section out;
  out.duration_s = serve_sizes_of(plan).duration_s;
  out.generators = serve_sizes_of(plan).hey_only ? "hey" : "hey and wrk";
  out.connections = serve_connections;
  out.repetitions = serve_sizes_of(plan).repetitions;
  out.ladder_fractions.assign(std::begin(serve_ladder_fractions), std::end(serve_ladder_fractions));
  for (const std::string& name : plan.workloads.lab)  // the lab workloads with a served variant
    if (std::any_of(plan.cells.begin(), plan.cells.end(), [&](const cell_spec& c) {
          return c.frame == frame::serve && c.workload == name;
        }))
      out.workloads.push_back(served_workload(in, name, workloads));
  return out;
}

}  // namespace

std::string describe_serve_frame(const run_plan& plan) {
  return fmt::format(
      "each variant (workload x strategy x malloc) is served by {} fresh `alloclab serve` "
      "processes, one after another; each is warmed up, then driven by hey and wrk ({} "
      "connections, {} s each, closed loop) and an open-loop constant-rate ladder; one request "
      "runs one iteration from a reset arena; a number includes HTTP parsing, the server's "
      "threads, syscalls and the loopback network, and the load generators run on the same "
      "machine",
      serve_sizes_of(plan).repetitions, serve_connections, serve_sizes_of(plan).duration_s);
}

// Its top-level key only when it ran (model/versions.hpp): a try document has none.
void add_serve_results(const frame_results_input& in, model::document& results) {
  if (!has_frame(in.plan, frame::serve)) return;
  serve_document_figures part;
  part.serve = serve_results(in, results.workloads);
  results.parts.set(std::move(part));
}

std::vector<std::string> serve_warnings(const model::document& results) {
  std::vector<std::string> warnings;
  const serve_document_figures* part = results.parts.get<serve_document_figures>();
  if (part == nullptr || !part->serve) return warnings;
  for (const serve_workload& w : part->serve->workloads)
    for (const serve_cell& c : w.cells) {
      const std::string where =
          fmt::format("serve {} / {} @ {}", w.name, c.head.strategy, c.head.malloc);
      if (c.head.status != "ok")
        warnings.push_back(
            fmt::format("{}: {}: {}", where, c.head.status, c.head.reason.value_or("")));
      for (const auto& [name, generator] : {std::pair{"hey", &c.hey}, std::pair{"wrk", &c.wrk}})
        if (*generator && (*generator)->errors > 0)
          warnings.push_back(
              fmt::format("{}: {} saw {} errors", where, name, (*generator)->errors));
    }
  return warnings;
}

}  // namespace alloclab::lab
