#include "merge/fleet.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "merge/frame_figures_reader.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// The environment facts a verdict may go with.
fact_values facts_of(const model::document& results) {
  const model::environment& env = results.environment;
  const auto& twin = results.config.placement_twin;
  return {{"cpu_model", model::write_json(env.cpu_model)},
          {"logical_cpus", env.logical_cpus},
          {"glibc", env.glibc},
          {"transparent_hugepages", model::write_json(env.transparent_hugepages)},
          {"kernel", env.kernel},
          {"copy_cliff", env.placement ? json(env.placement->probe.has_cliff) : json(nullptr)},
          {"placement_twin", twin && *twin ? json(**twin) : json("not measured")}};
}

// One conclusion's verdict on one machine: its text and, when decided, its direction.
struct verdict {
  std::string text;
  std::optional<std::string> decided;
};

struct row {
  std::string id, what;
  std::map<std::string, verdict> by_machine;  // machine label -> verdict
};

verdict claim_verdict(const model::claim_verdict& claim) {
  const std::string& v = claim.verdict;
  const bool decided = v == "reproduced" || v == "refuted";
  return {v, decided ? std::optional<std::string>(v) : std::nullopt};
}

verdict comparison_verdict(const model::comparison& vs, bool power) {
  const bool per_pair = vs.speedup_ns_per_pair && *vs.speedup_ns_per_pair;
  const std::optional<double> value = per_pair ? *vs.speedup_ns_per_pair : vs.speedup_p50;
  const auto& pair_range = vs.intervals.speedup_ns_per_pair;
  const std::optional<model::interval> range =
      per_pair ? (pair_range ? *pair_range : std::nullopt) : vs.intervals.speedup_p50;
  if (!value) return {"no ratio", std::nullopt};
  const std::string ratio =
      ratio_with_interval(*value, range ? std::optional<double>(range->low) : std::nullopt,
                          range ? std::optional<double>(range->high) : std::nullopt);
  if (!range) return {ratio + " (not judged)", std::nullopt};
  const difference d = judge_difference(vs.p_value, power, {range->low, range->high},
                                        default_noise_floor_percent / 100);
  if (d == difference::higher) return {"faster " + ratio, "faster than the baseline"};
  if (d == difference::lower) return {"slower " + ratio, "slower than the baseline"};
  return {std::string(to_string(d)) + " " + ratio, std::nullopt};
}

// The placement check's verdicts on `w`, from its frame's row.
std::vector<placement_verdict> placement_verdicts_of(const model::workload& w) {
  for (const auto& r : frame_figures_readers())
    if (w.frame == r.name && r.part.placement_verdicts != nullptr)
      return r.part.placement_verdicts(w);
  return {};
}

void add_comparisons(std::map<std::string, row>& rows, const std::string& label,
                     const std::vector<model::workload>& workloads, bool power) {
  for (const model::workload& w : workloads) {
    for (const model::cell& c : w.cells) {
      if (!c.vs_std) continue;
      const model::cell_head& h = c.head;
      const std::string id = fmt::format("{}/{}/{}/{}", w.frame, w.name, h.strategy, h.malloc);
      row& r = rows[id];
      r.id = id;
      r.what =
          fmt::format("{} {} / {} @ {} vs the baseline", w.frame, w.name, h.strategy, h.malloc);
      r.by_machine[label] = comparison_verdict(*c.vs_std, power);
    }
    for (const placement_verdict& s : placement_verdicts_of(w)) {
      const std::string id = fmt::format("placement/{}/{}", w.name, s.strategy);
      row& r = rows[id];
      r.id = id;
      r.what =
          fmt::format("{} / {}: its ratio to the baseline is placement-driven", w.name, s.strategy);
      const bool driven = s.placement_driven;
      r.by_machine[label] = {
          driven ? "placement-driven" : "not shown placement-driven",
          driven ? std::optional<std::string>("placement-driven") : std::nullopt};
    }
  }
}

constexpr const char* not_measured = "not measured";

// Which machines read the same: each machine's class is its decided direction, "undecided", or
// "not measured".
std::map<std::string, std::string> classes_of(const row& r,
                                              const std::vector<std::string>& labels) {
  std::map<std::string, std::string> out;
  for (const auto& label : labels) {
    const auto it = r.by_machine.find(label);
    out[label] = it == r.by_machine.end() ? not_measured
                 : it->second.decided     ? *it->second.decided
                                          : "undecided";
  }
  return out;
}

const char* agreement_of(const std::map<std::string, std::string>& classes) {
  std::set<std::string> decided;
  bool undecided = false, missing = false;
  for (const auto& [label, c] : classes) {
    if (c == not_measured)
      missing = true;
    else if (c == "undecided")
      undecided = true;
    else
      decided.insert(c);
  }
  if (decided.size() > 1) return flips;
  if (missing) return measured_on_some;
  if (decided.empty()) return undecided_everywhere;
  return undecided ? decided_on_some : holds_everywhere;
}

