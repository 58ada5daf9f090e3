#include "frames/program/program_model.hpp"
#include "frames/program/frame.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frames/program/run_description.hpp"
#include "frames/program/program_plan.hpp"
#include "frames/program/program_results.hpp"
#include "frames/program/try_command.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "text/plural.hpp"

namespace alloclab::lab {
namespace {

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

void program_section(std::string& md, const model::document& results) {
  if (const auto* part = results.parts.get<program_document_figures>())
    md += program::render_program_markdown(part->program) + "\n";
}

std::string program_report_heading(const model::document& r) {
  const auto* part = r.parts.get<program_document_figures>();
  if (part == nullptr) return "";
  std::string md = r.debug_build ? "# DEBUG — alloclab report: your program\n\n"
                                 : "# alloclab report: your program under each malloc\n\n";
  md += fmt::format("Run {} · {} × {} · revision {}\n\n", r.created_utc,
                    lab::counted(part->program.combinations.size(), "combination"),
                    lab::counted(part->program.rounds, "round"), markdown::revision_text(r));
  return md;
}

std::vector<model::workload> program_compare_workloads(const model::document& results) {
  const auto* part = results.parts.get<program_document_figures>();
  if (part == nullptr) return {};
  const program_results_section& program = part->program;
  model::workload w;
  w.name = fmt::format("program `{}` CPU", fmt::join(program.command, " "));
  for (const combination_result& c : program.combinations) {
    std::vector<double> cpu_ns;
    for (const program_run_row& run : program.runs)
      if (run.ok && run.combination == c.name) cpu_ns.push_back(run.figures.cpu_seconds * 1e9);
    model::cell cell;
    cell.head.strategy = c.name;
    cell.head.malloc = c.malloc;
    cell.head.status = cpu_ns.empty() ? "failed" : "ok";
    if (!cpu_ns.empty()) {
      cell.timing.emplace();
      cell.timing->p50_ns = c.median.cpu_seconds * 1e9;
      cell.timing->repetition_medians_ns = std::move(cpu_ns);
    }
    w.cells.push_back(std::move(cell));
  }
  return {w};
}

frame_module program_frame() {
  frame_module row;
  row.id = frame::program;
  row.name = "program";
  row.report_position = 60;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::program;
  row.add_commands = add_program_commands;
  row.make_executor = program::make_program_executor;
  row.read_figures = read_figures_as<program::run_record>;
  row.add_results = program::add_program_results;
  row.what_numbers_include = program::program_numbers_include;
  row.warnings = program::program_warnings;
  row.repetition_noun = "round";  // each round runs every combination once
  row.report_heading = program_report_heading;
  row.compare_workloads = program_compare_workloads;
  row.results_parts = {&model::part_codec_of<program_document_figures>(), nullptr, nullptr,
                       nullptr};
  row.render_section = program_section;
  return row;
}

}  // namespace alloclab::lab
