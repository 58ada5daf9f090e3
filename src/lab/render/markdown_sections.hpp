// report.md's sections that markdown.cpp assembles: each frame's (frames/<frame>/
// report_markdown.cpp, named by its frame-table row), the closing sections every report shares and
// the seeds' published tables. Each appends to `md` from the results document `r` alone (the
// results model, or its JSON for the sections not yet converted), and a frame's section writes
// nothing when its frame has no data in `r`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace alloclab::lab::model {
struct document;
}

namespace alloclab::lab::markdown {

void batch_section(std::string& md, const nlohmann::json& r);
void heap_section(std::string& md, const model::document& r);
void replay_section(std::string& md, const model::document& r);
void memory_section(std::string& md, const model::document& r);
void serve_section(std::string& md, const nlohmann::json& r);

// The run's time account and the machine's noise (markdown_budget.cpp): the budget section, the
// noise line under the title, and the console summary's budget line ("" when not budgeted). The
// budget section's spread table reads the model `d` (of the same file as `r`).
void budget_section(std::string& md, const nlohmann::json& r, const model::document& d);
void noise_line(std::string& md, const nlohmann::json& r);
std::string budget_headline(const nlohmann::json& r);

// Every report's closing sections (markdown_method.cpp): how the run measured, and the machine.
void method_section(std::string& md, const nlohmann::json& r);
void environment_section(std::string& md, const nlohmann::json& r);

// The seeds' published tables of `frame` ("batch" or "serve"), from `tables` (the
// "published_tables" of claims/seed_claims.json), each row beside this run's cell.
void published_tables(std::string& md, const nlohmann::json& r, const nlohmann::json& tables,
                      const std::string& frame);

}  // namespace alloclab::lab::markdown
