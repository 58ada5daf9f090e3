// What `alloclab merge` reads: each argument (a run directory, a results root with `latest`, or a
// results.json) is a results file, read and checked once into the results model, and, for a
// shard, its shard file. The few facts merge looks at are read from the model here:
//
// | results model                         | used for                                             |
// |---------------------------------------|------------------------------------------------------|
// | schema_version                        | refusal of another version (read_checked_results)    |
// | shard                                 | a shard (then shard.json beside it is read)          |
// | environment.cpu_model, glibc,         | the machine type: inputs that differ in one of these |
// |   transparent_hugepages               | are different machines (a fleet)                     |
// | config.placement_twin                 | machine type too: whether the twin was measured      |
// | environment.git_revision, compiler,   | the build: mixed builds are refused                  |
// |   cxx_flags, build_type               |                                                      |
// | config (less placement_twin)          | the configuration: mixed ones are refused            |
// | workloads[] and each frame's own      | `run --shard-costs`: the seconds each workload's     |
// |   cells (serve): processes,           |   processes took                                     |
// |   worker.wall_seconds                 |                                                      |
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "merge/shard_file.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

struct merge_input {
  std::string path;  // the results.json read
  // As its file was written: schema_version is the file's, so a whole run is written back as is.
  model::document results;
  std::optional<shard_file> shard;  // set when results has a "shard" entry
};

// Throws usage_error (one line) for a path that holds no results.json, a file of another schema
// version, or a shard whose shard.json is missing or malformed.
merge_input read_merge_input(const std::string& argument);

// The machine facts that make a machine type (equal: one type).
struct machine_type {
  std::optional<std::string> cpu_model;
  std::string glibc;
  std::optional<std::string> transparent_hugepages;
  std::optional<std::string> placement_twin;  // none: not measured, or no twin
  bool operator==(const machine_type& other) const;
};
machine_type machine_type_of(const model::document& results);

// The facts that make a build (equal: one build).
struct build_identity {
  std::string build_type, compiler, cxx_flags;
  std::optional<std::string> git_revision;
};
build_identity build_identity_of(const model::environment& environment);
// "compiler: \"g++ 12\" vs \"clang 16\"" for each fact in which two builds differ (empty: one
// build), in the order of the facts' names.
std::vector<std::string> differences(const build_identity& a, const build_identity& b);
// The run's configuration less what depends on the machine (config without placement_twin).
nlohmann::json configuration(const model::document& results);

// A cell of the results with its workload's name, and for a cell a frame keeps in a part of its
// own (the serve section; merge/frame_figures_reader.hpp) that frame's name ("" for a cell of
// the document's workloads).
struct named_cell {
  std::string own_part_of, workload;
  model::cell_head head;
};

// Every cell of the results, in document order: the workloads', then each frame's own part's.
std::vector<named_cell> cells_of(const model::document& results);

// Seconds each workload's processes took (each cell's first process's wall time times its
// processes), every frame's cells summed: what `run --shard-costs` deals by.
std::map<std::string, double> workload_seconds(const model::document& results);

// "cpu_model: A vs B" for each key of two objects that differ (empty when equal).
std::vector<std::string> differences(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace alloclab::lab
