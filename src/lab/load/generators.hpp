// Load generators against one URL, each result in one shape (load_result in
// load/load_result.hpp: percentiles in ms, throughput, errors), so that hey, wrk and the
// open-loop client can be put side by side.
//   run_hey        hey -c C -z Ds (seed 004's shape), closed loop; hey prints 4 decimals of a
//                  second (0.1 ms resolution) and no p99.9, which stays empty.
//   run_wrk        wrk -c C -d Ds with a Lua done() hook that prints its histogram's percentiles.
//   run_open_loop  constant rate: request i is due at t0 + i/rate; its latency runs from that
//                  intended time, so a stalled server is charged for the requests it delayed
//                  (coordinated omission corrected). cpp-httplib client, one thread per connection.
// Each pins the generator to `cpu` when given and says so in `pinning`. When the server has
// /stats (alloclab serve), the time spent inside the workload during the run is read from it.
// A run is ok only when requests succeeded (2xx) and errors did not outnumber them; throughput
// counts successful requests only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/load_result.hpp"

namespace alloclab::lab::load {

struct closed_loop_options {
  std::string url;
  unsigned connections = 50;
  double duration_s = 10;
  std::optional<int> cpu;
};

struct open_loop_options {
  std::string url;
  double rate_rps = 1000;
  double duration_s = 10;
  unsigned connections = 50;
  std::optional<int> cpu;
};

load_result run_hey(const closed_loop_options& options);
load_result run_wrk(const closed_loop_options& options);
load_result run_open_loop(const open_loop_options& options);

// The server's GET /stats as JSON (the origin of `url`; alloclab's reads as a stats_document,
// http/answers.hpp); nullopt when it does not answer.
std::optional<nlohmann::json> fetch_stats(const std::string& url);

// Parsers of the generators' outputs (exposed for tests). They fill requests, errors,
// throughput, duration and latency, and set ok=false with an error when the text is not
// the generator's report or the run failed (judge_success).
load_result parse_hey_summary(const std::string& text);
load_result parse_wrk_report(const std::string& text);

// The Lua script given to wrk: its done() prints one "alloclab-wrk" line.
const char* wrk_report_script();

// ok=false with the reason when no request succeeded or errors outnumber successes.
void judge_success(load_result& r);

// "http://127.0.0.1:8080/run?x=y" -> {"http://127.0.0.1:8080", "/run?x=y"}; nullopt if not http.
struct split_url {
  std::string origin;
  std::string target;
};
std::optional<split_url> parse_http_url(const std::string& url);

}  // namespace alloclab::lab::load
