// The serve frame's own figures in results.json (model/frame_part.hpp): its top-level `serve`
// section, one workload per lab workload served, one cell per variant. docs/serve.md explains the
// frame. Each struct names its fields once (model/fields.hpp); the section adds what the serve
// claims read (model/claim_figures.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/claim_figures.hpp"
#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

struct server_account {
  std::optional<double> workload_mean_us, workload_p99_us, cpu_us_per_request, share_of_cpu,
      share_of_latency;
  static constexpr const char* about_type =
      "medians of the server's own account of the same requests, from `/stats` before and after";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.workload_mean_us, "workload_mean_us", "time inside the workload");
    field(s.workload_p99_us, "workload_p99_us", "its p99");
    field(s.cpu_us_per_request, "cpu_us_per_request", "the server's CPU per request");
    field(s.share_of_cpu, "share_of_cpu",
          "workload time ÷ CPU per request (wall time over CPU time: it can exceed 1 on a "
          "contended CPU)");
    field(s.share_of_latency, "share_of_latency", "workload time ÷ client mean latency");
  }
};

struct generator_series {
  std::vector<double> throughput_rps, p50_ms, p99_ms, mean_ms, workload_mean_us, cpu_us_per_request;
  static constexpr const char* about_type = "one entry per server (repetition)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.throughput_rps, "throughput_rps", "req/s");
    field(s.p50_ms, "p50_ms", "client p50");
    field(s.p99_ms, "p99_ms", "client p99");
    field(s.mean_ms, "mean_ms", "client mean");
    field(s.workload_mean_us, "workload_mean_us", "the server's workload time");
    field(s.cpu_us_per_request, "cpu_us_per_request", "the server's CPU per request");
  }
};

struct generator_summary {
  std::string generator;
  std::vector<std::string> command;
  std::uint64_t requests = 0, errors = 0;
  std::optional<double> duration_s, target_rate_rps, throughput_rps, p50_ms, p90_ms, p99_ms,
      p999_ms, mean_ms;
  server_account server;
  generator_series per_repetition;
  static constexpr const char* about_type =
      "one load generator over the repetitions: medians, sums, and the series the intervals are "
      "drawn from";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.generator, "generator", "`hey`, `wrk` or the open-loop client");
    field(s.command, "command", "the first repetition's command");
    field(s.requests, "requests", "summed over repetitions");
    field(s.errors, "errors", "summed over repetitions: non-2xx answers and transport errors");
    field(s.duration_s, "duration_s", "median");
    field(s.target_rate_rps, "target_rate_rps", "open loop: the median target rate");
    field(s.throughput_rps, "throughput_rps", "median achieved req/s");
    field(s.p50_ms, "p50_ms", "median client latency p50 (ms)");
    field(s.p90_ms, "p90_ms", "p90");
    field(s.p99_ms, "p99_ms", "p99");
    field(s.p999_ms, "p999_ms", "p99.9 (null for hey, which prints none)");
    field(s.mean_ms, "mean_ms", "mean");
    field(s.server, "server", "the server's side");
    field(s.per_repetition, "per_repetition", "per repetition");
  }
};

struct server_summary {
  double saturation_rps = 0;
  std::uint64_t requests = 0, errors = 0;
  std::optional<std::int64_t> pinned_cpu;
  std::string pinning;
  static constexpr const char* about_type = "the servers";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.saturation_rps, "saturation_rps",
          "median of min(hey, wrk) req/s: what the ladder's fractions apply to",
          model::at_least(0));
    field(s.requests, "requests", "the servers' `/stats` counters, summed");
    field(s.errors, "errors", "the same");
    field(s.pinned_cpu, "pinned_cpu", "the CPU the server ran on, or null");
    field(s.pinning, "pinning", "what ran where");
  }
};

struct serve_estimate {
  double value = 0;
  std::optional<model::interval> interval;
  std::size_t repetitions = 0;
  static constexpr const char* about_type =
      "ratio of medians over repetitions with its 95 % interval; > 1 favours the cell";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.value, "value", "the ratio", model::at_least(0));
    field(s.interval, "interval", "95 % percentile-bootstrap interval, or null");
    field(s.repetitions, "repetitions", "repetitions per side", model::at_least(1));
  }
};

struct serve_comparison {
  std::optional<serve_estimate> throughput_ratio_hey, throughput_ratio_wrk, p50_ratio_hey,
      p99_ratio_hey, p50_ratio_wrk, p99_ratio_wrk, workload_time_ratio, cpu_per_request_ratio;
  std::string intervals;
  static constexpr const char* about_type = "a served variant against the baseline variant";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.throughput_ratio_hey, "throughput_ratio_hey", "cell ÷ baseline req/s under hey");
    field(s.throughput_ratio_wrk, "throughput_ratio_wrk", "the same under wrk");
    field(s.p50_ratio_hey, "p50_ratio_hey", "baseline ÷ cell p50 under hey");
    field(s.p99_ratio_hey, "p99_ratio_hey", "baseline ÷ cell p99 under hey");
    field(s.p50_ratio_wrk, "p50_ratio_wrk", "the same under wrk");
    field(s.p99_ratio_wrk, "p99_ratio_wrk", "the same under wrk");
    field(s.workload_time_ratio, "workload_time_ratio", "baseline ÷ cell workload time");
    field(s.cpu_per_request_ratio, "cpu_per_request_ratio", "baseline ÷ cell CPU per request");
    field(s.intervals, "intervals", "how the intervals were formed");
  }
  // Its ratios that have a value, by key, as the serve claims read them.
  std::map<std::string, model::served_ratio> served_ratios() const {
    std::map<std::string, model::served_ratio> found;
    model::for_each_present<serve_estimate>(*this,
                                            [&found](const char* key, const serve_estimate& e) {
                                              found[key] = {e.value, e.interval, e.repetitions};
                                            });
    return found;
  }
};

