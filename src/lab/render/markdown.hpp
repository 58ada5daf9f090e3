// report.md and the terminal headline, both rendered from a results document only,
// so a report can be regenerated from any results.json.
#pragma once

#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "model/claims.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

// How a report is rendered: by default exactly what the results file holds.
struct report_options {
  bool claims_rejudged = false;  // the claims were re-judged by this binary (`report --rejudge`)
};

// The results document read into the results model (model::from_json), or already read.
std::string render_report(const nlohmann::json& results, const report_options& options = {});
std::string render_report(const model::document& results, const report_options& options = {});

// Plain-text matrix for the terminal: p50 per workload for std, and each strategy's speedup.
std::string render_headline(const nlohmann::json& results);
std::string render_headline(const model::document& results);

// The headline's last line: how many claims got each verdict, every verdict under its own name.
std::string claims_tally(const std::vector<model::claim_verdict>& claims);

}  // namespace alloclab::lab
