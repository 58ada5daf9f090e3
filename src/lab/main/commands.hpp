// The lab's commands, independent of argument parsing: each runs the pipeline
// plan -> executors -> records -> results builder -> renderers, or a part of it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/paired_compare.hpp"
#include "io/output.hpp"
#include "model/document.hpp"
#include "plan/request.hpp"

namespace alloclab::lab {

int execute_run(const run_request& request);

// `line` cut to fewer than `columns` characters (UTF-8 aware), unchanged when `columns` is 0.
std::string fit_to_width(const std::string& line, std::size_t columns);
int execute_list();
// `html_path`, when given, also gets report.html (render/html.hpp); the Markdown then goes to
// `output_path` only when that was given too.
int execute_report(const std::string& results_path, const std::string& output_path,
                   const std::string& html_path = "", bool rejudge = false);
int execute_validate(const std::string& results_path);
// `alloclab schema`: the JSON Schema of results.json, or (`markdown`) its field tables.
int execute_schema(bool markdown);
// `alloclab export --format gbench`: the results file as Google Benchmark JSON (export/), to
// `output_path` or stdout.
int execute_export(const std::string& results_path, const std::string& format,
                   const std::string& output_path);

// `alloclab compare A B`: 0, or 1 when `fail_on_regression_percent` (>= 0) is exceeded by a
// significant slowdown. `output_path` ending in .html gets HTML, anything else Markdown.
int execute_compare(const std::string& a_path, const std::string& b_path,
                    const std::string& output_path, double fail_on_regression_percent,
                    double noise_floor_percent);

// `alloclab compare --paired`: measures (compare/paired_compare.hpp), prints the table, writes
// `output_path` (.json: the results document, else Markdown). 0; 1 when a side of a cell failed
// or, with `request.fail_above_percent` >= 0, a cell is a decided regression beyond it.
int execute_paired_compare(const paired_request& request, const std::string& output_path,
                           bool wait_for_lock);

}  // namespace alloclab::lab
