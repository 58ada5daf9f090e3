// The commands besides `run` and the other built-in ones of main/cli.cpp: each frame's own (its
// row's add_commands: serve, load, try) and main's command sets (record and trace info, replay
// and advise), one line each in main/command_registry.cpp. Adding a subcommand is its class
// (names(), parsed(), execute(), and a constructor taking the app, and the command line if it
// wants it) and one line there.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frames/frame_module.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

// Registers every one on `app`, in the order --help lists them; `command_line` is the whole
// invocation (what results.json records).
std::vector<std::unique_ptr<frame_commands>> add_registered_commands(
    CLI::App& app, const std::string& command_line);

}  // namespace alloclab::lab