// The facts whose values split the machines exactly as `classes` does.
std::vector<fact_split> facts_going_with(const std::map<std::string, std::string>& classes,
                                         const std::map<std::string, fact_values>& facts) {
  std::vector<fact_split> out;
  for (const auto& [fact, ignored] : facts.begin()->second) {
    bool splits = true;
    for (const auto& [a, class_a] : classes)
      for (const auto& [b, class_b] : classes)
        if ((class_a == class_b) != (facts.at(a).at(fact) == facts.at(b).at(fact))) splits = false;
    if (!splits) continue;
    fact_split split{fact, {}};
    for (const auto& [label, f] : facts) split.values[label] = f.at(fact);
    out.push_back(std::move(split));
  }
  return out;
}

// One row of the report, counted under its agreement in `counts`.
fleet_row fleet_row_of(const row& r, const std::vector<std::string>& labels,
                       const std::map<std::string, fact_values>& facts) {
  const auto classes = classes_of(r, labels);
  fleet_row out{r.id, r.what, {}, {}, agreement_of(classes), {}};
  for (const auto& label : labels) {
    const auto it = r.by_machine.find(label);
    const bool measured = it != r.by_machine.end();
    out.verdicts[label] = measured ? it->second.text : not_measured;
    out.decided[label] = measured ? it->second.decided : std::nullopt;
  }
  const std::string_view a = out.agreement;
  if (a == flips || a == decided_on_some || a == measured_on_some)
    out.facts = facts_going_with(classes, facts);
  return out;
}

