// Older results files this alloclab still reads, brought up to the current version when read.
//
// Version 7 (this one) against version 6:
//   - a cell or workload carries only the keys of its own frame: version 6 gave every cell every
//     frame's keys (`memory`, `ns_per_pair`, `memory_frame`, `replay`, `heap`, ... as null) and
//     every workload `footprint`, `heap_spec`, `placement` and `peer_verdicts`; top-level
//     `heap_retention`, `serve` and `config.heap`, `config.replay` appear only when their frame ran;
//   - `timing.repetition_means_summary` is new: computed here for a version 6 file.
// Within version 7, `budget.spread` is new: computed here from `budget.cells` when a file lacks it.
#pragma once

#include <vector>

#include "model/document.hpp"

namespace alloclab::lab::model {

// The per-repetition means summarised (the results builder's own figure, written into timing).
repetition_summary summarize_repetition_means(const std::vector<double>& means);

// Per frame and workload, in the cells' order, the spread of the cells that measured (the results
// builder's own figure, written into `budget.spread`).
std::vector<workload_spread> workload_spreads(const std::vector<budget_cell>& cells);

// Fills what `version` lacked; the document is then of the current version.
void upgrade(document& d, int version);

// Adds to a document written by to_json the keys version 6 has and version 7 drops: every frame's
// cell keys as null in every cell (the serve frame's cells every lab cell key too) and every
// workload's `footprint`, `heap_spec`, `placement` and `peer_verdicts` as null when absent.
void add_version6_keys(json& written);

}  // namespace alloclab::lab::model
