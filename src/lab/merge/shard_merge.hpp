// Shards of one plan, build and machine type -> the whole plan's results model, rebuilt by the one
// results builder (results/results_builder.hpp) from every shard's measurement records, so the
// claims and comparisons are judged from the merged cells, exactly as an unsharded run would
// judge them. Only `environment` is taken from the first shard's results (the machine the cells
// ran on, not the one merging) and `merged` lists the shards.
#pragma once

#include <string>
#include <vector>

#include "merge/merge_inputs.hpp"

namespace alloclab::lab {

// `shards` all have a shard file. Throws usage_error (one line) when shards overlap, one is
// missing, their counts or plans differ, or a shard does not hold the cells its index deals it.
model::document merge_shards(const std::vector<const merge_input*>& shards,
                             const std::string& command_line, const std::string& created_utc);

}  // namespace alloclab::lab
