// A workload catalogue: the workloads of one kind (lab, heap study, memory over time) as
// --workloads, `alloclab list` and the seed claims name them. Each frame's row in the frame table
// points at the catalogue of the kind it measures, so the plan and the CLI find workloads through
// the table and never include a frame's own registry.
//
// Usage:
//   for (const auto& c : workload_catalogues())            // frames/frame_table.hpp
//     if (auto names = c.catalogue->expand("fifo"); !names.empty()) ...
#pragma once

#include <string>
#include <vector>

namespace alloclab::lab {

struct workload_listing {
  std::string name;
  std::string description;  // one line, as `alloclab list` prints it
};

struct workload_catalogue {
  const char* heading;                         // `alloclab list`'s line above the entries
  std::vector<workload_listing> (*entries)();  // every workload, in registry order
  // The names `word` stands for in --workloads: itself, a family's members, or {} when it names
  // none of this catalogue's workloads.
  std::vector<std::string> (*expand)(const std::string& word);
  const char* family_hint;  // appended to an unknown-workload error ("" when it has no families)
};

// The lab workloads (workloads/registry.cpp), measured by the batch and serve frames.
const workload_catalogue& lab_workload_catalogue();

}  // namespace alloclab::lab
