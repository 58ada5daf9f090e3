#include "frames/program/program_model.hpp"
#include "frames/program/frame.hpp"

#include <vector>

#include <fmt/format.h>

#include "frames/program/program_results.hpp"
#include "frames/program/try_command.hpp"
#include "render/markdown_format.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

class program_commands final : public frame_commands {
 public:
  program_commands(CLI::App& app, const std::string& command_line) : try_(app, command_line) {}
  std::vector<std::string> names() const override { return {program::try_command::name()}; }
  bool parsed() const override { return try_.parsed(); }
  int execute() const override { return try_.execute(); }

 private:
  program::try_command try_;
};

}  // namespace

std::unique_ptr<frame_commands> add_program_commands(CLI::App& app,
                                                     const std::string& command_line) {
  return std::make_unique<program_commands>(app, command_line);
}

void program_section(std::string& md, const json& results) {
  if (results.contains("program"))
    md += program::render_program_markdown(results["program"]) + "\n";
}

std::string program_report_heading(const json& r) {
  std::string md = markdown::is_debug(r) ? "# DEBUG — alloclab report: your program\n\n"
                                         : "# alloclab report: your program under each malloc\n\n";
  md += fmt::format("Run {} · {} combination(s) × {} rounds · revision {}\n\n",
                    r["created_utc"].get<std::string>(), r["program"]["combinations"].size(),
                    r["program"]["rounds"].get<std::size_t>(), markdown::revision_text(r));
  return md;
}

void add_program_compare_cells(json& results) {
  if (!results.contains("program")) return;
  const json& program = results["program"];
  std::string command;
  for (const json& word : program.at("command"))
    command += (command.empty() ? "" : " ") + word.get<std::string>();
  json cells = json::array();
  for (const json& c : program.at("combinations")) {
    std::vector<double> cpu_ns;
    for (const json& run : program.at("runs"))
      if (run.at("ok").get<bool>() && run.at("combination") == c.at("name"))
        cpu_ns.push_back(run.at("cpu_seconds").get<double>() * 1e9);
    const bool measured = !cpu_ns.empty();
    cells.push_back(
        {{"strategy", c.at("name")},
         {"malloc", c.at("malloc")},
         {"status", measured ? "ok" : "failed"},
         {"timing", measured
                        ? json{{"p50_ns", c.at("median").at("cpu_seconds").get<double>() * 1e9},
                               {"repetition_medians_ns", cpu_ns}}
                        : json(nullptr)}});
  }
  results["workloads"].push_back({{"name", "program `" + command + "` CPU"}, {"cells", cells}});
}

frame_module program_frame() {
  return {frame::program,
          "program",
          workload_kind::program,
          nullptr,
          nullptr,
          false,
          nullptr,
          nullptr,
          nullptr,
          nullptr,
          nullptr,
          program_section,
          add_program_commands,
          program_report_heading,
          add_program_compare_cells,
          nullptr,
          {&model::part_codec_of<program_document_figures>(), nullptr, nullptr, nullptr}};
}

}  // namespace alloclab::lab
