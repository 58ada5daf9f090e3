#include "frames/program/stopping.hpp"

#include "frames/program/figures.hpp"

namespace alloclab::program {

double cpu_seconds_of(const run_record& r) {
  return r.figures.cpu_seconds;
}

double peak_rss_of(const run_record& r) {
  return static_cast<double>(r.figures.peak_rss_bytes);
}

std::vector<lab::round_reading> readings_of(const std::vector<run_row>& rows,
                                            double (*figure)(const run_record&)) {
  std::vector<lab::round_reading> out;
  for (const run_row& row : rows)
    out.push_back({row.round, row.combination, row.record.ok, figure(row.record)});
  return out;
}

lab::round_judged judged_on(const std::vector<variant>& combinations, double noise_floor,
                            double resolution) {
  lab::round_judged judged;
  judged.cells = combinations.size();
  judged.baseline = baseline_of(combinations);
  for (const variant& v : combinations) judged.labels.push_back(v.label());
  judged.noise_floor = noise_floor;
  judged.resolution = resolution;
  return judged;
}

lab::round_judged judged_cpu(const std::vector<variant>& combinations, double noise_floor) {
  return judged_on(combinations, noise_floor, cpu_resolution_seconds);
}

}  // namespace alloclab::program
