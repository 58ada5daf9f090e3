#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/serve/frame.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"

// The serve frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// The median over repetitions of a number at `pointer` in each JSON; null when one lacks it.
json median_at(const std::vector<const json*>& runs, const char* pointer) {
  std::vector<double> values;
  for (const json* run : runs) {
    const json& v = run->value(json::json_pointer(pointer), json());
    if (!v.is_number()) return nullptr;
    values.push_back(v.get<double>());
  }
  return values.empty() ? json(nullptr) : json(median_of(values));
}

std::vector<double> series_at(const std::vector<const json*>& runs, const char* pointer) {
  std::vector<double> values;
  for (const json* run : runs) {
    const json& v = run->value(json::json_pointer(pointer), json());
    if (v.is_number()) values.push_back(v.get<double>());
  }
  return values;
}

std::uint64_t sum_at(const std::vector<const json*>& runs, const char* key) {
  std::uint64_t total = 0;
  for (const json* run : runs) total += run->value(key, std::uint64_t{0});
  return total;
}

// One generator over the repetitions (load_result JSONs): medians, sums and the per-repetition
// series the intervals are drawn from.
json generator_summary(const std::vector<const json*>& runs) {
  if (runs.empty()) return nullptr;
  json per_repetition = json::object();
  for (const auto& [name, pointer] :
       {std::pair{"throughput_rps", "/throughput_rps"}, std::pair{"p50_ms", "/latency_ms/p50"},
        std::pair{"p99_ms", "/latency_ms/p99"}, std::pair{"mean_ms", "/latency_ms/mean"},
        std::pair{"workload_mean_us", "/server/workload_mean_us"},
        std::pair{"cpu_us_per_request", "/server/cpu_us_per_request"}})
    per_repetition[name] = series_at(runs, pointer);
  return {{"generator", runs.front()->value("generator", std::string())},
          {"command", runs.front()->value("command", json::array())},
          {"requests", sum_at(runs, "requests")},
          {"errors", sum_at(runs, "errors")},
          {"duration_s", median_at(runs, "/duration_s")},
          {"target_rate_rps", median_at(runs, "/target_rate_rps")},
          {"throughput_rps", median_at(runs, "/throughput_rps")},
          {"p50_ms", median_at(runs, "/latency_ms/p50")},
          {"p90_ms", median_at(runs, "/latency_ms/p90")},
          {"p99_ms", median_at(runs, "/latency_ms/p99")},
          {"p999_ms", median_at(runs, "/latency_ms/p99.9")},
          {"mean_ms", median_at(runs, "/latency_ms/mean")},
          {"server",
           {{"workload_mean_us", median_at(runs, "/server/workload_mean_us")},
            {"workload_p99_us", median_at(runs, "/server/workload_p99_us")},
            {"cpu_us_per_request", median_at(runs, "/server/cpu_us_per_request")},
            {"share_of_cpu", median_at(runs, "/server/share_of_cpu")},
            {"share_of_latency", median_at(runs, "/server/share_of_latency")}}},
          {"per_repetition", per_repetition}};
}

