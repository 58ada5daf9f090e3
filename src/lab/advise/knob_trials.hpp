// The knob settings `advise` tries as real runs beside the mallocs. The replay sweeps knob
// settings cheaply (its tuning cells: glibc's registry variants under --malloc all, and every
// --variants knob variant), each judged against its own malloc's defaults by malloc call time;
// the best-ranked few of each malloc the real runs run are added to `try`'s combinations, inside
// the same budget, so that the knob advice rests on real runs and the replay's ranking stays an
// estimate.
//
// Example:
//   const std::vector<knob_trial> t = knobs_to_try(replay_results, {"glibc", "jemalloc"});
//   // t[0].label == "glibc_nocliff", t[0].of.base == "glibc", t[0].rank == 1
//   add_knob_trials(plan.request, t);  // try runs glibc_nocliff beside glibc and jemalloc
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "frames/program/try_command.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

/// The malloc a tuning varies, and how: a registry variant ("glibc_arena2") varies glibc by its
/// environment; a knob variant ("jemalloc dirty_decay_ms=0") the malloc its label starts with.
struct tuning {
  std::string base;     ///< the malloc whose defaults it is compared with
  std::string setting;  ///< what it sets ("MALLOC_ARENA_MAX=2", "dirty_decay_ms=0")
};

/// nullopt for a plain malloc ("glibc", "jemalloc").
std::optional<tuning> tuning_of(const std::string& label);

/// One knob setting of the replay's sweep chosen for real runs.
struct knob_trial {
  std::string label;  ///< its label in both results: "glibc_arena2", "jemalloc dirty_decay_ms=0"
  tuning of;
  double replay_ratio = 0;  ///< the replay's estimate: median call time, defaults ÷ the setting
  std::size_t rank = 0;     ///< 1: the replay's best setting of its malloc
  std::size_t swept = 0;    ///< settings of its malloc the replay measured
};

/// Real runs try the replay's best knob setting of each malloc (a small, bounded number: each
/// adds one combination to every round of the same budget).
inline constexpr std::size_t knob_trials_per_malloc = 1;

/// The knob settings advise's own replay sweeps when --variants names none, as --variants text:
/// one setting each of glibc, jemalloc and tcmalloc that trades memory for fewer system calls
/// (glibc top_pad=16777216, jemalloc background_thread=true, tcmalloc release_rate=0), those of
/// the mallocs in `mallocs` ("all": every installed one) that are installed; "" for none.
std::string default_knob_sweep(const std::vector<std::string>& mallocs);

/// The replay's tuning cells (measured, of a malloc in `mallocs`) ranked per malloc by the
/// replay's ratio to that malloc's defaults; the best `per_malloc` of each, best first.
std::vector<knob_trial> knobs_to_try(const model::document& replay,
                                     const std::vector<std::string>& mallocs,
                                     std::size_t per_malloc = knob_trials_per_malloc);

/// The mallocs `request` runs: its list, or (empty: try's default) the installed default ones.
std::vector<std::string> tried_mallocs(const program::try_request& request);

/// Adds `trials` to `request`: a registry variant to its mallocs, a knob variant to its
/// --variants text; one already there is not added again. An empty malloc list (try's default)
/// is first written out (tried_mallocs).
void add_knob_trials(program::try_request& request, const std::vector<knob_trial>& trials);

/// One line for advise: which settings the real runs tried, and why (the replay's rank).
std::string knob_trials_text(const std::vector<knob_trial>& trials);

}  // namespace alloclab::lab
