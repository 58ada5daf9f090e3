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

namespace {

// Version 6's keys of every frame's cells, and of every workload, null where a frame has none.
constexpr const char* version6_cell_keys[] = {"heap",        "upstream_fallbacks_per_iteration",
                                              "placement",   "memory",
                                              "ns_per_pair", "memory_frame",
                                              "replay"};
constexpr const char* version6_workload_keys[] = {"footprint", "heap_spec", "placement",
                                                  "peer_verdicts"};

template <class Keys>
void add_nulls(json& object, const Keys& keys) {
  for (const auto& key : keys)
    if (!object.contains(key)) object[key] = nullptr;
}

}  // namespace

void add_version6_keys(json& written) {
  for (json& w : written.at("workloads")) {
    add_nulls(w, version6_workload_keys);
    for (json& c : w.at("cells")) add_nulls(c, version6_cell_keys);
  }
  // The serve frame's cells are its own struct: version 6 gave them every lab cell key too.
  const auto serve = written.find("serve");
  if (serve == written.end() || !serve->is_object()) return;
  for (json& w : serve->at("workloads"))
    for (json& c : w.at("cells")) {
      add_nulls(c, field_names<cell>());
      add_nulls(c, version6_cell_keys);
    }
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
