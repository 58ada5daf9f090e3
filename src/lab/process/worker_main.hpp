// The worker side of every frame: one road from the spec on the command line to the one JSON
// document on stdout. A frame gives how to read its spec into a worker_cell (the cell's name, how
// to prove its malloc, its measuring function); run_worker_main does the rest, in this order:
//
// | step                  | what happens                                     | exit status  |
// |-----------------------|--------------------------------------------------|--------------|
// | read the spec         | `read` throws on a bad one: one line on stderr   | 2 (bad spec) |
// | before_measuring(id)  | a seam for tests (process hooks); may be empty   |              |
// | not ready             | `not_ready` set: one line on stderr              | 2            |
// | prove the malloc      | not live: {"measured":false,"live_allocator":..} | 3 (refused)  |
// | measure               | {"measured":true,"live_allocator":..,"result":..}| 0            |
// | anything throws       | one line on stderr                               | 1            |
//
// Every document also carries the cell's `head` keys; what the frame measured (figures, a record,
// a calibration: whatever the parent asked for) is under "result". The parent side is
// measuring_worker.hpp.
//
// Example:
//   std::ostringstream out, err;
//   const auto read = [](const nlohmann::json& spec) {
//     alloclab::process::worker_cell cell;
//     cell.id = spec.at("name").get<std::string>();
//     cell.prove = [] {
//       alloclab::mallocs::live_allocator live;
//       live.ok = true;
//       return live;
//     };
//     cell.measure = [] { return nlohmann::json{{"result", 42}}; };
//     return cell;
//   };
//   const int rc = alloclab::process::run_worker_main({"toy worker", read, {}},
//                                                  R"({"name": "toy"})", out, err);
//   // rc == 0; out holds {"live_allocator":{...},"measured":true,"result":42}
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mallocs/liveness.hpp"

namespace alloclab::process {

// What a frame's worker read from its spec.
struct worker_cell {
  std::string id;  // names the cell: "<workload>/<strategy>@<malloc>"
  std::function<mallocs::live_allocator()> prove;  // proves the worker's malloc live
  bool measure_unproven = false;  // measure even when not proven (ASan's glibc), and say so
  std::string not_ready;          // non-empty: why this process must not measure (exit 2)
  nlohmann::json head = nlohmann::json::object();  // keys every document of this cell carries
  std::function<nlohmann::json()> measure;         // the frame's measuring function: {"result": ..}
};

// One frame's worker entry.
struct worker_entry {
  std::string name;                                                  // in stderr lines
  std::function<worker_cell(const nlohmann::json& spec)> read;       // throws on a bad spec
  std::function<void(const std::string& cell_id)> before_measuring;  // may be empty
};

// Runs the steps above for `spec_text`; returns the worker's exit status. Never throws.
int run_worker_main(const worker_entry& entry, std::string_view spec_text, std::ostream& out,
                    std::ostream& err);

}  // namespace alloclab::process
