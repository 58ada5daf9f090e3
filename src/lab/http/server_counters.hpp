// What `alloclab serve` counts while it serves: lock-free, written on the request path, read by
// /stats and /metrics (server.cpp, metrics.cpp). Every counter is a relaxed atomic.
#pragma once

#include <atomic>
#include <cstdint>

#include "http/latency_histogram.hpp"

namespace alloclab::lab::http {

struct server_counters {
  std::atomic<std::uint64_t> responses{0};
  std::atomic<std::uint64_t> errors{0};  // responses with status >= 400
  std::atomic<std::uint64_t> busy{0};    // 503: over the connection limit
  std::atomic<std::uint64_t> run_ok{0};
  std::atomic<std::uint64_t> run_failed{0};
  latency_histogram workload_time;  // /run: inside the workload
  latency_histogram request_time;   // /run: request parsed -> response written
};

}  // namespace alloclab::lab::http
