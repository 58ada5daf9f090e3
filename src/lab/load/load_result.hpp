// What one load generator run measured (hey, wrk or the open-loop client: load/generators.hpp
// runs them), typed once where it is read, with the server's side of the run when the server has
// /stats. The serve frame's measurement record carries them (frames/serve/process_figures.hpp),
// and `alloclab load` prints a run; both write them with the results model's codec
// (model/fields.hpp). This is transport, not results.json: the serve frame's results cell
// summarises them (frames/serve/results_cell.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"

namespace alloclab::lab::load {

struct latency_percentiles {
  std::optional<double> p50_ms, p90_ms, p99_ms, p999_ms, mean_ms;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.p50_ms, "p50", "ms");
    field(s.p90_ms, "p90", "ms");
    field(s.p99_ms, "p99", "ms; hey prints none above it");
    field(s.p999_ms, "p99.9", "ms; null for hey");
    field(s.mean_ms, "mean", "ms");
  }
};

// The server's own account of the run (delta of /stats before and after).
struct server_side {
  std::uint64_t run_requests = 0;
  double workload_mean_us = 0;
  double workload_p50_us = 0;
  double workload_p99_us = 0;
  std::optional<double> share_of_latency;  // server mean workload time / client mean latency
  double cpu_us_per_request = 0;           // server process CPU (user + sys) / /run requests
  std::optional<double> share_of_cpu;      // server mean workload time / its CPU per request
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.run_requests, "run_requests", "/run requests the server answered during the run");
    field(s.workload_mean_us, "workload_mean_us", "mean time inside the workload");
    field(s.workload_p50_us, "workload_p50_us", "its p50");
    field(s.workload_p99_us, "workload_p99_us", "its p99");
    field(s.share_of_latency, "share_of_latency", "workload time ÷ client mean latency");
    field(s.cpu_us_per_request, "cpu_us_per_request", "the server's CPU per /run request");
    field(s.share_of_cpu, "share_of_cpu", "workload time ÷ CPU per request");
  }
};

struct load_result {
  bool ok = false;
  model::omittable<std::string> error;  // when !ok: one line
  std::string generator;
  std::vector<std::string> command;  // what was run (empty for the in-process open-loop client)
  std::string pinning;
  double duration_s = 0;
  std::uint64_t requests = 0;             // answered, any status (latencies are of these)
  std::uint64_t succeeded = 0;            // answered 2xx
  std::uint64_t errors = 0;               // non-2xx responses and transport errors
  double throughput_rps = 0;              // successful requests per second
  std::optional<double> target_rate_rps;  // open loop only
  latency_percentiles latency;
  std::optional<server_side> server;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.ok, "ok", "the run succeeded");
    field(s.error, "error", "why not");
    field(s.generator, "generator", "`hey`, `wrk` or `open_loop`");
    field(s.command, "command", "what was run");
    field(s.pinning, "pinning", "where the generator ran");
    field(s.duration_s, "duration_s", "seconds of load");
    field(s.requests, "requests", "answered, any status");
    field(s.succeeded, "succeeded", "answered 2xx");
    field(s.errors, "errors", "non-2xx answers and transport errors");
    field(s.throughput_rps, "throughput_rps", "successful requests per second");
    field(s.target_rate_rps, "target_rate_rps", "open loop: the rate asked for");
    field(s.latency, "latency_ms", "client latency");
    field(s.server, "server", "the server's side, when it has /stats");
  }
};

}  // namespace alloclab::lab::load
