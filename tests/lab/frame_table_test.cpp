// Test plan: the frame registry (src/lab/main/frame_registry.hpp: the rows of
// src/lab/frames/frame_module.hpp), the one road from the shared stages into a frame. Its
// invariants, whatever frames it holds:
//   rows have unique ids and names, module_of finds each, and frame_from_string(to_string(f)) ==
//     f (EveryFrameHasExactlyOneRow, NamesRoundTrip); the frames the stages name are rows;
//   every stage's lookup (plan/frame_planner.hpp and its peers) holds every row, in table order,
//     under the row's id and name (EveryStageSeesEveryRow);
//   a row's worker_command, when set, is unique and starts with "__" (it is argv[1] of a worker,
//     never a user command), and worker_main is set exactly when worker_command is
//     (WorkerCommandsAreUniqueHiddenAndHaveAnEntryPoint);
//   a frame `run` plans has every function the plan, schedule and results call, and a frame
//     measured by its own command instead (program) has its commands, its report heading, its
//     executor (`try` runs on the schedule), its results part and no plan function; every planned frame estimates
//     its tasks' cost for --shard; every row renders its section (EveryStageHasItsFunction);
//   the plan's workloads of a kind --workloads names are its list of that kind, and any other
//     kind is a logic error, not some other frame's list (WorkloadsOfAnUnnamedKindIsAnError);
//   every frame says what its numbers include for a tiny plan (EveryFrameDescribesItsNumbers);
//   the report order lists every row exactly once, in report_position order
//     (ReportOrderHoldsEveryFrameOnce);
//   every kind --workloads names has one catalogue, every row measuring that kind points at it,
//     and each entry of a catalogue is selected into its own kind's list, alone, and a claim
//     about it is measured in the default frame of its kind (CataloguesNameEachWorkloadOnce);
//   a frame with sizes of its own reads them back from a shard file (read_sizes), and one that
//     registers options of `run` names where --help lists them; one whose own command names
//     its workload says what --frames NAME without it is told (EveryFrameOwnsItsOptions);
//   no shared stage includes a frame's folder except through the frame table, beyond the
//     exceptions listed with their reasons (StagesReachFramesOnlyThroughTheTable); main/cli.cpp
//     includes none: each frame registers its own options (TheCliKnowsNoFrame).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "main/cli.hpp"
#include "main/frame_registry.hpp"
#include "plan/plan.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {
namespace {

// Every frame in the registry, in table order.
std::vector<frame> every_frame() {
  std::vector<frame> ids;
  for (const auto& m : frame_table()) ids.push_back(m.id);
  return ids;
}

TEST(FrameTable, EveryFrameHasExactlyOneRow) {
  // The frames a shared stage names (plan/plan.hpp's `frame`) each have their row.
  for (const frame f :
       {frame::batch, frame::heap, frame::memory, frame::serve, frame::replay, frame::program}) {
    std::size_t rows = 0;
    for (const auto& m : frame_table()) rows += m.id == f ? 1 : 0;
    EXPECT_EQ(rows, 1u) << static_cast<int>(f);
  }
  for (const frame f : every_frame()) EXPECT_EQ(module_of(f).id, f);
  std::set<frame> ids;
  std::set<std::string> names;
  for (const auto& m : frame_table()) {
    ASSERT_NE(m.name, nullptr);
    EXPECT_FALSE(std::string(m.name).empty());
    EXPECT_TRUE(ids.insert(m.id).second) << m.name;
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
  }
}

TEST(FrameTable, NamesRoundTrip) {
  std::size_t planned = 0;
  for (const frame f : every_frame()) {
    EXPECT_STREQ(to_string(f), module_of(f).name);
    if (module_of(f).add_cells == nullptr) {  // not a --frames name: `alloclab try` measures it
      EXPECT_THROW(frame_from_string(to_string(f)), usage_error);
      continue;
    }
    EXPECT_EQ(frame_from_string(to_string(f)), f);
    ++planned;
  }
  EXPECT_EQ(frame_names().size(), planned);
  EXPECT_THROW(frame_from_string("no_such_frame"), usage_error);
}

TEST(FrameTable, WorkerCommandsAreUniqueHiddenAndHaveAnEntryPoint) {
  std::set<std::string> commands;
  for (const auto& m : frame_table()) {
    EXPECT_EQ(m.worker_command != nullptr, m.worker_main != nullptr) << m.name;
    if (m.worker_command == nullptr) continue;
    const std::string command = m.worker_command;
    EXPECT_EQ(command.rfind("__", 0), 0u) << m.name << ": " << command;
    EXPECT_GT(command.size(), 2u) << m.name;
    EXPECT_TRUE(commands.insert(command).second) << m.name << ": " << command;
  }
}

// A ring needs budgeted cells measured by workers of the frame's own (they hold the slice gate):
// the batch and heap frames' rows say so, and no frame without a worker does.
TEST(FrameTable, LockstepRowsAreBudgetedFramesWithWorkers) {
  std::set<std::string> in_rings;
  for (const auto& m : frame_table()) {
    if (!m.lockstep) continue;
    in_rings.insert(m.name);
    EXPECT_TRUE(m.budgeted) << m.name;
    EXPECT_NE(m.worker_command, nullptr) << m.name;
  }
  EXPECT_EQ(in_rings, (std::set<std::string>{"batch", "heap"}));
}

// The simulation beside the timing takes the second CPU; a cell whose threads contend, or a
// server with its load generator, measures with it paused (plan's uses_every_cpu).
TEST(FrameTable, MultiThreadedAndServedCellsNeedEveryCpu) {
  run_plan plan;
  const malloc_choice glibc{};
  plan.cells = {{"vector_push", "std", glibc, frame::batch, false},
                {"request_mix_mt", "std", glibc, frame::batch, false},
                {"message_queue_mt", "pmr_sync_pool", glibc, frame::batch, false},
                {"request_mix", "std", glibc, frame::serve, false},
                {"fifo_uniform", "malloc", glibc, frame::heap, false}};
  const auto needs = [&](std::size_t cell) { return uses_every_cpu(plan, {task{cell, 0, 1, 0}}); };
  EXPECT_FALSE(needs(0));
  EXPECT_TRUE(needs(1));
  EXPECT_TRUE(needs(2));
  EXPECT_TRUE(needs(3));
  EXPECT_FALSE(needs(4));
  EXPECT_TRUE(uses_every_cpu(plan, {task{0, 0, 1, 0}, task{1, 0, 1, 0}}));  // a ring holding one
  EXPECT_FALSE(uses_every_cpu(plan, {}));
}

TEST(FrameTable, EveryStageHasItsFunction) {
  for (const auto& m : frame_table()) {
    EXPECT_NE(m.render_section, nullptr) << m.name;
    EXPECT_NE(std::string(m.name), "") << "a row without a name";
    if (m.measures == workload_kind::program) {  // measured by `alloclab try`, never planned
      EXPECT_EQ(m.add_cells, nullptr) << m.name;
      EXPECT_FALSE(m.by_default) << m.name;
      EXPECT_NE(m.add_commands, nullptr) << m.name;
      EXPECT_NE(m.report_heading, nullptr) << m.name;
      EXPECT_EQ(m.expected_seconds, nullptr) << m.name;
      // `try` runs its own plan's tasks on the schedule, through the row's executor.
      EXPECT_NE(m.what_numbers_include, nullptr) << m.name;
      EXPECT_NE(m.warnings, nullptr) << m.name;
      ASSERT_NE(m.make_executor, nullptr) << m.name;
      EXPECT_NE(m.make_executor(), nullptr) << m.name;
      continue;
    }
    EXPECT_NE(m.add_cells, nullptr) << m.name;
    EXPECT_NE(m.expected_seconds, nullptr) << m.name;  // --shard weighs every planned task
    EXPECT_NE(m.repetitions, nullptr) << m.name;
    EXPECT_NE(m.make_executor, nullptr) << m.name;
    EXPECT_NE(m.add_results, nullptr) << m.name;
    EXPECT_NE(m.what_numbers_include, nullptr) << m.name;
    EXPECT_EQ(m.report_heading, nullptr) << m.name;
    if (m.make_executor != nullptr) {
      EXPECT_NE(m.make_executor(), nullptr) << m.name;
    }
  }
}

TEST(FrameTable, EveryFrameOwnsItsOptions) {
  for (const auto& m : frame_table()) {
    if (m.resolve_sizes != nullptr) {
      EXPECT_NE(m.read_sizes, nullptr) << m.name << ": a shard file's plan must read its sizes";
    }
    if (m.add_run_options != nullptr) {
      EXPECT_NE(m.run_options_after, nullptr) << m.name << ": where --help lists its options";
    }
    if (m.requested != nullptr) {
      EXPECT_NE(m.own_command_hint, nullptr) << m.name;
    }
  }
  // A request from the command line: each frame's options in its slot, under its name.
  run_request request;
  CLI::App run;
  for (const char* after : {"--repetitions", "--repetition-time", "--cell-timeout", "--shard-costs",
                            static_cast<const char*>(nullptr)})
    add_frame_run_options(run, request, after, frame_planners());
  for (const char* option :
       {"--retention-horizon", "--serve-duration", "--memory-budget", "--huge-table-bytes"})
    EXPECT_NE(run.get_option_no_throw(option), nullptr) << option;
  for (const char* frame : {"heap", "serve", "memory"})
    EXPECT_TRUE(request.frame_options.contains(frame)) << frame;
}

TEST(FrameTable, SelectionNamesOfAnUnnamedKindIsAnError) {
  workload_selection chosen;
  chosen.lab = {"lab"};
  chosen.heap = {"heap"};
  chosen.memory = {"memory"};
  EXPECT_EQ(chosen.names(workload_kind::lab), chosen.lab);
  EXPECT_EQ(chosen.names(workload_kind::heap), chosen.heap);
  EXPECT_EQ(chosen.names(workload_kind::memory), chosen.memory);
  chosen.names(workload_kind::heap).push_back("more");  // the list itself, not a copy
  EXPECT_EQ(chosen.heap, (std::vector<std::string>{"heap", "more"}));
  const workload_selection& seen = chosen;
  EXPECT_EQ(&seen.names(workload_kind::memory), &chosen.memory);
  EXPECT_THROW(chosen.names(workload_kind::trace), std::logic_error);
  EXPECT_THROW(seen.names(workload_kind::program), std::logic_error);
}

TEST(FrameTable, EveryFrameDescribesItsNumbers) {
  run_request tiny;
  tiny.quick = true;
  tiny.workloads = {"trade_batch"};
  tiny.strategies = {"std"};
  const run_plan plan = make_plan(tiny, false);
  ASSERT_FALSE(plan.mallocs.empty());
  for (const auto& m : frame_table())
    if (m.what_numbers_include != nullptr) {
      EXPECT_FALSE(m.what_numbers_include(plan).empty()) << m.name;
    }
}

TEST(FrameTable, EveryStageSeesEveryRow) {
  const auto same_rows = [](const auto& rows, const char* stage) {
    ASSERT_EQ(rows.size(), frame_table().size()) << stage;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].id, frame_table()[i].id) << stage;
      EXPECT_STREQ(rows[i].name, frame_table()[i].name) << stage;
    }
  };
  same_rows(frame_planners(), "plan");
  same_rows(frame_results_writers(), "results");
  same_rows(frame_reports(), "render");
  same_rows(frame_compare_hooks(), "compare");
  same_rows(frame_figures_readers(), "merge");
  same_rows(frame_simulations(), "simulate");
  ASSERT_EQ(model::frame_codec_table().size(), frame_table().size());
  for (std::size_t i = 0; i < frame_table().size(); ++i) {
    EXPECT_STREQ(model::frame_codec_table()[i].name, frame_table()[i].name);
    EXPECT_EQ(model::frame_codec_table()[i].results_parts.cell,
              frame_table()[i].results_parts.cell);
  }
  EXPECT_EQ(frame_reports()[0].part.render_section, frame_table()[0].render_section);
  EXPECT_EQ(frame_simulations()[0].part.simulation, frame_table()[0].simulation);
}

