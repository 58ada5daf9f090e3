// The JSON bodies `alloclab serve` answers with (server.cpp writes them): GET /stats, the
// server's facts and counters, which the serve frame's executor and the load generators read back
// (frames/serve/executor.cpp, load/generators.cpp); GET /run's checksum; a refusal's error. Each
// struct names its fields once and is written and read with the results model's codec
// (model/fields.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "http/latency_histogram.hpp"
#include "model/cell.hpp"
#include "model/fields.hpp"

namespace alloclab::lab::http {

// What the server knows when it starts (serve_command.cpp): its malloc, proven, and its place.
struct served_facts {
  std::string malloc = "glibc";
  model::liveness_proof live_allocator;
  bool debug_build = false;
  std::optional<int> pinned_cpu;
  std::string expected_checksum;
  model::omittable<std::string> budget_watch;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "the process malloc, as --malloc named it");
    field(s.live_allocator, "live_allocator", "its liveness proof");
    field(s.debug_build, "debug_build", "served from an unoptimised build (--allow-debug)");
    field(s.pinned_cpu, "pinned_cpu", "the CPU the server runs on (--cpu), or null");
    field(s.expected_checksum, "expected_checksum", "the checksum every /run must answer");
    field(s.budget_watch, "budget_watch", "the budget a watcher guards (--budget-watch)");
  }
};

// GET /run's answers since the server started.
struct run_counters {
  std::uint64_t ok = 0, failed = 0;
  histogram_counts workload_time, request_time;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.ok, "ok", "iterations that ran");
    field(s.failed, "failed", "iterations that failed");
    field(s.workload_time, "workload_time", "time inside the workload");
    field(s.request_time, "request_time", "request read -> response written");
  }
};

// GET /stats: the facts and the counters, side by side in one object.
struct stats_document {
  served_facts facts;
  std::string workload, strategy;
  std::size_t threads = 0;
  double uptime_s = 0, cpu_s = 0;
  std::uint64_t requests = 0, errors = 0, busy_refusals = 0;
  run_counters run;
  template <class S, class F>
  static void fields(S& s, F& field) {
    served_facts::fields(s.facts, field);
    field(s.workload, "workload", "the served workload");
    field(s.strategy, "strategy", "its strategy");
    field(s.threads, "threads", "connections served at once (--threads)");
    field(s.uptime_s, "uptime_s", "seconds since the server started");
    field(s.cpu_s, "cpu_s", "the whole process's CPU time, user and system (s)");
    field(s.requests, "requests", "responses sent");
    field(s.errors, "errors", "responses with a status of 400 or more");
    field(s.busy_refusals, "busy_refusals", "503s: over the connection limit");
    field(s.run, "run", "GET /run");
  }
};

// GET /run's answer: one iteration.
struct run_answer {
  std::string checksum;  // "0x" and 16 hex digits
  std::uint64_t workload_ns = 0;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.checksum, "checksum", "the iteration's checksum");
    field(s.workload_ns, "workload_ns", "time inside the workload");
  }
};

// Any refusal's body (4xx, 5xx).
struct error_answer {
  std::string error;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.error, "error", "what was wrong, one line");
  }
};

}  // namespace alloclab::lab::http
