// The results model's claims: each seed claim's verdict, judged once when the results were built,
// and the seeds' published tables copied beside the run's cells.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <typeinfo>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab::model {

struct claim_estimate {
  std::string malloc;
  double value = 0;
  std::optional<double> low, high;
  static constexpr const char* about_type = "a measured ratio behind a verdict";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "the malloc judged");
    field(s.value, "value", "the ratio");
    field(s.low, "low", "its interval's lower end, null without an interval");
    field(s.high, "high", "its interval's upper end, null without an interval");
  }
};

struct claim_verdict {
  std::string id, seed, source, statement, workload, candidate, metric, verdict, measured;
  std::optional<interval> accepted;
  std::vector<claim_estimate> estimates;
  std::string detail;
  static constexpr const char* about_type =
      "one verdict per seed claim (`src/lab/claims/seed_claims.json`), judged when the results "
      "were built";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.id, "id", "from the claims file");
    field(s.seed, "seed", "from the claims file");
    field(s.source, "source", "from the claims file");
    field(s.statement, "statement", "from the claims file");
    field(s.workload, "workload", "from the claims file (empty for unmeasurable claims)");
    field(s.candidate, "candidate",
          "from the claims file; carries `@ malloc` where a claim names one");
    field(s.metric, "metric", "from the claims file");
    field(s.verdict, "verdict",
          "`inconclusive`: the interval straddles the accepted range; `not measured in this "
          "run`: a cell it needs was not part of the run (`detail` says how to run it); `not "
          "measurable here`: the cell ran but has no number, or the claim cannot be measured on "
          "this machine",
          one_of{"reproduced", "refuted", "inconclusive", "not judged: too few samples",
                 "not measured in this run", "not measurable here"});
    field(s.measured, "measured",
          "the measured figure with its interval, e.g. `1.27x [1.21, 1.33]`, or `-`");
    field(s.accepted, "accepted",
          "the ratio range the claim accepts (claimed value widened by its tolerance); null for "
          "claims that are not a ratio or were not judged",
          may_be_absent);
    field(s.estimates, "estimates",
          "the measured ratios behind the verdict, one per malloc judged; empty when nothing "
          "was measured",
          may_be_absent);
    field(s.detail, "detail",
          "accepted range and U-test p for speed claims, or why it could not be measured");
  }
};

struct published_row {
  std::string variant, strategy, malloc;
  double p50 = 0, p99 = 0, throughput_per_s = 0;
  static constexpr const char* about_type = "one row of a seed's published table";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.variant, "variant", "the seed's name for it");
    field(s.strategy, "strategy", "the strategy that measures it here");
    field(s.malloc, "malloc", "the malloc that measures it here");
    field(s.p50, "p50", "the seed's p50, in `unit`");
    field(s.p99, "p99", "the seed's p99, in `unit`");
    field(s.throughput_per_s, "throughput_per_s", "the seed's throughput", at_least(0));
  }
};

// A published row's JSON is its fields, each figure as the seed's file gives it: a whole number
// stays an integer (results.json copies the seeds' tables; `128924` must not become `128924.0`).
template <>
struct codec<published_row> {
  static json write(const published_row& row) {
    json out = json::object();
    write_fields(row, out);
    for (const char* key : {"p50", "p99", "throughput_per_s"}) {
      const double v = out.at(key).get<double>();
      if (v == std::floor(v) && std::abs(v) < 9.0e15) out[key] = static_cast<std::int64_t>(v);
    }
    return out;
  }
  static void read(const json& j, published_row& row, const std::string& where) {
    read_fields(j, row, where);
  }
  static json schema() {
    const detail::field_schema f = fields_schema<published_row>();
    return {{"type", "object"}, {"required", f.required}, {"properties", f.properties}};
  }
  static std::string type_text() { return "object"; }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return describe_fields<published_row>(sink, path, typeid(published_row).name());
  }
};

struct published_table {
  std::string id, seed, frame, workload, title, about, fill_with, unit;
  std::vector<published_row> rows;
  static constexpr const char* about_type = "";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.id, "id", "the table's id");
    field(s.seed, "seed", "the seed that published it");
    field(s.frame, "frame", "where the run's figures for its rows come from",
          one_of{"batch", "serve"});
    field(s.workload, "workload", "the workload whose cells fill it");
    field(s.title, "title", "its heading");
    field(s.about, "about", "what the seed measured");
    field(s.fill_with, "fill_with", "a command that measures every row");
    field(s.unit, "unit", "unit of the published p50 and p99", one_of{"us", "ms"});
    field(s.rows, "rows", "its rows");
  }
};

}  // namespace alloclab::lab::model
