// Test plan: a frame's own options and sizes (src/lab/plan/frame_slots.hpp), held by the request
// and the plan without the plan stage knowing their type:
//   a throwaway frame, a row of its own here and nowhere else, registers an option of `run`
//     through the CLI's one registration function, and its resolve_sizes reads the parsed value
//     from the request's slot and puts its sizes in the plan's, where its code reads them back
//     (AThrowawayFrameRegistersAnOptionAndReadsItBackFromThePlan);
//   its bad value is the frame's usage_error (exit 2, one line), not a crash (...RefusesABadValue);
//   --help lists a frame's options after the shared option its row names, or last when it names
//     none of the anchors (HelpListsAFramesOptionsWhereItsRowSays);
//   reading a slot as another type throws frame_slot_error, naming the frame; an empty slot
//     reads as the type's defaults (AWrongTypeFailsLoudly, AnEmptySlotReadsAsDefaults);
//   a slot's JSON reads back as its type (read_slot_as), as a shard file's plan does
//     (SlotsRoundTripThroughJson).
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "main/cli.hpp"
#include "plan/frame_planner.hpp"
#include "plan/frame_slots.hpp"
#include "plan/plan.hpp"

namespace alloclab::lab {

// The throwaway frame's own structs and row (a real frame keeps these in
// frames/<name>/run_options.hpp and frame.cpp).
struct widget_run_options {
  std::optional<int> widgets;  // --widgets
};
struct widget_sizes {
  int widgets = 0;
  bool operator==(const widget_sizes& o) const { return widgets == o.widgets; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(widget_sizes, widgets)

namespace {

constexpr const char* widget_frame = "widget";

void add_widget_run_options(CLI::App& run, frame_slots& options) {
  run.add_option("--widgets", options.slot<widget_run_options>(widget_frame).widgets,
                 "Widget frame: widgets per cell (default 3)");
}

void resolve_widget_sizes(run_plan& plan, const run_request& request, const host_view&) {
  const int widgets =
      request.frame_options.get<widget_run_options>(widget_frame).widgets.value_or(3);
  if (widgets < 1) throw usage_error("--widgets " + std::to_string(widgets) + " is not positive");
  plan.frame_sizes.put(widget_frame, widget_sizes{widgets});
}

frame_planner widget_row(const char* after) {
  frame_planner row;
  row.id = frame{200};
  row.name = widget_frame;
  row.resolve_sizes = resolve_widget_sizes;
  row.read_sizes = read_slot_as<widget_sizes>;
  row.add_run_options = add_widget_run_options;
  row.run_options_after = after;
  return row;
}

// `alloclab run ARGS...` parsed with the throwaway row's options alone; the request it fills.
run_request parse_run(const std::vector<std::string>& args, const frame_planner& row) {
  run_request request;
  CLI::App run;
  add_frame_run_options(run, request, nullptr, {row});
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  run.parse(reversed);
  return request;
}

TEST(FrameSlots, AThrowawayFrameRegistersAnOptionAndReadsItBackFromThePlan) {
  const frame_planner row = widget_row(nullptr);
  const run_request request = parse_run({"--widgets", "7"}, row);
  run_plan plan;
  row.resolve_sizes(plan, request, host_view{});
  EXPECT_EQ(plan.frame_sizes.get<widget_sizes>(widget_frame).widgets, 7);

  run_plan defaults;  // the option not given: the frame's own default
  row.resolve_sizes(defaults, parse_run({}, row), host_view{});
  EXPECT_EQ(defaults.frame_sizes.get<widget_sizes>(widget_frame).widgets, 3);
}

TEST(FrameSlots, AThrowawayFrameRefusesABadValue) {
  const frame_planner row = widget_row(nullptr);
  run_plan plan;
  EXPECT_THROW(row.resolve_sizes(plan, parse_run({"--widgets", "0"}, row), host_view{}),
               usage_error);
  EXPECT_THROW(parse_run({"--widgets", "many"}, row), CLI::ParseError);  // CLI11: exit 2 too
}

TEST(FrameSlots, HelpListsAFramesOptionsWhereItsRowSays) {
  const auto options_in_order = [](const frame_planner& row) {
    run_request request;
    CLI::App run;
    run.add_option("--cell-timeout", request.cell_timeout_seconds);
    add_frame_run_options(run, request, "--cell-timeout", {row});
    run.add_option("--shard", request.shard);
    add_frame_run_options(run, request, nullptr, {row});
    std::vector<std::string> names;
    for (const CLI::Option* o : run.get_options()) names.push_back(o->get_name());
    return names;
  };
  EXPECT_EQ(options_in_order(widget_row("--cell-timeout")),
            (std::vector<std::string>{"--help", "--cell-timeout", "--widgets", "--shard"}));
  EXPECT_EQ(options_in_order(widget_row(nullptr)),
            (std::vector<std::string>{"--help", "--cell-timeout", "--shard", "--widgets"}));
}

TEST(FrameSlots, AWrongTypeFailsLoudly) {
  frame_slots slots;
  slots.put(widget_frame, widget_sizes{5});
  EXPECT_THROW(slots.get<widget_run_options>(widget_frame), frame_slot_error);
  EXPECT_THROW(slots.slot<int>(widget_frame), frame_slot_error);
  try {
    slots.get<double>(widget_frame);
    FAIL() << "read as a double";
  } catch (const frame_slot_error& e) {
    EXPECT_NE(std::string(e.what()).find("'widget'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slots.get<widget_sizes>(widget_frame).widgets, 5);  // the right type still reads
}

TEST(FrameSlots, AnEmptySlotReadsAsDefaults) {
  const frame_slots slots;
  EXPECT_FALSE(slots.contains(widget_frame));
  EXPECT_EQ(slots.get<widget_sizes>(widget_frame).widgets, 0);
  frame_slots filled;
  filled.slot<widget_run_options>(widget_frame).widgets = 4;  // made with defaults, then set
  EXPECT_EQ(filled.get<widget_run_options>(widget_frame).widgets, 4);
}

TEST(FrameSlots, SlotsRoundTripThroughJson) {
  frame_slots slots;
  slots.put(widget_frame, widget_sizes{9});
  slots.put("untyped", widget_run_options{});  // a type with no JSON writes null
  const nlohmann::json j = slots.to_json();
  EXPECT_EQ(j.at(widget_frame), (nlohmann::json{{"widgets", 9}}));
  EXPECT_TRUE(j.at("untyped").is_null());
  frame_slots back;
  back.put_slot(widget_frame, read_slot_as<widget_sizes>(j.at(widget_frame)));
  EXPECT_EQ(back.get<widget_sizes>(widget_frame), widget_sizes{9});
}

}  // namespace
}  // namespace alloclab::lab