struct batch_speedup {
  double value = 0;
  std::optional<model::interval> interval;
  std::string mark;
  static constexpr const char* about_type = "the batch cell's `vs_std.speedup_p50`";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.value, "value", "the speedup");
    field(s.interval, "interval", "its interval");
    field(s.mark, "mark", "its significance mark");
  }
};

struct batch_beside {
  double p50_ns = 0;
  std::optional<batch_speedup> speedup_p50;
  std::optional<double> workload_share, allocator_share_removed, predicted_serve_ratio;
  std::optional<model::interval> predicted_serve_interval;
  std::optional<serve_estimate> measured_serve_ratio;
  static constexpr const char* about_type = "the same variant in this run's batch frame";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.p50_ns, "p50_ns", "its batch p50", model::at_least(0));
    field(s.speedup_p50, "speedup_p50", "its batch speedup");
    field(s.workload_share, "workload_share", "the baseline server's `hey.server.share_of_cpu`");
    field(s.allocator_share_removed, "allocator_share_removed",
          "f × (1 − 1 ÷ s): the share of the baseline's request time the variant's allocation "
          "strategy takes away, negative when it adds");
    field(s.predicted_serve_ratio, "predicted_serve_ratio",
          "Amdahl: 1 ÷ ((1 − f) + f ÷ s), f that share capped at 1, s the batch speedup");
    field(s.predicted_serve_interval, "predicted_serve_interval",
          "the same at the ends of s's 95 % interval, f held fixed; null without an interval",
          model::may_be_absent);
    field(s.measured_serve_ratio, "measured_serve_ratio", "= `vs_std.throughput_ratio_hey`");
  }
};

struct serve_cell {
  model::cell_head head;
  std::optional<generator_summary> hey, wrk;
  std::optional<std::vector<std::optional<generator_summary>>> ladder;
  std::optional<server_summary> server;
  std::optional<serve_comparison> vs_std;
  std::optional<batch_beside> batch;
  static constexpr const char* about_type =
      "one variant served: `status` `failed` when the server did not start, died, hung, a "
      "generator failed or the server did not stop cleanly on SIGTERM; `processes` counts the "
      "servers measured";
  template <class S, class F>
  static void fields(S& s, F& field) {
    model::cell_head::fields(s.head, field);
    field(s.hey, "hey", "the closed-loop generator of seed 004");
    field(s.wrk, "wrk", "the second closed-loop generator");
    field(s.ladder, "ladder",
          "the open-loop runs, ascending rate; latency counts from each request's due time");
    field(s.server, "server", "the servers");
    field(s.vs_std, "vs_std", "null for the baseline and failed cells");
    field(s.batch, "batch", "the batch frame's cell of the same variant, null when it did not run");
  }
};

struct serve_workload {
  std::string name;
  model::cell_ref baseline;
  std::vector<serve_cell> cells;
  static constexpr const char* about_type = "a lab workload served";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.name, "name", "the lab workload");
    field(s.baseline, "baseline", "`std` under the first malloc");
    field(s.cells, "cells", "one per malloc × strategy");
  }
};

struct serve_section {
  double duration_s = 0;
  unsigned connections = 0;
  std::size_t repetitions = 0;
  std::vector<double> ladder_fractions;
  model::omittable<std::string> generators;
  std::vector<serve_workload> workloads;
  static constexpr const char* about_type =
      "the serve frame (docs/serve.md): every variant served over HTTP by fresh `alloclab serve` "
      "processes, one per repetition, one iteration per request";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.duration_s, "duration_s", "`--serve-duration`: seconds of hey and of wrk per server",
          model::at_least(0));
    field(s.connections, "connections", "connections of every generator", model::at_least(1));
    field(s.repetitions, "repetitions", "fresh servers per variant", model::at_least(1));
    field(s.ladder_fractions, "ladder_fractions",
          "the open-loop rates, as fractions of each server's closed-loop saturation");
    field(s.generators, "generators",
          "`hey and wrk` (then the open-loop ladder), or `hey` alone in a budgeted run (`wrk` is "
          "then null and `ladder` empty); absent in files written before the time budget",
          model::one_of{"hey and wrk", "hey"});
    field(s.workloads, "workloads", "per served lab workload");
  }
};

struct serve_document_figures {
  std::optional<serve_section> serve;  // none: the frame did not run
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.serve, "serve", "the serve frame, when it ran (`--frames …,serve`)");
  }
  // What the served_ratio claims read: each variant served, with its ratios to the baseline.
  void add_claim_figures(model::claim_figures& into) const {
    if (!serve) return;
    for (const serve_workload& w : serve->workloads)
      for (const serve_cell& c : w.cells)
        into.served.push_back(
            {w.name, c.head.strategy, c.head.malloc, c.head.reason,
             c.vs_std ? c.vs_std->served_ratios() : std::map<std::string, model::served_ratio>()});
  }
};

}  // namespace alloclab::lab
