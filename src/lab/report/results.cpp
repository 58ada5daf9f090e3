#include "results.hpp"

#include <fmt/format.h>

#include "environment.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

const char* status_name(cell_status s) {
  switch (s) {
    case cell_status::ok:
      return "ok";
    case cell_status::overflowed:
      return "overflowed";
    case cell_status::not_applicable:
      return "not_applicable";
  }
  return "unknown";
}

nlohmann::json or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json footprint_json(const workload_footprint& f) {
  return {{"allocations", f.allocations},
          {"bytes_requested", f.bytes_requested},
          {"peak_bytes", f.peak_bytes},
          {"peak_blocks", f.peak_blocks},
          {"largest_request", f.largest_request},
          {"monotonic_footprint", f.monotonic_footprint},
          {"suggested_arena_bytes", f.suggested_arena_bytes}};
}

}  // namespace

nlohmann::json timing_json(const cell_measurement& c, std::size_t batch) {
  const summary s = summarize(c.samples_ns);
  return {{"samples", s.count},
          {"iterations_per_sample", batch},
          {"timed_iterations", c.timed_iterations},
          {"min_ns", s.min},
          {"p50_ns", s.p50},
          {"p90_ns", s.p90},
          {"p99_ns", s.p99},
          {"p999_ns", s.p999},
          {"max_ns", s.max},
          {"mean_ns", s.mean},
          {"stddev_ns", s.stddev},
          {"cv", s.cv},
          {"jitter_ns", s.jitter},
          {"throughput_per_s", s.mean > 0 ? 1e9 / s.mean : 0.0},
          {"repetition_medians_ns", c.repetition_medians_ns},
          {"repetition_p99_ns", c.repetition_p99_ns}};
}

namespace {

nlohmann::json cell_json(const cell_measurement& c, std::size_t batch,
                         const std::string& malloc_label) {
  const bool timed = c.status == cell_status::ok && !c.samples_ns.empty();
  const bool counted = c.status != cell_status::not_applicable;
  nlohmann::json j = unmeasured_cell(c.strategy, malloc_label, status_name(c.status), c.reason);
  j["warning"] = or_null(c.warning);
  j["buffer_bytes"] = c.buffer_bytes;
  if (counted) {
    j["heap"] = {{"allocations_per_iteration", c.heap_allocations_per_iteration},
                 {"bytes_per_iteration", c.heap_bytes_per_iteration}};
    j["upstream_fallbacks_per_iteration"] = c.upstream_fallbacks_per_iteration;
  }
  if (timed) {
    j["timing"] = timing_json(c, batch);
    const double per_thousand = c.timed_iterations ? 1000.0 * static_cast<double>(c.minor_faults) /
                                                         static_cast<double>(c.timed_iterations)
                                                   : 0.0;
    j["os"] = {{"minor_faults_per_1000_iterations", per_thousand},
               {"peak_rss_growth_kib", c.peak_rss_growth_kib}};
  }
  return j;
}

// Ratios against the baseline cell of the same workload, with the U test over repetition medians.
void add_comparison(nlohmann::json& cell, const nlohmann::json& baseline, bool power) {
  cell["vs_std"] = nullptr;
  if (cell["timing"].is_null() || baseline["timing"].is_null()) return;
  const auto& t = cell["timing"];
  const auto& b = baseline["timing"];
  const auto x = b["repetition_medians_ns"].get<std::vector<double>>();
  const auto y = t["repetition_medians_ns"].get<std::vector<double>>();
  const mann_whitney_result test = mann_whitney_u(x, y);
  auto ratio = [](double num, double den) {
    return den > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr);
  };
  cell["vs_std"] = {{"speedup_p50", ratio(b["p50_ns"], t["p50_ns"])},
                    {"speedup_mean", ratio(b["mean_ns"], t["mean_ns"])},
                    {"p99_ratio", ratio(b["p99_ns"], t["p99_ns"])},
                    {"jitter_ratio", ratio(b["jitter_ns"], t["jitter_ns"])},
                    {"cv_ratio", ratio(b["cv"], t["cv"])},
                    {"throughput_ratio", ratio(t["throughput_per_s"], b["throughput_per_s"])},
                    {"mann_whitney_u", test.u},
                    {"p_value", test.p_value},
                    {"exact_test", test.exact},
                    {"significant", power && test.p_value < significance_alpha},
                    {"mark", significance_mark(test.p_value, power)}};
}

nlohmann::json workload_json(const workload_measurement& w, const std::string& malloc_label,
                             bool power) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : w.cells) cells.push_back(cell_json(c, w.batch_size, malloc_label));
  nlohmann::json workload = {
      {"name", w.name},
      {"description", w.description},
      {"kind", "lab"},
      {"checksum", fmt::format("{:#018x}", w.checksum)},
      {"batch_size", w.batch_size},
      {"batched", w.batch_size > 1},
      {"footprint", footprint_json(w.footprint)},
      {"heap_spec", nullptr},
      {"baseline", {{"strategy", baseline_strategy}, {"malloc", malloc_label}}},
      {"cells", cells}};
  add_comparisons(workload, power);
  return workload;
}

}  // namespace

