// What the serve frame measured of a cell in one task: the record's figures
// (records/frame_figures.hpp), one fresh server per repetition, which the serve results cell
// summarises.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/load_result.hpp"
#include "model/fields.hpp"
#include "records/frame_figures.hpp"

namespace alloclab::lab {

// A server's /stats counters after the last generator (what the results cell sums and shows).
struct serve_server_stats {
  std::uint64_t requests = 0, errors = 0;
  std::optional<std::int64_t> pinned_cpu;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.requests, "requests", "responses the server sent");
    field(s.errors, "errors", "requests it answered with an error");
    field(s.pinned_cpu, "pinned_cpu", "the CPU it ran on, or null");
  }
};

// Serve frame: one fresh `alloclab serve` process per repetition, driven by hey, wrk and the
// open-loop ladder (see frames/serve/executor.cpp); each generator's run as it was read
// (load/load_result.hpp), written by the results model's codec.
struct serve_repetition {
  load::load_result hey;                  // closed loop, seed 004's shape (-c 50, fixed duration)
  std::optional<load::load_result> wrk;   // closed loop, the second generator; none: hey alone
  std::vector<load::load_result> ladder;  // open loop, one result per target rate, ascending
  double saturation_rps = 0;  // closed-loop throughput the ladder's rates are fractions of
  serve_server_stats stats;   // the server's /stats after the last generator
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.hey, "hey", "hey's run");
    field(s.wrk, "wrk", "wrk's run, or null");
    field(s.ladder, "ladder", "the open-loop runs");
    field(s.saturation_rps, "saturation_rps", "what the ladder's rates are fractions of");
    field(s.stats, "stats", "the server's counters");
  }
};
// For nlohmann's generated serializers of serve_figures and the record (found by ADL); a
// repetition that is not one throws nlohmann's exception, as the rest of the record does.
inline void to_json(nlohmann::json& j, const serve_repetition& r) {
  j = model::write_json(r);
}
inline void from_json(const nlohmann::json& j, serve_repetition& r) {
  try {
    r = model::read_json<serve_repetition>(j, "/serve/repetitions");
  } catch (const model::model_error& e) {
    throw nlohmann::json::other_error::create(501, e.what(), &j);
  }
}

struct serve_figures {
  std::string pinning;  // what ran on which CPU
  double duration_s = 0;
  unsigned connections = 0;
  std::vector<serve_repetition> repetitions;
};

// What the stop rule reads of a serve task: one map per fresh server, its CPU time per request
// and the time per request of its throughput.
inline std::vector<figure_readings> stop_readings_of(const serve_figures& figures) {
  std::vector<figure_readings> servers;
  for (const serve_repetition& rep : figures.repetitions) {
    figure_readings f;
    if (rep.hey.server) f["cpu_per_request"] = {rep.hey.server->cpu_us_per_request};
    if (rep.hey.throughput_rps > 0) f["time_per_request"] = {1.0 / rep.hey.throughput_rps};
    servers.push_back(std::move(f));
  }
  return servers;
}
inline sample_count timed_samples_of(const serve_figures&) {
  return {};
}

// Field list for nlohmann's generated serializer (found by ADL): the record's transport, from
// worker to parent and through shard files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(serve_figures, pinning, duration_s, connections, repetitions)

}  // namespace alloclab::lab
