// What the seed claims read of the frames' own parts (results/claims.cpp, claims_ranking.cpp), in
// the claims' terms: a frame's part type that has such figures fills them (frame_part.hpp's
// `add_claim_figures`, detected like `series`), so the claims name no frame's types and read no
// frame's JSON. Each figure says which part fills it.
//
// Example:
//   const model::claim_figures f = model::claim_figures_of(results.config.frames);
//   if (f.heap_iterations) use(*f.heap_iterations);  // the heap frame ran
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "model/values.hpp"

namespace alloclab::lab::model {

// A served variant against the baseline variant (> 1 favours the variant), over fresh servers.
struct served_ratio {
  double value = 0;
  std::optional<interval> range;
  std::size_t repetitions = 0;  // per side
};

// One variant served over HTTP.
struct served_variant {
  std::string workload, strategy, malloc;
  std::optional<std::string> reason;  // why it has no number
  // Its ratios that have a value, by the serve section's key (`cpu_per_request_ratio`, ...).
  std::map<std::string, served_ratio> vs_baseline;
};

// One malloc variant's retention timelines under one load: the median over the workloads of the
// share of the heap growth still resident (minus LazyFree) at the horizon.
struct kept_at_horizon_share {
  std::string malloc, load;
  bool background_thread = false;
  std::optional<double> median_kept_unreclaimable;
};

struct retention_timeline_shares {
  double horizon_s = 0;
  std::vector<kept_at_horizon_share> variants;
};

struct claim_figures {
  // The config's heap part: the heap study's batches per repetition, when heap workloads ran.
  std::optional<std::size_t> heap_iterations;
  // A heap cell's part: the share of its RSS growth still resident, by settle time
  // (`after_free_1s`, ...); only the figures the cell has.
  std::map<std::string, double> retention;
  // The document's parts: every variant the serve frame served, and the retention timelines.
  std::vector<served_variant> served;
  std::optional<retention_timeline_shares> retention_timelines;
};

// Calls take(key, value) for each field of T's field list (model/fields.hpp) that is an
// std::optional<M> with a value: how a part adds its named figures without naming them twice.
template <class M, class T, class Take>
void for_each_present(const T& value, Take take) {
  const auto visit = [&take](const auto& member, const char* key, const char*, const auto&...) {
    if constexpr (std::is_same_v<std::decay_t<decltype(member)>, std::optional<M>>)
      if (member) take(key, *member);
  };
  T::fields(value, visit);
}

}  // namespace alloclab::lab::model
