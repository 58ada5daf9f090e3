#include "frames/program/figures.hpp"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "frames/program/stopping.hpp"
#include "stats/decision.hpp"

namespace alloclab::program {
namespace {

double median(const std::vector<double>& v) {
  return v.empty() ? 0 : lab::percentile(v, 0.5);
}

// A combination's ok runs: each figure of run_figures in a column (its field list's order), and
// the CPU times and peak RSS the ratios compare.
struct samples {
  std::vector<std::vector<double>> columns;
  std::vector<double> cpu, rss;
};

// Appends each figure of a run to its column.
struct column_appender {
  std::vector<std::vector<double>>& columns;
  std::size_t at = 0;
  template <class M, class... Options>
  void operator()(const M& figure, const char*, const char*, const Options&...) {
    if (columns.size() <= at) columns.resize(at + 1);
    columns[at++].push_back(static_cast<double>(figure));
  }
};

// Sets each figure to its column's median, a count rounded to the nearest (zero: no runs).
struct column_medians {
  const std::vector<std::vector<double>>& columns;
  std::size_t at = 0;
  template <class M, class... Options>
  void operator()(M& figure, const char*, const char*, const Options&...) {
    const double m = at < columns.size() ? median(columns[at]) : 0;
    ++at;
    if constexpr (std::is_integral_v<M>)
      figure = static_cast<M>(m + 0.5);
    else
      figure = m;
  }
};

samples collect(const std::vector<run_row>& rows, std::size_t combination) {
  samples s;
  for (const run_row& row : rows) {
    if (row.combination != combination || !row.record.ok) continue;
    const run_figures& f = row.record.figures;
    column_appender append{s.columns};
    run_figures::fields(f, append);
    s.cpu.push_back(f.cpu_seconds);
    s.rss.push_back(static_cast<double>(f.peak_rss_bytes));
  }
  return s;
}

run_figures medians(const samples& s) {
  run_figures m;
  column_medians set{s.columns};
  run_figures::fields(m, set);
  return m;
}

// B / baseline: with `judged` (the stop rule's comparison of B at the last look of adaptive
// rounds) its ratio, interval and decision; else the ratio of medians with a bootstrap interval.
ratio_figure ratio_of(const std::vector<double>& b, const std::vector<double>& base,
                      const lab::round_comparison* judged, double noise_floor) {
  ratio_figure r;
  if (judged != nullptr) {
    r.value = judged->ratio.value;
    if (judged->ratio.bounded()) r.range = {judged->ratio.low, judged->ratio.high};
    r.decided = judged->decided;  // the U test's power included
  } else {
    const double base_median = median(base);
    r.value = base_median > 0 ? median(b) / base_median : 0;
    r.range = lab::bootstrap_ratio_of_medians(b, base);
  }
  r.p_value = lab::mann_whitney_u(b, base).p_value;
  r.has_power = lab::can_reach_significance(b.size(), base.size());
  r.verdict = lab::judge_difference(r.p_value, r.has_power, r.range, noise_floor);
  return r;
}

// The stop rule's judgement of every combination against the baseline on one figure at
// `stopped_at` (none: none).
std::optional<lab::round_look> judged_at(const std::vector<variant>& combinations,
                                         const std::vector<run_row>& rows,
                                         double (*figure)(const run_record&), double resolution,
                                         double noise_floor,
                                         const std::optional<lab::stop_rule>& stopped_at) {
  if (!stopped_at) return std::nullopt;
  return lab::judge_rounds(readings_of(rows, figure),
                           judged_on(combinations, noise_floor, resolution), *stopped_at);
}

// `cell`'s comparison in `look` (none without a look).
const lab::round_comparison* comparison_of(const std::optional<lab::round_look>& look,
                                           std::size_t cell) {
  if (!look) return nullptr;
  for (const lab::round_comparison& c : look->comparisons)
    if (c.cell == cell) return &c;
  return nullptr;
}

void mark_pareto_front(std::vector<combination_figures>& all) {
  auto dominates = [](const combination_figures& a, const combination_figures& b) {
    const std::uint64_t a_rss = a.median.peak_rss_bytes, b_rss = b.median.peak_rss_bytes;
    const double a_cpu = a.median.cpu_seconds, b_cpu = b.median.cpu_seconds;
    const bool no_worse = a_cpu <= b_cpu && a_rss <= b_rss;
    const bool better = a_cpu < b_cpu || a_rss < b_rss;
    return no_worse && better;
  };
  for (combination_figures& c : all) {
    if (c.runs_ok == 0) continue;
    c.on_pareto_front = std::none_of(all.begin(), all.end(), [&](const combination_figures& o) {
      return o.runs_ok > 0 && dominates(o, c);
    });
  }
}

std::vector<std::uint64_t> distinct_hashes(const std::vector<run_row>& rows, std::size_t index) {
  std::vector<std::uint64_t> hashes;
  for (const run_row& row : rows) {
    if (row.combination != index || !row.record.ok) continue;
    if (std::find(hashes.begin(), hashes.end(), row.record.stdout_hash) == hashes.end())
      hashes.push_back(row.record.stdout_hash);
  }
  return hashes;
}

std::vector<std::string> distinct_failures(const std::vector<run_row>& rows, std::size_t index) {
  std::vector<std::string> reasons;
  for (const run_row& row : rows) {
    if (row.combination != index || row.record.ok) continue;
    if (std::find(reasons.begin(), reasons.end(), row.record.reason) == reasons.end())
      reasons.push_back(row.record.reason);
  }
  return reasons;
}

// "stdout differs: glibc printed 1 version (a1b2…), jemalloc 2 versions (…)". A combination
// whose own runs differ makes the program nondeterministic, not malloc-dependent: said apart.
output_check check_output(const std::vector<combination_figures>& all) {
  output_check check;
  check.checked = true;
  std::vector<std::uint64_t> every;
  bool varies_within = false;
  for (const combination_figures& c : all) {
    varies_within = varies_within || c.stdout_hashes.size() > 1;
    for (std::uint64_t h : c.stdout_hashes)
      if (std::find(every.begin(), every.end(), h) == every.end()) every.push_back(h);
  }
  check.consistent = every.size() <= 1;
  if (check.consistent) return check;
  std::string parts;
  for (const combination_figures& c : all) {
    if (c.stdout_hashes.empty()) continue;
    std::string versions;
    for (std::uint64_t h : c.stdout_hashes)
      versions += (versions.empty() ? "" : ", ") + fmt::format("{:016x}", h);
    parts += (parts.empty() ? "" : "; ") + c.label + ": " + versions;
  }
  check.finding = std::string(varies_within ? "stdout differs from run to run (the program is not "
                                              "deterministic, or depends on its malloc)"
                                            : "stdout differs by malloc") +
                  " — " + std::to_string(every.size()) + " distinct outputs; " + parts;
  return check;
}

}  // namespace

std::size_t baseline_of(const std::vector<variant>& combinations) {
  for (std::size_t i = 0; i < combinations.size(); ++i)
    if (combinations[i].malloc == "glibc" && combinations[i].settings.empty()) return i;
  return 0;
}

program_figures compute_figures(const std::vector<variant>& combinations,
                                const std::vector<run_row>& rows, bool check, double noise_floor,
                                const std::optional<lab::stop_rule>& stopped_at) {
  program_figures out;
  out.baseline = baseline_of(combinations);
  out.noise_floor = noise_floor;
  const samples base = collect(rows, out.baseline);
  std::vector<samples> all;
  for (std::size_t i = 0; i < combinations.size(); ++i) all.push_back(collect(rows, i));
  const auto cpu_look = judged_at(combinations, rows, cpu_seconds_of, cpu_resolution_seconds,
                                  noise_floor, stopped_at);
  const auto rss_look =
      judged_at(combinations, rows, peak_rss_of, rss_resolution_bytes, noise_floor, stopped_at);
  for (std::size_t i = 0; i < combinations.size(); ++i) {
    combination_figures c;
    c.label = combinations[i].label();
    c.malloc = combinations[i].malloc;
    const samples& s = all[i];
    c.runs_ok = s.cpu.size();
    c.runs_failed =
        static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [i](const run_row& r) {
          return r.combination == i && !r.record.ok;
        }));
    c.median = medians(s);
    if (i != out.baseline && c.runs_ok > 0 && !base.cpu.empty()) {
      c.cpu = ratio_of(s.cpu, base.cpu, comparison_of(cpu_look, i), noise_floor);
      c.peak_rss = ratio_of(s.rss, base.rss, comparison_of(rss_look, i), noise_floor);
    }
    c.stdout_hashes = distinct_hashes(rows, i);
    c.failures = distinct_failures(rows, i);
    out.combinations.push_back(std::move(c));
  }
  mark_pareto_front(out.combinations);
  if (check) out.output = check_output(out.combinations);
  return out;
}

const char* cpu_verdict(lab::difference d) {
  switch (d) {
    case lab::difference::lower:
      return "faster";
    case lab::difference::higher:
      return "slower";
    case lab::difference::inside_noise:
      return "inside the noise";
    case lab::difference::too_few:
      return "too few runs";
  }
  return "inside the noise";
}

const char* memory_verdict(lab::difference d) {
  switch (d) {
    case lab::difference::lower:
      return "smaller";
    case lab::difference::higher:
      return "larger";
    case lab::difference::inside_noise:
      return "inside the noise";
    case lab::difference::too_few:
      return "too few runs";
  }
  return "inside the noise";
}

}  // namespace alloclab::program