TEST(FrameTable, ReportOrderHoldsEveryFrameOnce) {
  std::set<std::string> seen;
  std::vector<std::string> order;
  int position = 0;
  for (const report_row* row : frames_in_report_order()) {
    EXPECT_TRUE(seen.insert(row->name).second) << row->name;
    EXPECT_LE(position, row->part.report_position) << row->name;
    position = row->part.report_position;
    const std::string name = row->name;
    if (name == "heap" || name == "replay" || name == "batch" || name == "memory" ||
        name == "serve" || name == "program")
      order.push_back(name);
  }
  EXPECT_EQ(seen.size(), frame_table().size());
  for (const auto& row : frame_table()) EXPECT_EQ(seen.count(row.name), 1u) << row.name;
  // report.md's order of these frames' sections (the heap study's and a replay's findings first).
  EXPECT_EQ(order,
            (std::vector<std::string>{"heap", "replay", "batch", "memory", "serve", "program"}));
}

TEST(FrameTable, CataloguesNameEachWorkloadOnce) {
  const std::vector<kind_catalogue> catalogues = workload_catalogues();
  std::set<workload_kind> kinds;
  for (const kind_catalogue& c : catalogues) EXPECT_TRUE(kinds.insert(c.kind).second);
  for (const workload_kind kind : {workload_kind::lab, workload_kind::heap, workload_kind::memory})
    EXPECT_EQ(kinds.count(kind), 1u) << static_cast<int>(kind);
  for (const auto& row : frame_table()) {
    if (row.workloads == nullptr) continue;
    const auto same = std::find_if(catalogues.begin(), catalogues.end(),
                                   [&](const kind_catalogue& c) { return c.kind == row.measures; });
    ASSERT_NE(same, catalogues.end()) << row.name;
    EXPECT_EQ(same->catalogue, row.workloads) << row.name << " measures another catalogue";
  }
  std::set<std::string> names;
  for (const kind_catalogue& c : catalogues) {
    for (const auto& entry : c.catalogue->entries()) {
      EXPECT_TRUE(names.insert(entry.name).second) << entry.name << " is in two catalogues";
      const workload_selection chosen = split_workloads({entry.name});
      EXPECT_EQ(chosen.names(c.kind), std::vector<std::string>{entry.name});
    }
  }
  EXPECT_THROW(split_workloads({"no_such_workload"}), usage_error);
}

