// Knob variants of `alloclab try` and `alloclab replay`: a malloc with some of its tuning knobs set, written
// MALLOC:KNOB=VALUE[+KNOB=VALUE...], several separated by commas:
//   --variants 'glibc:arena_max=1,jemalloc:dirty_decay_ms=0+background_thread=true'
//
// Each malloc's knobs are its malloc table entry's (malloc_table.cpp, `knobs`); today:
//
// | malloc   | knob               | value            | environment                              |
// |----------|--------------------|------------------|------------------------------------------|
// | glibc    | arena_max          | integer >= 1     | GLIBC_TUNABLES=glibc.malloc.arena_max=V  |
// | glibc    | trim_threshold     | integer >= 0     | GLIBC_TUNABLES=glibc.malloc.trim_threshold |
// | glibc    | mmap_threshold     | integer >= 0     | GLIBC_TUNABLES=glibc.malloc.mmap_threshold |
// | glibc    | top_pad            | integer >= 0     | GLIBC_TUNABLES=glibc.malloc.top_pad      |
// | jemalloc | dirty_decay_ms     | integer >= -1    | MALLOC_CONF=dirty_decay_ms:V             |
// | jemalloc | muzzy_decay_ms     | integer >= -1    | MALLOC_CONF=muzzy_decay_ms:V             |
// | jemalloc | background_thread  | true or false    | MALLOC_CONF=background_thread:V          |
// | mimalloc | purge_delay        | integer >= -1    | MIMALLOC_PURGE_DELAY, MIMALLOC_DECOMMIT_DELAY (2.0's name) |
// | mimalloc | arena_eager_commit | 0, 1 or 2        | MIMALLOC_ARENA_EAGER_COMMIT, MIMALLOC_EAGER_COMMIT (2.0's) |
// | tcmalloc | release_rate       | number >= 0      | TCMALLOC_RELEASE_RATE=V                  |
//
// Example:
//   const auto variants = alloclab::mallocs::parse_variants("glibc:arena_max=1");
//   // variants[0].label() == "glibc arena_max=1"
//   // knob_environment(variants[0]) == {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=1"}}
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mallocs/knob_readback.hpp"

namespace alloclab::mallocs {

/// A --variants text that cannot be used: one line saying why.
class variant_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct knob_setting {
  std::string knob;
  std::string value;
};

/// One malloc with knobs set; no knobs is the malloc's defaults.
struct variant {
  std::string malloc;
  std::vector<knob_setting> settings;
  /// "jemalloc", "jemalloc dirty_decay_ms=0 background_thread=true".
  std::string label() const;
};

using environment = std::vector<std::pair<std::string, std::string>>;

/// Throws variant_error (unknown malloc or knob, bad value, a knob set twice, empty text).
std::vector<variant> parse_variants(std::string_view text);

/// The environment variables that apply `v`'s knobs (empty for defaults).
environment knob_environment(const variant& v);

/// Every variable any knob may set: removed from a run's inherited environment first.
std::vector<std::string> knob_variables();

/// Every knob `malloc` has (empty for a malloc without knobs): what the probe reads back.
std::vector<std::string> knobs_of(std::string_view malloc);

/// Whether `read`, what the malloc reports it uses, is the value `set` asked for (compared as
/// the knob's kind: numbers as numbers, "1"/"0" as a boolean's true/false).
bool same_knob_value(std::string_view malloc, std::string_view knob, std::string_view set,
                     std::string_view read);

/// "" when each knob `v` sets reads back as set in `readings` (or cannot be read back); else one
/// line naming the first knob the malloc did not take and the value it uses instead.
std::string knob_not_applied(const variant& v, const std::vector<knob_reading>& readings);

/// "glibc: arena_max, trim_threshold, ..." per malloc that has knobs, for help and errors.
std::string knob_summary();

}  // namespace alloclab::mallocs
