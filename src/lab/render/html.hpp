// report.html: one self-contained page rendered from a results document only. The tables are
// report.md's (converted with md4c), the charts are drawn in the browser by Chart.js, which is
// inlined with the data: the page makes no network request.
//
// Example:
//   const std::string page = alloclab::lab::render_html_report(results);
//   write_file_atomically(directory / "report.html", page);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "render/markdown.hpp"

namespace alloclab::lab {

// The page of a results file as read (`alloclab report --html`): its charts read the file's JSON.
std::string render_html_report(const nlohmann::json& results, const report_options& options = {});
// The page of a results model: report.md as rendered from it, and `written`, the model as
// results.json holds it (model::to_json(results), which the charts read). The run-directory
// writer passes the one serialisation it wrote.
std::string render_html_report(const model::document& results, const std::string& report_md,
                               const nlohmann::json& written);

// GitHub-flavoured Markdown (tables included) to HTML, via md4c.
std::string markdown_to_html(const std::string& markdown);

// A complete page: the report's style sheet, `body_html`, then `data` as JSON, Chart.js and the
// report's script when `with_charts`. Shared by report.html and `alloclab compare -o X.html`.
std::string html_page(const std::string& title, const std::string& body_html,
                      const nlohmann::json& data, bool with_charts);

}  // namespace alloclab::lab