// Includes of a frame's folder (`#include "frames/<frame>/...`) from outside src/lab/frames/.
std::set<std::string> arrows_into_frames() {
  namespace fs = std::filesystem;
  const fs::path lab = fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path() / "src" / "lab";
  const std::regex into_frame(R"re(#include "frames/([a-z_]+)/)re");
  std::set<std::string> arrows;
  for (const auto& file : fs::recursive_directory_iterator(lab)) {
    const fs::path relative = fs::relative(file.path(), lab);
    if (!file.is_regular_file() || *relative.begin() == "frames") continue;
    std::ifstream in(file.path());
    std::string line;
    std::smatch found;
    while (std::getline(in, line))
      if (std::regex_search(line, found, into_frame))
        arrows.insert(relative.generic_string() + " -> " + found[1].str());
  }
  return arrows;
}

TEST(FrameTable, StagesReachFramesOnlyThroughTheTable) {
  // Known exceptions, each a piece of a frame the stage still reads directly.
  const std::set<std::string> allowed = {
      // advise is no stage but a reader that reconciles two frames: the replay's cells (and
      // how the replay sized its arena) against the program frame's real runs
      "advise/advise.cpp -> replay",
      "advise/program_runs.hpp -> program",
      // advise makes the real runs itself: the program frame's `try` request
      "advise/real_runs.hpp -> program",
      // advise's knob trials: the replay's best setting per malloc added to `try`'s request
      "advise/knob_trials.cpp -> replay",
      "advise/knob_trials.hpp -> program",
      // main wires the frames: advise's real runs (`try`) and the replay's resources
      "main/replay_commands.cpp -> program",
      "main/replay_commands.cpp -> replay",
  };
  const std::set<std::string> arrows = arrows_into_frames();
  for (const std::string& arrow : arrows)
    EXPECT_EQ(allowed.count(arrow), 1u) << arrow << ": reach the frame through its table row";
  for (const std::string& arrow : allowed)
    EXPECT_EQ(arrows.count(arrow), 1u) << arrow << " is gone: take it off the allowed list";
}

TEST(FrameTable, TheCliKnowsNoFrame) {
  // Each frame registers its own options of `run` and its own commands through its row.
  for (const std::string& arrow : arrows_into_frames())
    EXPECT_NE(arrow.rfind("main/cli.cpp ->", 0), 0u) << arrow;
}

}  // namespace
}  // namespace alloclab::lab
