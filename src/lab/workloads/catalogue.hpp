// A workload catalogue: the workloads of one kind (lab, heap study, memory over time) as
// --workloads, `alloclab list` and the seed claims name them. Each frame's planner
// (plan/frame_planner.hpp) points at the catalogue of the kind it measures, so the plan and the
// CLI find workloads through the planners and never include a frame's own registry. Every
// catalogue lists, names and expands its workloads with the same code (catalogue.cpp); a kind
// only says what its listing holds and, if it has families, what a family word stands for.
//
// Usage:
//   for (const auto& c : workload_catalogues())            // plan/frame_planner.hpp
//     if (auto names = c.catalogue->expand("fifo"); !names.empty()) ...
#pragma once

#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace alloclab::lab {

struct workload_listing {
  std::string name;
  std::string description;  // one line, as `alloclab list` prints it
};

// What `take` makes of each entry of `registry`, in registry order: the one walk over a registry
// that catalogues' listings and the plan's name lists are made with.
template <class Registry, class Take>
auto collect(const Registry& registry, Take take) {
  std::vector<std::decay_t<decltype(take(*std::begin(registry)))>> out;
  for (const auto& entry : registry) out.push_back(take(entry));
  return out;
}

// A registry entry (anything with a name and a description) as `alloclab list` prints it.
template <class Entry>
workload_listing listing_of(const Entry& entry) {
  return {entry.name, entry.description};
}

struct workload_catalogue {
  const char* heading;                         // `alloclab list`'s line above the entries
  std::vector<workload_listing> (*entries)();  // every workload, in registry order
  // The members of a family `word` names (the heap study's "fifo"), or {}; nullptr: no families.
  std::vector<std::string> (*family)(const std::string& word);
  const char* family_hint;  // appended to an unknown-workload error ("" when it has no families)

  // Every workload's name, in registry order.
  std::vector<std::string> names() const;
  // The names `word` stands for in --workloads: itself, a family's members, or {} when it names
  // none of this catalogue's workloads.
  std::vector<std::string> expand(const std::string& word) const;
  // The workloads among `names`, in registry order, each once.
  std::vector<std::string> in_order(const std::vector<std::string>& names) const;
};

// The lab workloads (workloads/registry.cpp), measured by the batch and serve frames.
const workload_catalogue& lab_workload_catalogue();

}  // namespace alloclab::lab
