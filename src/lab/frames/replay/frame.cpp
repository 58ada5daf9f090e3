#include "frames/replay/figures.hpp"
#include "frames/replay/frame.hpp"
#include "frames/replay/process_figures.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "frames/replay/replay_resources.hpp"

namespace alloclab::lab {

// Replay frame: the trace under every malloc, then through each resource under the first malloc.
void add_replay_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  const std::string& name = plan.replay.name;
  for (const auto& m : plan.mallocs)
    plan.cells.push_back({name, replay_malloc_strategy, m, frame::replay, false});
  for (const auto& s : plan.replay.strategies)
    plan.cells.push_back({name, s, plan.mallocs.front(), frame::replay, false});
}

namespace {

// --strategies of `replay`: resource names ("all": every one that fits the trace). A named
// resource that cannot replay the trace is refused with the reason.
std::vector<std::string> select_replay_resources(const replay_request& replay) {
  refuse_empty_names(replay.strategies, "--strategies");
  const bool all = std::find(replay.strategies.begin(), replay.strategies.end(), "all") !=
                   replay.strategies.end();
  std::vector<std::string> valid;
  for (const auto& e : replay_resources()) valid.push_back(e.name);
  std::vector<std::string> chosen;
  for (const auto& e : replay_resources()) {
    const bool named = std::find(replay.strategies.begin(), replay.strategies.end(), e.name) !=
                       replay.strategies.end();
    const std::string mismatch = replay_mismatch(e, replay.facts);
    if (named && !mismatch.empty()) throw usage_error(mismatch);
    if ((named || all) && mismatch.empty()) chosen.push_back(e.name);
  }
  for (const auto& name : replay.strategies)
    if (name != "all" && find_replay_resource(name) == nullptr)
      throw usage_error(fmt::format("unknown replay strategy '{}'; valid: {}, all", name,
                                    fmt::join(valid, ", ")));
  return chosen;
}

// The trace's resources, named by `alloclab replay --strategies`.
void resolve_replay_resources(run_plan& plan, const run_request& request, const host_view&) {
  if (!request.replay.trace.empty())
    plan.replay.strategies = select_replay_resources(request.replay);
}

// A replay task's expected wall time: a fresh process, then whole replays of the trace. A guess
// (1 s a replay): a replay's time is its trace's, and `alloclab replay` takes no --shard.
double expected_replay_seconds(const run_plan&, const task& t) {
  return 0.1 + static_cast<double>(t.repetitions) * 1.0;
}

}  // namespace

frame_module replay_frame() {
  frame_module row;
  row.id = frame::replay;
  row.name = "replay";
  row.report_position = 20;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::trace;
  row.add_cells = add_replay_cells;
  row.repetitions = &measurement_sizes::replay_repetitions;
  row.by_default = true;
  row.worker_command = replay_worker_command;
  row.worker_main = run_replay_worker;
  row.make_executor = make_replay_executor;
  row.add_results = add_replay_results;
  row.what_numbers_include = describe_replay_frame;
  row.expected_seconds = expected_replay_seconds;
  row.resolve_sizes = resolve_replay_resources;
  row.results_parts = {nullptr, &model::part_codec_of<replay_config_figures>(),
                       &model::part_codec_of<replay_workload_figures>(),
                       &model::part_codec_of<replay_cell_figures>()};
  row.render_section = markdown::replay_section;
  row.console_lines = markdown::replay_console_lines;
  row.read_figures = read_figures_as<replay_figures>;
  return row;
}

}  // namespace alloclab::lab
