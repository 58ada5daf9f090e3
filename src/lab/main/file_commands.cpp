// `alloclab list`, `report`, `validate` and `export`: the commands that read tables or results
// files.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mallocs/malloc_table.hpp"
#include "mallocs/preload_libraries.hpp"
#include "compare/compare.hpp"
#include "export/gbench_export.hpp"
#include "main/frame_registry.hpp"
#include "main/commands.hpp"
#include "process/machine_lock.hpp"
#include "model/document.hpp"
#include "model/schema.hpp"
#include "io/atomic_write.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "results/claims.hpp"
#include "results/results_builder.hpp"
#include "results/results_file.hpp"
#include "schedule/executor.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"
#include "text/plural.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// "-" and the names of this process's standard output: printed, not written as a file (a pipe
// cannot be replaced atomically).
bool standard_output(const std::string& path) {
  return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

// `path` ends in one of `extensions` (".html"), whatever its case.
bool has_extension(const std::string& path, std::initializer_list<const char*> extensions) {
  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const char* e) { return extension == e; });
}

// Where an output may be written: not over an input, and only where checked_output_file allows
// (a regular file or a new one, symlinks followed). Checked before any work; one line if not.
void check_destination(const std::string& output, const std::vector<std::string>& inputs) {
  if (standard_output(output)) return;
  std::error_code ec;
  for (const auto& input : inputs)
    if (fs::exists(output, ec) && fs::equivalent(output, input, ec))
      throw usage_error(
          fmt::format("-o '{}' is the results file itself; refusing to overwrite it", output));
  try {
    checked_output_file(output);
  } catch (const std::system_error& e) {
    throw usage_error(fmt::format("cannot write '{}': {}", output, e.what()));
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (standard_output(path)) return print_or_throw(text);
  try {
    write_file_atomically(path, text);
  } catch (const std::system_error& e) {
    throw output_error(fmt::format("cannot write '{}': {}", path, e.code().message()));
  }
}

}  // namespace

int execute_list() {
  std::string out;
  for (const kind_catalogue& c : workload_catalogues()) {
    out += fmt::format("{}\n", c.catalogue->heading);
    for (const auto& w : c.catalogue->entries())
      out += fmt::format("  {:<26} {}\n", w.name, w.description);
  }
  out += "strategies (in-process):\n";
  for (const auto& s : strategy_registry())
    out += fmt::format("  {:<26} {}\n", s.name, s.description);
  out +=
      "mallocs (--malloc; default glibc; 'all' = every one below; or a path to a malloc "
      "library):\n";
  for (const auto& m : alloclab::mallocs::malloc_registry()) {
    const bool here = alloclab::mallocs::installed(m);
    out += fmt::format(
        "  {:<26} {}{}\n", m.name, m.description,
        here ? "" : fmt::format(" [not installed: {}]", alloclab::mallocs::install_command(m)));
  }
  print_or_throw(out);
  return 0;
}

namespace {

// A `compare --paired` results file: its table, as that command's -o writes it.
int report_paired(const std::string& results_path, const std::string& output_path,
                  const std::string& html_path) {
  const model::document d = read_results_model(results_path);
  const std::string markdown = render_paired_markdown(*d.paired);
  if (!html_path.empty())
    write_output(html_path, html_page("alloclab compare --paired",
                                      "<main>\n" + markdown_to_html(markdown) + "</main>",
                                      json::object(), false));
  if (output_path.empty() || standard_output(output_path))
    print_or_throw(markdown);
  else
    write_output(output_path, markdown);
  return 0;
}

}  // namespace

int execute_report(const std::string& results_path, const std::string& output_path,
                   const std::string& html_path, bool rejudge) {
  const bool markdown_to_stdout = output_path.empty() || standard_output(output_path);
  if (!html_path.empty()) check_destination(html_path, {results_path});
  if (!markdown_to_stdout) check_destination(output_path, {results_path});
  json results = read_checked_results(results_path);
  if (results.contains("paired_builds")) return report_paired(results_path, output_path, html_path);
  if (rejudge) results["claims"] = judge_claims(results, seed_claims());
  const report_options options{rejudge};
  const std::string report = render_report(results, options);
  const std::string html = html_path.empty() ? std::string() : render_html_report(results, options);
  if (!html_path.empty()) write_output(html_path, html);
  if (markdown_to_stdout)
    print_or_throw(report);
  else
    write_output(output_path, report);
  return 0;
}

