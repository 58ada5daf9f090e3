#include "frames/replay/figures.hpp"
#include "frames/replay/frame.hpp"
#include "frames/replay/process_figures.hpp"
#include "frames/replay/run_options.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "frames/replay/replay_resources.hpp"

namespace alloclab::lab {

// Replay frame: the trace under every malloc, then through each resource under the first malloc.
void add_replay_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  const replay_request& replay = replay_sizes_of(plan).replay;
  const std::string& name = replay.name;
  for (const auto& m : plan.mallocs)
    plan.cells.push_back({name, replay_malloc_strategy, m, frame::replay, false});
  for (const auto& s : replay.strategies)
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

// --repetitions whole replays, else its defaults; the trace and its resources, named by
// `alloclab replay --strategies`.
void resolve_replay_sizes(run_plan& plan, const run_request& request, const host_view&) {
  replay_plan_sizes s;
  s.repetitions = request.repetitions.value_or(request.quick ? replay_quick_repetitions
                                                             : replay_default_repetitions);
  s.replay = replay_request_of(request);
  if (!s.replay.trace.empty()) s.replay.strategies = select_replay_resources(s.replay);
  plan.frame_sizes.put(replay_frame_name, std::move(s));
}

std::size_t replay_repetitions(const run_plan& plan) {
  return replay_sizes_of(plan).repetitions;
}

std::size_t one_sample_per_repetition(const run_plan&) {
  return 1;  // a repetition is one whole replay
}

bool trace_requested(const run_request& request) {
  return !replay_request_of(request).trace.empty();
}

own_selection replay_selection(const run_plan& plan) {
  const replay_request& replay = replay_sizes_of(plan).replay;
  return {{replay.name}, replay.strategies};
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
  row.name = replay_frame_name;
  row.report_position = 20;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::trace;
  row.add_cells = add_replay_cells;
  row.repetitions = replay_repetitions;
  row.samples_per_repetition = one_sample_per_repetition;
  row.requested = trace_requested;
  row.own_command_hint = "the replay frame replays a recorded trace: use `alloclab replay TRACE`";
  row.selection = replay_selection;
  row.by_default = true;
  row.worker_command = replay_worker_command;
  row.worker_main = run_replay_worker;
  row.make_executor = make_replay_executor;
  row.add_results = add_replay_results;
  row.what_numbers_include = describe_replay_frame;
  row.expected_seconds = expected_replay_seconds;
  row.resolve_sizes = resolve_replay_sizes;
  row.read_sizes = read_slot_as<replay_plan_sizes>;
  row.results_parts = {nullptr, &model::part_codec_of<replay_config_figures>(),
                       &model::part_codec_of<replay_workload_figures>(),
                       &model::part_codec_of<replay_cell_figures>()};
  row.render_section = markdown::replay_section;
  row.console_lines = markdown::replay_console_lines;
  row.read_figures = read_figures_as<replay_figures>;
  return row;
}

}  // namespace alloclab::lab
