#include "frames/program/program_document.hpp"

#include <fmt/format.h>

#include "frames/program/program_results.hpp"
#include "measure/build_guard.hpp"
#include "render/atomic_write.hpp"
#include "render/html.hpp"
#include "results/environment.hpp"
#include "results/results_builder.hpp"

namespace alloclab::program {

using json = nlohmann::json;

json program_document(json program, const std::string& command_line, const std::string& created_utc,
                      double duration_seconds) {
  const lab::build_facts build = lab::current_build();
  json warnings = json::array();
  const json& output = program.at("output");
  if (output.at("mode") == "check" && !output.at("consistent").get<bool>())
    warnings.push_back("program output differs: " + output.at("finding").get<std::string>());
  for (const json& c : program.at("combinations"))
    if (c.at("runs_failed").get<std::size_t>() > 0)
      warnings.push_back(fmt::format("{}: {} failed run(s)", c.at("name").get<std::string>(),
                                     c.at("runs_failed").get<std::size_t>()));
  return {{"schema", "alloclab-results"},
          {"schema_version", lab::results_schema_version},
          {"created_utc", created_utc},
          {"command", command_line},
          {"debug_build", !build.benchmark_ready()},
          {"environment", lab::describe_environment(build)},
          {"duration_seconds", duration_seconds},
          {"frames", json::array({{{"name", "program"},
                                   {"question",
                                    "which malloc and which settings for this program, and how "
                                    "much CPU and memory they cost, in real runs"}}})},
          {"warnings", std::move(warnings)},
          {"program", std::move(program)}};
}

std::string render_program_report(const json& results) {
  std::string out = "# alloclab: your program under each malloc\n\n";
  out += fmt::format("Run {} (`{}`), {:.0f} s.\n\n", results.at("created_utc").get<std::string>(),
                     results.at("command").get<std::string>(),
                     results.at("duration_seconds").get<double>());
  for (const json& w : results.at("warnings")) out += "- ⚠ " + w.get<std::string>() + "\n";
  if (!results.at("warnings").empty()) out += "\n";
  return out + render_program_markdown(results.at("program"));
}

void write_program_outputs(const json& results, const std::filesystem::path& directory) {
  lab::write_file_atomically(directory / "results.json", results.dump(2) + "\n");
  lab::write_file_atomically(directory / "report.md", render_program_report(results));
  const std::string tables = lab::markdown_to_html(render_program_report(results));
  std::size_t first_section = tables.find("<h2");
  if (first_section == std::string::npos) first_section = tables.size();
  const std::string body =
      "<main>\n" + tables.substr(0, first_section) +
      "<section id=\"charts\" aria-label=\"charts\">\n<div id=\"chart-list\"></div>\n</section>\n" +
      tables.substr(first_section) + "</main>";
  lab::write_file_atomically(
      directory / "report.html",
      lab::html_page("alloclab try " + results.at("created_utc").get<std::string>(), body, results,
                     true));
}

}  // namespace alloclab::program