nlohmann::json unmeasured_cell(const std::string& strategy, const std::string& malloc,
                               const std::string& status, const std::string& reason) {
  return {{"strategy", strategy},  {"malloc", malloc},
          {"status", status},      {"reason", or_null(reason)},
          {"warning", nullptr},    {"buffer_bytes", 0},
          {"heap", nullptr},       {"upstream_fallbacks_per_iteration", nullptr},
          {"timing", nullptr},     {"os", nullptr},
          {"vs_std", nullptr},     {"live_allocator", nullptr},
          {"worker", nullptr},     {"memory", nullptr},
          {"ns_per_pair", nullptr}};
}

void add_comparisons(nlohmann::json& workload, bool power) {
  const auto& wanted = workload["baseline"];
  nlohmann::json* baseline = nullptr;
  for (auto& c : workload["cells"])
    if (c["strategy"] == wanted["strategy"] && c["malloc"] == wanted["malloc"]) baseline = &c;
  for (auto& c : workload["cells"]) {
    if (baseline != nullptr && &c != baseline)
      add_comparison(c, *baseline, power);
    else
      c["vs_std"] = nullptr;
  }
}

std::vector<std::string> collect_warnings(const nlohmann::json& results) {
  std::vector<std::string> warnings;
  if (results.value("debug_build", false))
    warnings.push_back("DEBUG build: these numbers measure unoptimised code and mean nothing");
  const auto& sig = results.at("significance");
  if (!sig.at("enough_repetitions").get<bool>())
    warnings.push_back(
        fmt::format("{} repetitions are too few for the Mann-Whitney U test to reach p < {} "
                    "(smallest possible p = {:.3f}); significance marks are '?'",
                    results.at("config").at("repetitions").get<std::size_t>(), significance_alpha,
                    sig.at("smallest_possible_p").get<double>()));
  const std::size_t mallocs = results.at("config").value("mallocs", nlohmann::json::array()).size();
  for (const auto& w : results.at("workloads"))
    for (const auto& c : w.at("cells")) {
      const std::string status = c.at("status");
      std::string where = fmt::format("{} / {}", w.at("name").get<std::string>(),
                                      c.at("strategy").get<std::string>());
      if (mallocs > 1 || c.value("malloc", "glibc") != "glibc")
        where += " @ " + c.value("malloc", std::string("glibc"));
      if (status != "ok" && status != "not_applicable")
        warnings.push_back(
            fmt::format("{}: {}{}", where, status == "overflowed" ? "" : status + ": ",
                        c.at("reason").is_string() ? c.at("reason").get<std::string>() : ""));
      if (c.at("warning").is_string())
        warnings.push_back(fmt::format("{}: {}", where, c.at("warning").get<std::string>()));
    }
  return warnings;
}

bool test_has_power(std::size_t repetitions) {
  return mann_whitney_min_p(repetitions, repetitions) < significance_alpha;
}

std::string significance_mark(double p_value, bool power) {
  if (!power) return "?";
  if (p_value < 0.01) return "**";
  if (p_value < significance_alpha) return "*";
  return "n.s.";
}

nlohmann::json build_results(const run_measurement& run, const results_context& context) {
  const bool debug = !context.build.benchmark_ready();
  const double min_p = mann_whitney_min_p(run.config.repetitions, run.config.repetitions);
  const bool power = test_has_power(run.config.repetitions);

  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : run.workloads)
    workloads.push_back(workload_json(w, run.config.malloc_label, power));

  nlohmann::json results = {
      {"schema", "alloclab-results"},
      {"schema_version", results_schema_version},
      {"created_utc", context.created_utc},
      {"command", context.command_line},
      {"debug_build", debug},
      {"config",
       {{"workloads", run.config.workloads},
        {"strategies", run.config.strategies},
        {"mallocs", {run.config.malloc_label}},
        {"samples_per_repetition", run.config.samples_per_repetition},
        {"repetitions", run.config.repetitions},
        {"processes", run.config.processes},
        {"seed", run.config.seed},
        {"quick", run.config.quick},
        {"counted_iterations", run.config.counted_iterations}}},
      {"environment", describe_environment(context.build)},
      {"timer", describe_timer(run.clock)},
      {"duration_seconds", run.duration_seconds},
      {"significance",
       {{"test", "Mann-Whitney U, two-sided, over per-repetition medians"},
        {"alpha", significance_alpha},
        {"smallest_possible_p", min_p},
        {"enough_repetitions", power}}},
      {"warnings", nlohmann::json::array()},
      {"workloads", workloads},
      {"claims", nlohmann::json::array()},
  };
  results["warnings"] = collect_warnings(results);
  return results;
}

}  // namespace alloclab::lab
