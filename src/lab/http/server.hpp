// The HTTP/1.1 front of `alloclab serve` (cpp-httplib):
//   GET /run?workload=W&strategy=S  one iteration of the served variant -> its checksum (JSON)
//   GET /healthz                    "ok"
//   GET /stats                      JSON: requests, errors, time inside the workload (histogram)
//   GET /metrics                    the same and more, in Prometheus's text format (metrics.hpp)
// Malformed input gets a 4xx and never stops the server. SIGINT and SIGTERM stop it: the
// listening socket closes, requests in flight finish, then run_http_server returns.
//
// Connections: each open connection has a thread (started on demand) for as long as it stays
// open, idle keep-alive time included. Up to `threads` connections are served; the ones beyond
// get 503 "server busy" and are closed (GET /healthz, /stats and /metrics are still answered,
// then closed), so idle clients can neither starve a health check nor make new clients wait for a
// thread. In all at
// most ~960 connections get a thread (file descriptors must stay below select()'s FD_SETSIZE);
// past that, new ones wait until an idle one times out (--keep-alive). Refusals (4xx, 503) say
// "Connection: close" and do close.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <alloclab/memory_budget.hpp>

#include "http/answers.hpp"
#include "http/served_variant.hpp"

namespace alloclab {
class budget_watcher;
}

namespace alloclab::lab::http {

struct http_limits {
  std::chrono::milliseconds read_timeout{2000};  // a silent half-sent request is dropped
  std::chrono::milliseconds write_timeout{5000};
  std::chrono::seconds keep_alive_timeout{5};
  std::size_t payload_max_bytes =
      1024;                            // larger bodies get 413 (any body does: no route takes one)
  std::size_t max_header_count = 100;  // more header fields get 431
};

struct server_options {
  std::string bind = "127.0.0.1";
  int port = 8080;            // 0: any free port
  std::size_t threads = 256;  // connections served at once, a thread each; more get 503
  http_limits limits;
  served_facts facts;                                        // shown in /stats
  const alloclab::budget_watcher* budget_watcher = nullptr;  // shown in /metrics when set
  alloclab::memory_budget_options cgroup;                    // where /metrics reads the cgroup
};

// Binds (usage_error when the address or port cannot be used), prints
// "listening on HOST:PORT" on `announce`, serves until SIGINT or SIGTERM. Returns 0.
int run_http_server(served_variant& variant, const server_options& options, std::ostream& announce);

// The check of /run's raw query string: empty when it names exactly this server's variant, else
// the error message (malformed pair, unknown parameter, missing, repeated or empty value,
// unknown or other variant). Names are [A-Za-z0-9_.-]: no percent-encoding is needed or taken.
std::string check_run_query(std::string_view query, const served_variant& variant);

}  // namespace alloclab::lab::http
