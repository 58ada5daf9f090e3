#include "model/versions.hpp"

#include <algorithm>
#include <map>

#include "stats/stats.hpp"

namespace alloclab::lab::model {

repetition_summary summarize_repetition_means(const std::vector<double>& means) {
  if (means.empty()) return {};
  const summary s = summarize(means);
  return {s.mean, s.p50, s.stddev, s.cv};
}

namespace {

// The upper median: the middle value, or the higher of the two middle ones.
std::optional<double> upper_median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct spread_values {
  std::vector<double> between, within;
};

}  // namespace

std::vector<workload_spread> workload_spreads(const std::vector<budget_cell>& cells) {
  std::vector<workload_spread> rows;
  std::vector<spread_values> values;
  std::map<std::pair<std::string, std::string>, std::size_t> row_of;
  for (const budget_cell& c : cells) {
    if (c.processes == 0) continue;
    const auto [at, added] = row_of.try_emplace({c.name.frame, c.name.workload}, rows.size());
    if (added) {
      workload_spread row;
      row.frame = c.name.frame;
      row.workload = c.name.workload;
      row.processes_min = row.processes_max = c.processes;
      rows.push_back(std::move(row));
      values.emplace_back();
    }
    workload_spread& r = rows[at->second];
    ++r.cells;
    r.processes_min = std::min(r.processes_min, c.processes);
    r.processes_max = std::max(r.processes_max, c.processes);
    if (const auto& n = c.samples_per_repetition) {
      r.samples_min = std::min(r.samples_min.value_or(*n), *n);
      r.samples_max = std::max(r.samples_max.value_or(*n), *n);
    }
    if (c.between_cv) values[at->second].between.push_back(*c.between_cv);
    if (c.within_cv) values[at->second].within.push_back(*c.within_cv);
    r.between_dominates += c.spread == "between processes";
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].between_cv_median = upper_median(values[i].between);
    rows[i].within_cv_median = upper_median(values[i].within);
  }
  return rows;
}

void upgrade(document& d, int version) {
  if (version < 7)
    for (workload& w : d.workloads)
      for (cell& c : w.cells)
        if (c.timing)
          c.timing->repetition_means_summary =
              summarize_repetition_means(c.timing->repetition_means_ns);
  if (d.budget && *d.budget && !(*d.budget)->spread)
    (*d.budget)->spread = workload_spreads((*d.budget)->cells);
  d.schema_version = schema_version;
}

}  // namespace alloclab::lab::model
