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

}  // namespace alloclab::lab
