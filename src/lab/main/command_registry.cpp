#include "main/command_registry.hpp"

#include <type_traits>

#include <CLI/CLI.hpp>

#include "main/frame_registry.hpp"
#include "main/replay_commands.hpp"
#include "trace/trace_commands.hpp"

namespace alloclab::lab {
namespace {

// A command set of main's as the registry holds it: a class with names(), parsed(), execute()
// and a constructor taking the app (and the command line, if it wants it).
template <class Commands>
class registered_commands final : public frame_commands {
 public:
  registered_commands(CLI::App& app, const std::string& command_line)
      : commands_(make(app, command_line)) {}
  std::vector<std::string> names() const override { return Commands::names(); }
  bool parsed() const override { return commands_.parsed(); }
  int execute() const override { return commands_.execute(); }

 private:
  static Commands make(CLI::App& app, const std::string& command_line) {
    if constexpr (std::is_constructible_v<Commands, CLI::App&, const std::string&>)
      return Commands(app, command_line);
    else
      return Commands(app);
  }

  Commands commands_;
};

template <class Commands>
std::unique_ptr<frame_commands> registered(CLI::App& app, const std::string& command_line) {
  return std::make_unique<registered_commands<Commands>>(app, command_line);
}

}  // namespace

std::vector<std::unique_ptr<frame_commands>> add_registered_commands(
    CLI::App& app, const std::string& command_line) {
  std::vector<std::unique_ptr<frame_commands>> sets;
  for (const auto& row : frame_table())  // each frame's own: serve and load, try
    if (row.add_commands != nullptr) sets.push_back(row.add_commands(app, command_line));
  // Main's command sets, one line each, in the order --help lists them.
  sets.push_back(registered<trace::trace_commands>(app, command_line));  // record, trace info
  sets.push_back(registered<replay_commands>(app, command_line));        // replay, advise
  return sets;
}

}  // namespace alloclab::lab
