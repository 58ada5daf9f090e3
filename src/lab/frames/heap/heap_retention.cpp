#include "frames/heap/heap_retention.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

constexpr std::array<const char*, 4> settle_times = {"after_free_0ms", "after_free_100ms",
                                                     "after_free_1s", "after_purge"};

json median_and_range(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  return {
      {"median", percentile_sorted(values, 0.5)}, {"min", values.front()}, {"max", values.back()}};
}

bool has_retention(const json& cell) {
  return cell["status"] == "ok" && cell["memory"].is_object() &&
         cell["memory"].contains("retention");
}

}  // namespace

json heap_retention_summary(const json& workloads) {
  std::vector<std::string> mallocs;
  std::map<std::string, std::array<std::vector<double>, settle_times.size()>> kept;
  std::map<std::string, std::string> purge_call;
  for (const auto& w : workloads) {
    if (w.value("kind", "lab") != "heap") continue;
    for (const auto& c : w["cells"]) {
      if (!has_retention(c)) continue;
      const std::string m = c.value("malloc", std::string("glibc"));
      if (kept.find(m) == kept.end()) mallocs.push_back(m);
      for (std::size_t i = 0; i < settle_times.size(); ++i)
        if (const json& v = c["memory"]["retention"][settle_times[i]]; v.is_number())
          kept[m][i].push_back(v.get<double>());
      purge_call[m] = c["memory"]["purge"]["method"].get<std::string>();
    }
  }
  json summary = json::array();
  for (const std::string& m : mallocs) {
    json row = {{"malloc", m}, {"workloads", kept[m][0].size()}, {"purge_call", purge_call[m]}};
    for (std::size_t i = 0; i < settle_times.size(); ++i)
      row[settle_times[i]] = median_and_range(kept[m][i]);
    summary.push_back(std::move(row));
  }
  return summary;
}

namespace {

json median_or_null(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, 0.5);
}

}  // namespace

json retention_timelines_summary(const json& timelines, double horizon_s) {
  if (!timelines.is_array() || timelines.empty()) return nullptr;
  json variants = json::array();
  for (const json& t : timelines) {
    const json& spec = t.at("spec");
    const std::string malloc = spec.at("malloc");
    const bool background = spec.at("background_thread");
    const std::string load = spec.at("light_load").get<bool>() ? "light" : "idle";
    json* row = nullptr;
    for (json& v : variants)
      if (v["malloc"] == malloc && v["background_thread"] == background && v["load"] == load)
        row = &v;
    if (row == nullptr) {
      variants.push_back({{"malloc", malloc},
                          {"background_thread", background},
                          {"load", load},
                          {"workloads", json::object()},
                          {"failures", json::array()}});
      row = &variants.back();
    }
    const std::string workload = "fifo_" + spec.at("dist").get<std::string>();
    if (t.at("status") != "ok") {
      (*row)["failures"].push_back(workload + ": " + t.value("reason", json("")).dump());
      continue;
    }
    const json& r = t.at("retention");
    (*row)["workloads"][workload] = {{"kept", r.at("kept")},
                                     {"kept_unreclaimable", r.at("kept_unreclaimable")}};
  }
  for (json& v : variants) {
    std::vector<double> kept, unreclaimable;
    for (const auto& [name, w] : v["workloads"].items()) {
      if (w["kept"].is_number()) kept.push_back(w["kept"].get<double>());
      if (w["kept_unreclaimable"].is_number())
        unreclaimable.push_back(w["kept_unreclaimable"].get<double>());
    }
    v["median_kept"] = median_or_null(kept);
    v["median_kept_unreclaimable"] = median_or_null(unreclaimable);
  }
  return {{"horizon_s", horizon_s},
          {"figure",
           "share of the heap growth (peak RSS - baseline) still resident at the horizon; "
           "kept_unreclaimable leaves out LazyFree (pages freed with MADV_FREE, which the kernel "
           "takes back when it needs them)"},
          {"variants", variants},
          {"timelines", timelines}};
}

}  // namespace alloclab::lab
