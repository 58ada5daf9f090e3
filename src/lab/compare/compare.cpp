#include "compare/compare.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "compare/frame_compare_hook.hpp"
#include "plan/request.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"
#include "stats/decision.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// What compare needs of a cell's timing.
struct compared_timing {
  double p50_ns = 0;
  std::vector<double> repetition_medians_ns;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.p50_ns, "p50_ns", "pooled p50");
    field(s.repetition_medians_ns, "repetition_medians_ns", "one median per repetition");
  }
};

struct side_cell {
  compared_cell id;
  std::optional<compared_timing> timing;
};

std::string key_of(const compared_cell& c) {
  return fmt::format("{} / {} @ {}", c.workload, c.strategy, c.malloc);
}

side_cell side_of(const model::workload& w, const model::cell& c) {
  side_cell s{{w.name, c.head.strategy, c.head.malloc, c.head.status}, std::nullopt};
  if (c.timing) s.timing = compared_timing{c.timing->p50_ns, c.timing->repetition_medians_ns};
  return s;
}

std::vector<side_cell> cells_of(const model::document& d) {
  std::vector<side_cell> out;
  for (const model::workload& w : d.workloads)
    for (const model::cell& c : w.cells) out.push_back(side_of(w, c));
  // A frame measured by a command of its own (`alloclab try`) adds its figures as workloads of
  // cells, so the one comparison rule applies.
  for (const auto& row : frame_compare_hooks())
    if (row.part.compare_workloads != nullptr)
      for (const model::workload& w : row.part.compare_workloads(d))
        for (const model::cell& c : w.cells) out.push_back(side_of(w, c));
  return out;
}

const side_cell* find(const std::vector<side_cell>& cells, const std::string& key) {
  for (const auto& c : cells)
    if (key_of(c.id) == key) return &c;
  return nullptr;
}

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

template <class M>
json json_of(const M& member) {
  return model::codec<M>::write(member);
}
template <class M>
json json_of(const model::omittable<M>& member) {
  return member ? model::codec<M>::write(*member) : json();
}

// What must match for two runs to be compared like for like; a difference is a warning.
class difference_warnings {
 public:
  difference_warnings(std::vector<std::string>& out, const model::document& a,
                      const model::document& b)
      : out_(out), a_(a), b_(b) {}
  template <class M>
  void environment(const char* what, const char* key, M model::environment::*member) const {
    add(what, key, a_.environment.*member, b_.environment.*member);
  }
  template <class M>
  void config(const char* key, M model::run_config::*member) const {
    add("config", key, a_.config.*member, b_.config.*member);
  }

 private:
  template <class M>
  void add(const char* what, const char* key, const M& a, const M& b) const {
    const json va = json_of(a), vb = json_of(b);
    if (va != vb)
      out_.push_back(fmt::format("different {}: {} is '{}' in A, '{}' in B", what, key,
                                 value_text(va), value_text(vb)));
  }
  std::vector<std::string>& out_;
  const model::document &a_, &b_;
};

std::vector<std::string> warnings_of(const model::document& a, const model::document& b) {
  using env = model::environment;
  using config = model::run_config;
  std::vector<std::string> out;
  const difference_warnings w(out, a, b);
  w.environment("machine", "cpu_model", &env::cpu_model);
  w.environment("machine", "logical_cpus", &env::logical_cpus);
  w.environment("machine", "usable_cpus", &env::usable_cpus);
  w.environment("machine", "governor", &env::governor);
  w.environment("machine", "kernel", &env::kernel);
  w.environment("machine", "machine", &env::machine);
  w.environment("machine", "glibc", &env::glibc);
  w.environment("machine", "clocksource", &env::clocksource);
  w.environment("machine", "transparent_hugepages", &env::transparent_hugepages);
  w.environment("build", "compiler", &env::compiler);
  w.environment("build", "cxx_flags", &env::cxx_flags);
  w.environment("build", "build_type", &env::build_type);
  w.environment("build", "build", &env::build);
  w.config("samples_per_repetition", &config::samples_per_repetition);
  w.config("repetitions", &config::repetitions);
  w.config("processes", &config::processes);
  w.config("seed", &config::seed);
  w.config("quick", &config::quick);
  for (const auto& [side, results] : {std::pair{"A", &a}, std::pair{"B", &b}})
    if (results->smoke_test)
      out.push_back(fmt::format(
          "{} is a smoke test (--quick): its few samples make small differences noise", side));
  if (a.debug_build || b.debug_build)
    out.push_back("a DEBUG build is involved: its numbers are meaningless");
  return out;
}

cell_change compare_cell(const side_cell& a, const side_cell& b, double noise_floor) {
  cell_change row;
  row.cell = b.id;
  row.a_status = a.id.status;
  row.decision = verdict_words(difference::too_few, {}, noise_floor, "slower", "faster");
  if (!a.timing || !b.timing) {
    row.note = fmt::format("no timing in {}", !a.timing ? (!b.timing ? "either" : "A") : "B");
    return row;
  }
  const double a50 = a.timing->p50_ns, b50 = b.timing->p50_ns;
  row.a_p50_ns.emplace(a50);
  row.b_p50_ns.emplace(b50);
  if (a50 <= 0) return row;
  row.ratio = b50 / a50;
  const std::vector<double>& ma = a.timing->repetition_medians_ns;
  const std::vector<double>& mb = b.timing->repetition_medians_ns;
  const interval range = bootstrap_ratio_of_medians(mb, ma);
  if (range.high > 0) row.interval = model::interval{range.low, range.high};
  if (!ma.empty() && !mb.empty()) {
    const mann_whitney_result u = mann_whitney_u(ma, mb);
    const bool power = can_reach_significance(ma.size(), mb.size());
    const difference d = judge_difference(u.p_value, power, range, noise_floor);
    row.p_value = u.p_value;
    row.decision = verdict_words(d, range, noise_floor, "slower", "faster");
    row.verdict = verdict_word(d, range, noise_floor, "slower", "faster");
    row.significant = d == difference::higher || d == difference::lower;
    row.mark = significance_mark(u.p_value, power);
  }
  return row;
}

}  // namespace

comparison compare_results(const model::document& a, const model::document& b,
                           const std::string& a_name, const std::string& b_name,
                           double noise_floor_percent) {
  const std::vector<side_cell> cells_a = cells_of(a), cells_b = cells_of(b);
  comparison out;
  out.a = a_name;
  out.b = b_name;
  out.a_created_utc = a.created_utc;
  out.b_created_utc = b.created_utc;
  out.warnings = warnings_of(a, b);
  out.noise_floor_percent = noise_floor_percent;
  out.revisions = {a.environment.git_revision, b.environment.git_revision};
  for (const auto& ca : cells_a) {
    if (const side_cell* cb = find(cells_b, key_of(ca.id)))
      out.common.push_back(compare_cell(ca, *cb, noise_floor_percent / 100));
    else
      out.only_a.push_back(ca.id);
  }
  for (const auto& cb : cells_b)
    if (find(cells_a, key_of(cb.id)) == nullptr) out.only_b.push_back(cb.id);
  if (out.common.empty())
    throw usage_error(fmt::format(
        "'{}' and '{}' have no cell (workload, strategy, malloc) in common", a_name, b_name));
  return out;
}

std::size_t regressions(const comparison& c, double percent) {
  return static_cast<std::size_t>(
      std::count_if(c.common.begin(), c.common.end(), [&](const cell_change& row) {
        return row.significant && row.ratio && *row.ratio > 1 && *row.ratio > 1 + percent / 100;
      }));
}

}  // namespace alloclab::lab