json serve_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_json(cell_head(spec, rs));
  for (const char* key : {"hey", "wrk", "ladder", "server", "batch"}) cell[key] = nullptr;
  if (rs.broken() != nullptr) return cell;
  std::vector<const serve_repetition*> reps;
  for (const auto* r : rs.parts)
    for (const auto& rep : r->serve->repetitions) reps.push_back(&rep);
  if (reps.empty()) return cell;
  std::vector<const json*> hey, wrk;
  for (const auto* rep : reps) {
    hey.push_back(&rep->hey);
    wrk.push_back(&rep->wrk);
  }
  cell["processes"] = reps.size();  // one fresh server per repetition
  cell["hey"] = generator_summary(hey);
  cell["wrk"] = wrk.front()->is_object() ? generator_summary(wrk) : json(nullptr);  // hey alone
  json ladder = json::array();
  for (std::size_t step = 0; step < reps.front()->ladder.size(); ++step) {
    std::vector<const json*> runs;
    for (const auto* rep : reps)
      if (step < rep->ladder.size()) runs.push_back(&rep->ladder[step]);
    ladder.push_back(generator_summary(runs));
  }
  cell["ladder"] = std::move(ladder);
  std::vector<double> saturation;
  std::uint64_t requests = 0, errors = 0;
  for (const auto* rep : reps) {
    saturation.push_back(rep->saturation_rps);
    requests += rep->stats.value("requests", std::uint64_t{0});
    errors += rep->stats.value("errors", std::uint64_t{0});
  }
  cell["server"] = {{"saturation_rps", median_of(saturation)},
                    {"requests", requests},
                    {"errors", errors},
                    {"pinned_cpu", reps.front()->stats.value("pinned_cpu", json())},
                    {"pinning", rs.parts.front()->serve->pinning}};
  return cell;
}

json serve_estimate(const json& base, const json& cell, const char* generator, const char* figure,
                    bool higher_is_better) {
  const auto series = [&](const json& c) {
    if (!c.value(generator, json()).is_object()) return std::vector<double>{};
    const json& v = c.value(
        json::json_pointer(fmt::format("/{}/per_repetition/{}", generator, figure)), json());
    return v.is_array() ? v.get<std::vector<double>>() : std::vector<double>{};
  };
  std::vector<double> b = series(base), c = series(cell);
  if (!higher_is_better) std::swap(b, c);  // > 1 favours the candidate
  const auto r = ratio_of_repetition_medians(c, b);
  if (!r) return nullptr;
  return {{"value", r->value},
          {"interval", interval_json(r->range)},
          {"repetitions", std::min(b.size(), c.size())}};
}

// Each variant against the baseline variant, over repetitions (fresh servers).
json serve_comparison(const json& base, const json& cell) {
  if (cell["hey"].is_null() || base["hey"].is_null()) return nullptr;
  return {{"throughput_ratio_hey", serve_estimate(base, cell, "hey", "throughput_rps", true)},
          {"throughput_ratio_wrk", serve_estimate(base, cell, "wrk", "throughput_rps", true)},
          {"p50_ratio_hey", serve_estimate(base, cell, "hey", "p50_ms", false)},
          {"p99_ratio_hey", serve_estimate(base, cell, "hey", "p99_ms", false)},
          {"p50_ratio_wrk", serve_estimate(base, cell, "wrk", "p50_ms", false)},
          {"p99_ratio_wrk", serve_estimate(base, cell, "wrk", "p99_ms", false)},
          {"workload_time_ratio", serve_estimate(base, cell, "hey", "workload_mean_us", false)},
          {"cpu_per_request_ratio", serve_estimate(base, cell, "hey", "cpu_us_per_request", false)},
          {"intervals",
           "percentile bootstrap over repetitions (one fresh server each): ratio of medians; "
           "> 1 favours the candidate"}};
}

