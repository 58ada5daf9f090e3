// This machine's memmove cost by placement: is copying much slower for some distances
// dst - src (mod 4096)? With glibc 2.36's `rep movsb` path (copies above a few KiB), this
// project's AMD EPYC VM copies ~16x slower when the destination is 1..31 bytes past the source
// modulo a page, which is exactly where a fresh glibc heap puts a std::vector's doubled buffer
// (right after the old chunk: dst - src = old size + 16). So growth cost depends on where malloc
// put the old and new buffers (docs/placement.md). Only the distance mod 4096 is scanned: the
// source is kept at one page offset (config.src_offset), and the cost did not depend on it here.
//
// Usage:
//   copy_cliff_result r = measure_copy_cliff();            // ~10-40 ms, in this process
//   model::copy_probe probe = r.facts();                   // as the results model holds it
//   std::cout << cliff_description(probe) << '\n';         // render/placement_text.hpp
//   // Re-measure with rep movsb switched off, in a child process (glibc reads tunables at exec).
//   // The child is any program whose last argument goes to copy_probe_main(): the
//   // alloclab_copy_probe binary, or `alloclab __copy-probe` once main() dispatches it.
//   auto off = measure_copy_cliff_in_child({probe_path}, rep_movsb_off_tunables, {},
//                                          std::chrono::seconds(10));
//   placement_probe both = probe_placement();              // the two, as a run takes them
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mallocs/malloc_table.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

using alloclab::mallocs::rep_movsb_off_tunables;

struct copy_cliff_config {
  std::vector<std::size_t> sizes{4096, 32768};  ///< bytes per copy; above rep movsb's threshold
  unsigned step = 8;              ///< distances dst - src measured: 0, step, 2 step, ... < 4096
  unsigned src_offset = 0;        ///< the source's offset in its page (0..4095)
  unsigned trials = 5;            ///< the median of this many timings is a placement's cost
  unsigned copies_per_trial = 4;  ///< memmoves per timing (ns reported per copy)
  double cliff_ratio = 3.0;       ///< a placement costing more than this x the median is a cliff
  /// A placement read above cliff_ratio is timed this many more times and costs the least of its
  /// timings, so one slow timing (an interrupt, a neighbour's burst) does not make a cliff.
  unsigned rechecks = 2;
};

/// One measured placement: `bytes` copied to an address `delta_mod4096` bytes past the source,
/// modulo a page.
struct copy_cost {
  std::size_t bytes = 0;
  unsigned delta_mod4096 = 0;
  double ns = 0;  ///< per copy
  unsigned delta_mod64() const { return delta_mod4096 % 64u; }
};

/// A placement costing more than cliff_ratio x the median of all placements of its size.
struct copy_cliff {
  copy_cost cost;
  double median_ns = 0;  ///< the median over every placement of that size
  double ratio = 0;      ///< cost.ns / median_ns
};

struct copy_cliff_result {
  copy_cliff_config config;
  std::vector<copy_cost> costs;    ///< every placement measured, by size then distance
  std::vector<copy_cliff> cliffs;  ///< the placements above the cliff ratio, worst first
  unsigned rechecked = 0;          ///< placements re-timed because they first read above the ratio
  std::string glibc_tunables;      ///< GLIBC_TUNABLES of the measuring process ("" if unset)
  double elapsed_ms = 0;           ///< how long the measurement took

  bool has_cliff() const { return !cliffs.empty(); }
  /// Whether a copy of `bytes` whose destination is `delta_mod4096` bytes past its source (mod
  /// 4096) lands on a cliff, judged at the largest measured size <= bytes and the measured
  /// distance at or below delta (false below the smallest measured size).
  bool on_cliff(std::size_t bytes, unsigned delta_mod4096) const;
  /// Worst ratio of a placement's cost to its size's median (1 when nothing was measured).
  double worst_ratio() const;
  model::copy_probe facts() const;  ///< figures only; render/placement_text.hpp words them
  nlohmann::json to_json() const;   ///< facts() as JSON: what the child probe prints
  static copy_cliff_result from_json(const nlohmann::json& j);  ///< throws nlohmann exceptions
};

/// Returns the cost of one placement (ns per copy, already a median). Injected by tests.
using copy_timer = std::function<double(std::size_t bytes, unsigned delta_mod4096)>;

/// Throws std::invalid_argument for no sizes, sizes above 64 MiB, a step of 0 or not dividing
/// 4096, a src_offset >= 4096, zero trials or copies, a cliff ratio <= 1, or over 100 rechecks.
void validate(const copy_cliff_config& config);

/// Times every (size, distance) with `timer`, re-times those above the cliff ratio
/// (config.rechecks times each) and finds the cliffs. Pure.
copy_cliff_result find_copy_cliffs(const copy_cliff_config& config, const copy_timer& timer);

/// find_copy_cliffs with a timer around this process's std::memmove.
copy_cliff_result measure_copy_cliff(const copy_cliff_config& config = {});

/// The child side: parses a copy_cliff_config JSON (may be "{}" for the defaults), measures,
/// prints the result's JSON on `out`. Returns 0, or 2 with one line on `err` for a bad config.
int copy_probe_main(std::string_view config_json, std::ostream& out, std::ostream& err);

/// Runs `argv_prefix + [config json]` with GLIBC_TUNABLES=`glibc_tunables` and parses what it
/// prints. std::nullopt when the child fails, times out or prints something else; `why` says
/// which.
std::optional<copy_cliff_result> measure_copy_cliff_in_child(
    const std::vector<std::string>& argv_prefix, const std::string& glibc_tunables,
    const copy_cliff_config& config, std::chrono::milliseconds timeout, std::string* why = nullptr);

/// The placement probe of a run: this process's memmove by placement, and the same re-measured
/// in a child (`self __copy-probe`, normally /proc/self/exe) under rep_movsb_off_tunables.
struct placement_probe {
  copy_cliff_result plain;
  std::optional<copy_cliff_result> with_tunable;  ///< empty when the child failed
  std::string tunable_error;                      ///< why it failed ("" when it did not)
  /// Results' environment.placement, its `check` left at "auto" (settle_placement_twin sets it).
  model::placement_facts facts() const;
};
placement_probe probe_placement(const std::string& self = "/proc/self/exe");

}  // namespace alloclab::lab
