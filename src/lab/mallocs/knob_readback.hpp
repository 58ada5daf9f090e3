// What the running process's malloc actually uses for the program frame's knobs, read from
// inside the process (the liveness probe of `alloclab try` calls read_knobs in every process it
// is preloaded into), and the one-line text form the probe reports each reading in.
//
// | malloc   | knob               | read back with                                             |
// |----------|--------------------|------------------------------------------------------------|
// | jemalloc | dirty_decay_ms     | mallctl("opt.dirty_decay_ms"), ssize_t                     |
// | jemalloc | muzzy_decay_ms     | mallctl("opt.muzzy_decay_ms"), ssize_t                     |
// | jemalloc | background_thread  | mallctl("background_thread"), bool: the live state         |
// | mimalloc | purge_delay        | mi_option_get(mi_option_decommit_delay), 2.0.9's name      |
// | mimalloc | arena_eager_commit | mi_option_get(mi_option_eager_commit), 2.0.9's name        |
// | tcmalloc | release_rate       | MallocExtension::instance()->GetMemoryReleaseRate()        |
// | glibc    | mmap_threshold     | observed, not read: with mallinfo2, beyond the heap's free |
// |          |                    | bytes malloc(threshold) is mmapped, malloc(below) is not   |
// | glibc    | arena_max, ...     | none: glibc offers no read-back of its tunables            |
//
// Every entry point is resolved with dlsym(RTLD_DEFAULT): nothing is linked, so a process served
// by another malloc gets "no read-back" readings, never a crash. The glibc observation allocates
// (and frees) two blocks near the threshold, only when the process's GLIBC_TUNABLES sets it: with
// a threshold set, glibc does not move it on free. mimalloc's option numbers come
// from Debian 12's /usr/include/mimalloc.h (2.0.9); another mimalloc version is not read.
//
// Example:
//   const auto readings = alloclab::mallocs::read_knobs("glibc", {"arena_max"});
//   // readings[0].value is empty; readings[0].how says glibc offers no read-back
//   const std::string line = alloclab::mallocs::reading_line(readings[0]);
//   // parse_reading_line(line)->knob == "arena_max"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alloclab::mallocs {

struct knob_reading {
  std::string knob;
  std::optional<std::string> value;  ///< what the malloc uses; empty when it cannot be read
  std::string how;                   ///< how it was read, or why it cannot be
  // Its JSON (model/fields.hpp): the program frame's records carry it.
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.knob, "knob", "the knob");
    field(s.value, "value", "what the malloc uses, null when it cannot be read");
    field(s.how, "how", "how it was read, or why it cannot be");
  }
};

/// Reads `knobs` (the program frame's knob names) of `malloc` (a registry name) in this process,
/// with the read-back its table entry names ("no read-back" when it names none).
std::vector<knob_reading> read_knobs(std::string_view malloc,
                                     const std::vector<std::string>& knobs);

/// Each malloc's read-back of one knob, named in its malloc table entry (the table above).
knob_reading read_glibc_knob(const std::string& knob);
knob_reading read_jemalloc_knob(const std::string& knob);
knob_reading read_mimalloc_knob(const std::string& knob);
knob_reading read_tcmalloc_knob(const std::string& knob);
knob_reading read_dlmalloc_knob(const std::string& knob);

/// "knob NAME VALUE HOW" ("?" for no value); NAME and VALUE have no spaces, HOW is the rest.
std::string reading_line(const knob_reading& reading);

/// The reading a reading_line() wrote; empty for any other text.
std::optional<knob_reading> parse_reading_line(std::string_view line);

}  // namespace alloclab::mallocs