std::vector<fleet_row> fleet_rows_of(const std::map<std::string, row>& rows,
                                     const std::vector<std::string>& labels,
                                     const std::map<std::string, fact_values>& facts,
                                     std::map<std::string, fleet_count>& counts,
                                     model::omittable<std::size_t> fleet_count::*kind) {
  std::vector<fleet_row> out;
  for (const auto& [id, r] : rows) {
    out.push_back(fleet_row_of(r, labels, facts));
    auto& n = counts[out.back().agreement].*kind;
    n.emplace(n ? *n + 1 : std::size_t{1});
  }
  return out;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string facts_text(const std::vector<fact_split>& facts) {
  if (facts.empty()) return "no single environment fact splits the machines this way";
  std::vector<std::string> parts;
  for (const fact_split& f : facts) {
    std::vector<std::string> values;
    for (const auto& [label, v] : f.values)
      values.push_back(fmt::format("{} {}", label, value_text(v)));
    parts.push_back(fmt::format("{} ({})", f.fact, fmt::join(values, "; ")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A table of `rows` (those of agreement `only`, when given), one column per machine.
void side_by_side(std::string& md, const std::vector<fleet_row>& rows,
                  const std::vector<std::string>& labels, const char* only = nullptr) {
  if (only != nullptr && std::none_of(rows.begin(), rows.end(),
                                      [&](const fleet_row& r) { return r.agreement == only; }))
    return;
  md += "| conclusion |";
  for (const auto& l : labels) md += " " + l + " |";
  md += " agreement |\n|---|";
  for (std::size_t i = 0; i < labels.size(); ++i) md += "---|";
  md += "---|\n";
  for (const fleet_row& r : rows) {
    if (only != nullptr && r.agreement != only) continue;
    md += "| " + escaped(r.what) + " |";
    for (const auto& l : labels) md += " " + escaped(r.verdicts.at(l)) + " |";
    md += " " + r.agreement + " |\n";
  }
}

// The facts whose value is not the same on every machine.
std::vector<std::string> differing_facts(const std::map<std::string, fact_values>& facts) {
  std::vector<std::string> differing;
  for (const auto& fact : facts.begin()->second)
    if (std::any_of(facts.begin(), facts.end(),
                    [&](const auto& f) { return f.second.at(fact.first) != fact.second; }))
      differing.push_back(fact.first);
  return differing;
}

std::vector<std::string> labels_of(const fleet_report& fleet) {
  std::vector<std::string> labels;
  for (const fleet_machine_entry& m : fleet.machines) labels.push_back(m.label);
  return labels;
}

}  // namespace

fleet_report fleet_document(const std::vector<fleet_machine>& machines) {
  fleet_report fleet;
  std::vector<std::string> labels;
  std::map<std::string, fact_values> facts;
  std::map<std::string, row> claims, comparisons;
  for (const fleet_machine& m : machines) {
    labels.push_back(m.label);
    facts[m.label] = facts_of(m.results);
    fleet.machines.push_back({m.label, m.path, facts[m.label]});
    for (const model::claim_verdict& c : m.results.claims) {
      row& r = claims[c.id];
      r.id = c.id;
      r.what = r.id + ": " + c.statement;
      r.by_machine[m.label] = claim_verdict(c);
    }
    add_comparisons(comparisons, m.label, m.results.workloads,
                    m.results.significance.enough_repetitions);
  }
  fleet.differing_facts = differing_facts(facts);
  fleet.claims = fleet_rows_of(claims, labels, facts, fleet.counts, &fleet_count::claims);
  fleet.comparisons =
      fleet_rows_of(comparisons, labels, facts, fleet.counts, &fleet_count::comparisons);
  return fleet;
}

json fleet_json(const fleet_report& fleet) {
  return model::write_json(fleet);
}

namespace {

// The machines' table and the counts of each agreement.
void machines_section(std::string& md, const fleet_report& fleet) {
  for (const fleet_machine_entry& m : fleet.machines) {
    std::vector<std::string> parts;
    for (const auto& [fact, v] : m.facts)
      parts.push_back(fmt::format("{}: {}", fact, value_text(v)));
    md += fmt::format("| {} | {} | {} |\n", m.label,
                      escaped(fmt::format("{}", fmt::join(parts, "; "))), m.path);
  }
  md +=
      "\nEnvironment facts that differ: " +
      (fleet.differing_facts.empty() ? std::string("none")
                                     : fmt::format("{}", fmt::join(fleet.differing_facts, ", "))) +
      ".\n\n| agreement | claims | comparisons |\n|---|---:|---:|\n";
  for (const char* a :
       {holds_everywhere, flips, decided_on_some, measured_on_some, undecided_everywhere}) {
    const auto c = fleet.counts.find(a);
    const fleet_count n = c == fleet.counts.end() ? fleet_count{} : c->second;
    md += fmt::format("| {} | {} | {} |\n", a, n.claims.value_or(0), n.comparisons.value_or(0));
  }
}

// The rows that flip, then those decided on some machines only, each with what goes with it.
void differences_section(std::string& md, const fleet_report& fleet,
                         const std::vector<std::string>& labels) {
  for (const char* a : {flips, decided_on_some}) {
    md += fmt::format("\n## Conclusions that {}\n\n",
                      a == flips ? "flip between machines" : "are decided on some machines only");
    std::size_t n = 0;
    for (const auto* rows : {&fleet.claims, &fleet.comparisons})
      for (const fleet_row& r : *rows)
        if (r.agreement == a) {
          std::vector<std::string> verdicts;
          for (const auto& l : labels) verdicts.push_back(l + ": " + r.verdicts.at(l));
          md += fmt::format("- **{}** — {}. Goes with: {}.\n", escaped(r.what),
                            escaped(fmt::format("{}", fmt::join(verdicts, "; "))),
                            facts_text(r.facts));
          ++n;
        }
    if (n == 0) md += "None.\n";
  }
}

void measured_on_some_section(std::string& md, const fleet_report& fleet,
                              const std::vector<std::string>& labels) {
  md += "\n## Conclusions measured on some machines only\n\n";
  std::map<std::string, std::size_t> by_facts;  // what goes with them -> how many
  for (const auto* rows : {&fleet.claims, &fleet.comparisons})
    for (const fleet_row& r : *rows)
      if (r.agreement == measured_on_some) ++by_facts[facts_text(r.facts)];
  if (by_facts.empty()) md += "None.\n";
  for (const auto& [facts, n] : by_facts)
    md += fmt::format("{} conclusion(s); goes with: {}.\n", n, facts);
  if (!by_facts.empty()) {
    md += "\n";
    side_by_side(md, fleet.claims, labels, measured_on_some);
    side_by_side(md, fleet.comparisons, labels, measured_on_some);
  }
}

}  // namespace

std::string fleet_markdown(const fleet_report& fleet) {
  const std::vector<std::string> labels = labels_of(fleet);
  std::string md = "# alloclab fleet report\n\nOne build and configuration measured on " +
                   std::to_string(labels.size()) +
                   " machine types. A comparison is decided by the lab's one rule (U test p < "
                   "0.05 and the 95 % interval beyond a 3 % noise floor); a claim by its "
                   "verdict (reproduced or refuted). The facts that go with a difference are the "
                   "environment facts whose values split the machines exactly as its verdicts "
                   "do. With one run per machine a difference may also be that machine's "
                   "run-to-run noise: a fact goes with a difference, it is not shown to cause it "
                   "(`alloclab compare` of two runs of one machine shows its noise).\n\n## "
                   "Machines\n\n| machine | facts | results |\n|---|---|---|\n";
  machines_section(md, fleet);
  differences_section(md, fleet, labels);
  measured_on_some_section(md, fleet, labels);
  md += "\n## Claims side by side\n\n";
  side_by_side(md, fleet.claims, labels);
  md +=
      "\n## Comparisons side by side\n\nEvery cell's ratio to its workload's baseline (and "
      "every placement verdict), on each machine.\n\n";
  side_by_side(md, fleet.comparisons, labels);
  return md;
}

}  // namespace alloclab::lab
