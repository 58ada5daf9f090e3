// Hand-made results documents for tests that judge a few cells (claims_test, serve_frame_test):
// a test writes only the keys it is about, as results.json lays them out, and complete_results
// fills in every other key the results model needs with its type's default, so that the document
// reads into model::document (model::from_json) as a results file would.
//
// Example:
//   const model::document d = model::from_json(complete_results(
//       {{"workloads", {{{"name", "w"}, {"cells", {{{"strategy", "std"}, {"timing", t}}}}}}}}));
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "frames/heap/figures.hpp"
#include "frames/serve/figures.hpp"
#include "model/document.hpp"

namespace alloclab::lab::test {

using json = nlohmann::json;

// `partial` over `defaults`: objects in both are merged key by key, anything else is partial's.
inline json over(json defaults, const json& partial) {
  if (!defaults.is_object() || !partial.is_object()) return partial;
  for (const auto& [key, value] : partial.items())
    defaults[key] = defaults.contains(key) ? over(defaults[key], value) : value;
  return defaults;
}

// The struct's default, written, with `partial` over it; a partial that is not an object stays.
template <class T>
json completed(const json& partial, T defaults = T{}) {
  if (!partial.is_object()) return partial;
  json written = json::object();
  model::write_fields(defaults, written);
  return over(written, partial);
}

// Each element of the array `key` of `object` completed as a T.
template <class T>
void complete_each(json& object, const char* key) {
  if (!object.contains(key) || !object.at(key).is_array()) return;
  for (json& element : object.at(key)) element = completed<T>(element);
}

inline model::cell_head glibc_head() {
  model::cell_head head;
  head.malloc = "glibc";
  head.status = "ok";
  return head;
}

inline json complete_cell(const json& partial) {
  model::cell defaults;
  defaults.head = glibc_head();
  json c = over(model::write_json(defaults), partial);
  c["timing"] = completed<model::timing>(c.at("timing"));
  if (c.contains("ns_per_pair")) c["ns_per_pair"] = completed<pair_cost>(c.at("ns_per_pair"));
  if (c.contains("memory")) c["memory"] = completed<heap_memory>(c.at("memory"));
  return c;
}

// A heap-study workload when a cell has the heap frame's figures, else a batch one.
inline json complete_workload(const json& partial) {
  bool heap = false;
  for (const json& c : partial.value("cells", json::array()))
    heap = heap || c.contains("ns_per_pair") || c.contains("memory");
  model::workload defaults;
  defaults.frame = heap ? "heap" : "batch";
  defaults.kind = heap ? "heap" : "lab";
  json w = over(model::write_json(defaults), partial);
  for (json& c : w.at("cells")) c = complete_cell(c);
  return w;
}

inline json complete_serve(const json& partial) {
  if (!partial.is_object()) return partial;
  json s = completed<serve_section>(partial);
  complete_each<serve_workload>(s, "workloads");
  for (json& w : s.at("workloads"))
    for (json& c : w.at("cells")) {
      serve_cell defaults;
      defaults.head = glibc_head();
      c = completed<serve_cell>(c, defaults);
      c["vs_std"] = completed<serve_comparison>(c.at("vs_std"));
      if (c.at("vs_std").is_object())
        for (auto& [key, estimate] : c.at("vs_std").items())
          if (estimate.is_object()) estimate = completed<serve_estimate>(estimate);
    }
  return s;
}

inline json complete_results(const json& partial) {
  model::document defaults;
  defaults.config.mallocs = {"glibc"};
  json d = over(model::to_json(defaults), partial);
  if (d.at("config").contains("heap"))
    d["config"]["heap"] = completed<heap_sizes>(d.at("config").at("heap"));
  for (json& w : d.at("workloads")) w = complete_workload(w);
  if (d.contains("budget")) {
    d["budget"] = completed<model::budget_facts>(d.at("budget"));
    complete_each<model::budget_comparison>(d.at("budget"), "comparisons");
  }
  if (d.contains("retention_timelines")) {
    d["retention_timelines"] = completed<retention_timelines_figures>(d.at("retention_timelines"));
    complete_each<retention_variant>(d.at("retention_timelines"), "variants");
    if (!d.contains("heap_retention")) d["heap_retention"] = json::array();
  }
  if (d.contains("serve")) d["serve"] = complete_serve(d.at("serve"));
  return d;
}

}  // namespace alloclab::lab::test