int execute_export(const std::string& results_path, const std::string& format,
                   const std::string& output_path) {
  if (format != "gbench")
    throw usage_error(fmt::format("export: unknown --format '{}'; valid formats: gbench", format));
  const bool to_stdout = output_path.empty() || standard_output(output_path);
  if (!to_stdout) check_destination(output_path, {results_path});
  const std::string text =
      to_gbench_json(read_results_model_as_written(results_path)).dump(2) + "\n";
  if (to_stdout)
    print_or_throw(text);
  else
    write_output(output_path, text);
  return 0;
}

// Violations are listed on stdout (20 at most); the exit status is 2, as for `report` given the
// same file: a file that violates the schema is bad input to both.
int execute_validate(const std::string& results_path) {
  constexpr std::size_t shown = 20;
  const json results = read_results_file(results_path);
  const auto problems = results_problems(results);
  std::string out;
  for (std::size_t i = 0; i < problems.size() && i < shown; ++i) out += problems[i] + '\n';
  if (problems.size() > shown) out += fmt::format("... and {} more\n", problems.size() - shown);
  if (!problems.empty()) {
    print_or_throw(out);
    throw usage_error(
        fmt::format("'{}' has {} schema violation(s)", results_path, problems.size()));
  }
  print_or_throw(fmt::format("{}: valid (schema_version {})\n", results_path,
                             results["schema_version"].dump()));
  return 0;
}

int execute_schema(bool markdown) {
  print_or_throw(markdown ? model::results_field_tables()
                          : model::results_json_schema().dump(2) + "\n");
  return 0;
}

int execute_compare(const std::string& a_path, const std::string& b_path,
                    const std::string& output_path, double fail_on_regression_percent,
                    double noise_floor_percent) {
  if (!output_path.empty()) check_destination(output_path, {a_path, b_path});
  const model::document a = read_results_model(a_path), b = read_results_model(b_path);
  const comparison changes = compare_results(a, b, a_path, b_path, noise_floor_percent);
  print_or_throw(render_comparison_text(changes));
  if (!output_path.empty()) {
    const bool html = has_extension(output_path, {".html", ".htm"});
    write_output(output_path,
                 html ? render_comparison_html(changes) : render_comparison_markdown(changes));
  }
  if (fail_on_regression_percent < 0) return 0;
  const std::size_t slower = regressions(changes, fail_on_regression_percent);
  if (slower == 0) return 0;
  std::cerr << fmt::format(
      "alloclab: {} slower than A by more than {}%, outside the noise (noise floor {}%)\n",
      counted(slower, "cell"), fail_on_regression_percent, noise_floor_percent);
  return 1;
}

int execute_paired_compare(const paired_request& request, const std::string& output_path,
                           bool wait_for_lock) {
  if (!output_path.empty()) {
    if (has_extension(output_path, {".html", ".htm"}))
      throw usage_error("compare --paired -o: .json (the results) or Markdown, not HTML");
    check_destination(output_path, {});
  }
  const auto lock = take_machine_lock(request.run.command_line, wait_for_lock);
  const model::document d = run_paired_compare(
      request, make_frame_executor, [](const std::string& line) { std::cerr << line << '\n'; });
  const model::paired_builds& paired = *d.paired;
  print_or_throw(render_paired_text(paired));
  if (!output_path.empty())
    write_output(output_path, has_extension(output_path, {".json"})
                                  ? model::to_json(d).dump(2) + "\n"
                                  : render_paired_markdown(paired));
  const std::size_t failed = static_cast<std::size_t>(
      std::count_if(paired.cells.begin(), paired.cells.end(), [](const model::paired_cell& c) {
        return c.baseline.status == "failed" || c.candidate.status == "failed";
      }));
  if (failed > 0)
    std::cerr << fmt::format("alloclab: {} without a number on a side (a worker failed)\n",
                             counted(failed, "cell"));
  if (paired.regressions > 0)
    std::cerr << fmt::format("alloclab: {} decided slower in the candidate by more than {}%\n",
                             counted(paired.regressions, "cell"), *paired.fail_above_percent);
  return failed > 0 || paired.regressions > 0 ? 1 : 0;
}

}  // namespace alloclab::lab