// The same variant in the batch frame, and Amdahl's law: a workload that is a share f of the
// server's CPU per request, made s times faster (the batch speedup), makes the server
// 1 / ((1 - f) + f / s) times faster; closed-loop throughput on a saturated server follows that.
json batch_beside(const json& serve_base, const json& cell, const json* batch_workload) {
  const json* batch = nullptr;
  if (batch_workload != nullptr)
    for (const auto& c : batch_workload->at("cells"))
      if (c["strategy"] == cell["strategy"] && c["malloc"] == cell["malloc"] &&
          !c.value("placement_twin", false))
        batch = &c;
  if (batch == nullptr || batch->at("timing").is_null()) return nullptr;
  json out = {{"p50_ns", batch->at("timing").at("p50_ns")},
              {"speedup_p50", nullptr},
              {"workload_share", nullptr},
              {"allocator_share_removed", nullptr},
              {"predicted_serve_ratio", nullptr},
              {"predicted_serve_interval", nullptr},
              {"measured_serve_ratio", nullptr}};
  const json& vs = batch->at("vs_std");
  if (vs.is_object() && vs["speedup_p50"].is_number())
    out["speedup_p50"] = {{"value", vs["speedup_p50"]},
                          {"interval", vs["intervals"]["speedup_p50"]},
                          {"mark", vs["mark"]}};
  const json& share = serve_base.value(json::json_pointer("/hey/server/share_of_cpu"), json());
  if (share.is_number()) out["workload_share"] = share;
  if (share.is_number() && vs.is_object() && vs["speedup_p50"].is_number()) {
    const double f = std::clamp(share.get<double>(), 0.0, 1.0);
    const double s = vs["speedup_p50"].get<double>();
    // The share of the baseline's request time the variant's allocation strategy takes away
    // (negative: adds): what is left of a batch speedup once a request does everything else too.
    const auto amdahl = [f](double speedup) { return amdahl_ratio(f, speedup); };
    out["allocator_share_removed"] = f * (1.0 - 1.0 / s);
    out["predicted_serve_ratio"] = amdahl(s);
    // Amdahl rises with s, so the batch interval's ends bound the prediction (f held fixed).
    const json& range = out["speedup_p50"]["interval"];
    if (range.is_object())
      out["predicted_serve_interval"] = {{"low", amdahl(range["low"].get<double>())},
                                         {"high", amdahl(range["high"].get<double>())}};
  }
  if (cell["vs_std"].is_object())
    out["measured_serve_ratio"] = cell["vs_std"]["throughput_ratio_hey"];
  return out;
}

json serve_results(const frame_results_input& in, const json& workloads) {
  const run_plan& plan = in.plan;
  if (!has_frame(plan, frame::serve)) return nullptr;
  const auto entry = [&plan](const std::string& name, json cells, const auto&) {
    const json baseline = {{"strategy", baseline_strategy}, {"malloc", plan.mallocs.front().label}};
    return json{{"name", name}, {"baseline", baseline}, {"cells", std::move(cells)}};
  };
  // Each variant against the baseline variant, and beside the same variant in the batch frame.
  const auto finish = [&workloads](json& w) {
    const json built = w;  // the cells before any comparison is added to them
    const json* base =
        find_cell(built, baseline_strategy, built["baseline"]["malloc"].get<std::string>());
    const json* batch_workload = nullptr;
    for (const auto& b : workloads)
      if (b["name"] == built["name"] && b["kind"] == "lab") batch_workload = &b;
    for (auto& c : w["cells"]) {
      c["vs_std"] = base != nullptr && c != *base ? serve_comparison(*base, c) : json(nullptr);
      if (base != nullptr) c["batch"] = batch_beside(*base, c, batch_workload);
    }
  };
  std::vector<std::string> served;  // the lab workloads with a served variant
  for (const std::string& name : plan.workloads.lab)
    if (std::any_of(plan.cells.begin(), plan.cells.end(), [&](const cell_spec& c) {
          return c.frame == frame::serve && c.workload == name;
        }))
      served.push_back(name);
  json serve_workloads = json::array();
  add_workloads(in, served, {frame::serve, serve_cell, entry, finish}, serve_workloads);
  std::vector<double> fractions(std::begin(serve_ladder_fractions),
                                std::end(serve_ladder_fractions));
  return {{"duration_s", plan.sizes.serve_duration_s},
          {"generators", plan.sizes.serve_hey_only ? "hey" : "hey and wrk"},
          {"connections", serve_connections},
          {"repetitions", plan.sizes.serve_repetitions},
          {"ladder_fractions", fractions},
          {"workloads", std::move(serve_workloads)}};
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
      plan.sizes.serve_repetitions, serve_connections, plan.sizes.serve_duration_s);
}

void add_serve_results(const frame_results_input& in, json& results) {
  results["serve"] = serve_results(in, results["workloads"]);
}

}  // namespace alloclab::lab
