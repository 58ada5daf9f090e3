#include "merge/fleet.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json value_at(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  return j.contains(p) ? j.at(p) : json(nullptr);
}

// The environment facts a verdict may go with.
json facts_of(const json& results) {
  const json& env = results.at("environment");
  const json twin = results.at("config").value("placement_twin", json());
  return {{"cpu_model", env.value("cpu_model", json())},
          {"logical_cpus", env.value("logical_cpus", json())},
          {"glibc", env.value("glibc", json())},
          {"transparent_hugepages", env.value("transparent_hugepages", json())},
          {"kernel", env.value("kernel", json())},
          {"copy_cliff", value_at(env, "/placement/probe/has_cliff")},
          {"placement_twin", twin.is_null() ? json("not measured") : twin}};
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

verdict claim_verdict(const json& claim) {
  const std::string v = claim.value("verdict", "");
  const bool decided = v == "reproduced" || v == "refuted";
  return {v, decided ? std::optional<std::string>(v) : std::nullopt};
}

verdict comparison_verdict(const json& vs, bool power) {
  const char* metric =
      vs.value("speedup_ns_per_pair", json()).is_number() ? "speedup_ns_per_pair" : "speedup_p50";
  const json value = vs.value(metric, json());
  const json range = value_at(vs, (std::string("/intervals/") + metric).c_str());
  if (!value.is_number()) return {"no ratio", std::nullopt};
  const bool ranged = range.is_object();
  const std::string ratio = ratio_with_interval(
      value.get<double>(),
      ranged ? std::optional<double>(range.at("low").get<double>()) : std::nullopt,
      ranged ? std::optional<double>(range.at("high").get<double>()) : std::nullopt);
  if (!ranged || !vs.value("p_value", json()).is_number())
    return {ratio + " (not judged)", std::nullopt};
  const difference d =
      judge_difference(vs.at("p_value").get<double>(), power,
                       {range.at("low").get<double>(), range.at("high").get<double>()},
                       default_noise_floor_percent / 100);
  if (d == difference::higher) return {"faster " + ratio, "faster than the baseline"};
  if (d == difference::lower) return {"slower " + ratio, "slower than the baseline"};
  return {std::string(to_string(d)) + " " + ratio, std::nullopt};
}

void add_comparisons(std::map<std::string, row>& rows, const std::string& label,
                     const json& workloads, bool power) {
  for (const auto& w : workloads) {
    const std::string name = w.value("name", "");
    const std::string frame = w.value("frame", "batch");
    for (const auto& c : w.value("cells", json::array())) {
      if (!c.value("vs_std", json()).is_object()) continue;
      const std::string id =
          fmt::format("{}/{}/{}/{}", frame, name, c.value("strategy", ""), c.value("malloc", ""));
      row& r = rows[id];
      r.id = id;
      r.what = fmt::format("{} {} / {} @ {} vs the baseline", frame, name, c.value("strategy", ""),
                           c.value("malloc", ""));
      r.by_machine[label] = comparison_verdict(c.at("vs_std"), power);
    }
    for (const auto& s : value_at(w, "/placement/strategies").is_array()
                             ? w.at("placement").at("strategies")
                             : json::array()) {
      const std::string id = fmt::format("placement/{}/{}", name, s.value("strategy", ""));
      row& r = rows[id];
      r.id = id;
      r.what = fmt::format("{} / {}: its ratio to the baseline is placement-driven", name,
                           s.value("strategy", ""));
      const bool driven = s.value("placement_driven", false);
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
json facts_going_with(const std::map<std::string, std::string>& classes,
                      const std::map<std::string, json>& facts) {
  json out = json::array();
  for (const auto& [fact, ignored] : facts.begin()->second.items()) {
    bool splits = true;
    for (const auto& [a, class_a] : classes)
      for (const auto& [b, class_b] : classes)
        if ((class_a == class_b) != (facts.at(a).at(fact) == facts.at(b).at(fact))) splits = false;
    if (!splits) continue;
    json values = json::object();
    for (const auto& [label, f] : facts) values[label] = f.at(fact);
    out.push_back({{"fact", fact}, {"values", values}});
  }
  return out;
}

json rows_json(const std::map<std::string, row>& rows, const std::vector<std::string>& labels,
               const std::map<std::string, json>& facts, json& counts, const char* kind) {
  json out = json::array();
  for (const auto& [id, r] : rows) {
    const auto classes = classes_of(r, labels);
    const char* agreement = agreement_of(classes);
    json verdicts = json::object(), decided = json::object();
    for (const auto& label : labels) {
      const auto it = r.by_machine.find(label);
      verdicts[label] = it == r.by_machine.end() ? not_measured : it->second.text;
      decided[label] = it == r.by_machine.end() || !it->second.decided ? json(nullptr)
                                                                       : json(*it->second.decided);
    }
    const std::string_view a = agreement;
    const bool differs = a == flips || a == decided_on_some || a == measured_on_some;
    out.push_back({{"id", id},
                   {"what", r.what},
                   {"verdicts", verdicts},
                   {"decided", decided},
                   {"agreement", agreement},
                   {"facts", differs ? facts_going_with(classes, facts) : json::array()}});
    json& n = counts[agreement][kind];
    n = n.is_null() ? 1 : n.get<int>() + 1;
  }
  return out;
}

std::string escaped(std::string text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string facts_text(const json& facts) {
  if (facts.empty()) return "no single environment fact splits the machines this way";
  std::vector<std::string> parts;
  for (const auto& f : facts) {
    std::vector<std::string> values;
    for (const auto& [label, v] : f.at("values").items())
      values.push_back(fmt::format("{} {}", label, value_text(v)));
    parts.push_back(
        fmt::format("{} ({})", f.at("fact").get<std::string>(), fmt::join(values, "; ")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A table of `rows` (those of agreement `only`, when given), one column per machine.
void side_by_side(std::string& md, const json& rows, const std::vector<std::string>& labels,
                  const char* only = nullptr) {
  if (only != nullptr && std::none_of(rows.begin(), rows.end(),
                                      [&](const json& r) { return r.at("agreement") == only; }))
    return;
  md += "| conclusion |";
  for (const auto& l : labels) md += " " + l + " |";
  md += " agreement |\n|---|";
  for (std::size_t i = 0; i < labels.size(); ++i) md += "---|";
  md += "---|\n";
  for (const auto& r : rows) {
    const std::string agreement = r.at("agreement");
    if (only != nullptr && agreement != only) continue;
    md += "| " + escaped(r.at("what")) + " |";
    for (const auto& l : labels) md += " " + escaped(r.at("verdicts").at(l)) + " |";
    md += " " + agreement + " |\n";
  }
}

}  // namespace

json fleet_document(const std::vector<fleet_machine>& machines) {
  std::vector<std::string> labels;
  std::map<std::string, json> facts;
  json machine_list = json::array();
  std::map<std::string, row> claims, comparisons;
  for (const fleet_machine& m : machines) {
    labels.push_back(m.label);
    facts[m.label] = facts_of(m.results);
    machine_list.push_back({{"label", m.label}, {"path", m.path}, {"facts", facts[m.label]}});
    for (const auto& c : m.results.value("claims", json::array())) {
      row& r = claims[c.value("id", "")];
      r.id = c.value("id", "");
      r.what = r.id + ": " + c.value("statement", "");
      r.by_machine[m.label] = claim_verdict(c);
    }
    const bool power = value_at(m.results, "/significance/enough_repetitions") == json(true);
    add_comparisons(comparisons, m.label, m.results.at("workloads"), power);
    if (value_at(m.results, "/serve/workloads").is_array())
      add_comparisons(comparisons, m.label, m.results.at("serve").at("workloads"), power);
  }
  json differing = json::array();
  for (const auto& item : facts.begin()->second.items()) {
    const std::string& fact = item.key();
    const json& first = item.value();
    if (std::any_of(facts.begin(), facts.end(),
                    [&](const auto& f) { return f.second.at(fact) != first; }))
      differing.push_back(fact);
  }
  json counts = json::object();
  json claim_rows = rows_json(claims, labels, facts, counts, "claims");
  json comparison_rows = rows_json(comparisons, labels, facts, counts, "comparisons");
  return {{"schema", "alloclab-fleet"},     {"machines", machine_list},
          {"differing_facts", differing},   {"claims", std::move(claim_rows)},
          {"comparisons", comparison_rows}, {"counts", counts}};
}

std::string fleet_markdown(const json& fleet) {
  std::vector<std::string> labels;
  for (const auto& m : fleet.at("machines")) labels.push_back(m.at("label"));
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
  for (const auto& m : fleet.at("machines")) {
    std::vector<std::string> parts;
    for (const auto& [fact, v] : m.at("facts").items())
      parts.push_back(fmt::format("{}: {}", fact, value_text(v)));
    md += fmt::format("| {} | {} | {} |\n", m.at("label").get<std::string>(),
                      escaped(fmt::format("{}", fmt::join(parts, "; "))),
                      m.at("path").get<std::string>());
  }
  md += "\nEnvironment facts that differ: " +
        (fleet.at("differing_facts").empty()
             ? std::string("none")
             : fmt::format("{}", fmt::join(fleet.at("differing_facts"), ", "))) +
        ".\n\n| agreement | claims | comparisons |\n|---|---:|---:|\n";
  for (const char* a :
       {holds_everywhere, flips, decided_on_some, measured_on_some, undecided_everywhere}) {
    const json c = fleet.at("counts").value(a, json::object());
    md += fmt::format("| {} | {} | {} |\n", a, c.value("claims", 0), c.value("comparisons", 0));
  }
  for (const char* a : {flips, decided_on_some}) {
    md += fmt::format("\n## Conclusions that {}\n\n",
                      a == flips ? "flip between machines" : "are decided on some machines only");
    std::size_t n = 0;
    for (const char* kind : {"claims", "comparisons"})
      for (const auto& r : fleet.at(kind))
        if (r.at("agreement") == a) {
          std::vector<std::string> verdicts;
          for (const auto& l : labels)
            verdicts.push_back(l + ": " + r.at("verdicts").at(l).get<std::string>());
          md += fmt::format("- **{}** — {}. Goes with: {}.\n", escaped(r.at("what")),
                            escaped(fmt::format("{}", fmt::join(verdicts, "; "))),
                            facts_text(r.at("facts")));
          ++n;
        }
    if (n == 0) md += "None.\n";
  }
  md += "\n## Conclusions measured on some machines only\n\n";
  std::map<std::string, std::size_t> by_facts;  // what goes with them -> how many
  for (const char* kind : {"claims", "comparisons"})
    for (const auto& r : fleet.at(kind))
      if (r.at("agreement") == measured_on_some) ++by_facts[facts_text(r.at("facts"))];
  if (by_facts.empty()) md += "None.\n";
  for (const auto& [facts, n] : by_facts)
    md += fmt::format("{} conclusion(s); goes with: {}.\n", n, facts);
  if (!by_facts.empty()) {
    md += "\n";
    side_by_side(md, fleet.at("claims"), labels, measured_on_some);
    side_by_side(md, fleet.at("comparisons"), labels, measured_on_some);
  }
  md += "\n## Claims side by side\n\n";
  side_by_side(md, fleet.at("claims"), labels);
  md +=
      "\n## Comparisons side by side\n\nEvery cell's ratio to its workload's baseline (and "
      "every placement verdict), on each machine.\n\n";
  side_by_side(md, fleet.at("comparisons"), labels);
  return md;
}

}  // namespace alloclab::lab
